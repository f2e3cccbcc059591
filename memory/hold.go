package memory

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
)

// Memory this package allocates or maps (Alloc, AllocAsync, OpenIPC,
// AllocHost) holds its context with a driver.Hold from before the driver
// call that makes it until after the one that frees it: every call made for
// it binds through the Hold, so it keeps working after the user released the
// *driver.Context, and freeing it never touches a dead context. Borrowed
// memory holds nothing and binds through its Context.

// bind makes the allocation's context current for a call that needs it:
// through the Hold for memory this package allocated or mapped, which works
// after the *driver.Context was released, and through the Context for
// borrowed memory, which then fails with ErrClosed. The caller must Unbind
// the result.
func (a *allocation) bind() (driver.Binding, error) {
	if a.hold != nil {
		return a.hold.Bind()
	}
	return a.ctx.Bind()
}

// orphaned reports whether the memory is borrowed and the Context it was
// borrowed in has been released: such a buffer is closed, since nothing keeps
// that context alive for it.
func (a *allocation) orphaned() bool {
	return a.kind == kindBorrowed && a.ctx.Closed()
}

// withHold runs call with h's context current, and unbinds before returning,
// so that the caller may release h afterwards: a context that ends with its
// last Hold must never be popped after it was destroyed.
func withHold(h *driver.Hold, call func() error) error {
	b, err := h.Bind()
	if err != nil {
		return err
	}
	defer b.Unbind()
	return call()
}

// dropHold releases the Hold taken for an object whose creation failed with
// err, and returns err, joined with the Hold's own error if it has one (the
// release ends the context when the user released it meanwhile).
func dropHold(h *driver.Hold, err error) error {
	if r := h.Release(); r != nil {
		return errors.Join(err, r)
	}
	return err
}

// releaseHold releases h once the memory it kept is freed; its error (from
// ending a released context) is reported by op about what, which is freed
// all the same.
func releaseHold(h *driver.Hold, op, what string) error {
	if h == nil {
		return nil
	}
	if r := h.Release(); r != nil {
		return fmt.Errorf("%s: %s: freed, but ending its context failed: %w", op, what, r)
	}
	return nil
}
