package stream

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// contextOf returns the core state of ctx, or op's error for a nil or zero
// Context.
func contextOf(op string, ctx *driver.Context) (*core.Context, error) {
	c := core.ContextOf(ctx)
	if c == nil {
		return nil, fmt.Errorf("%s: nil context: %w", op, driver.ErrInvalidValue)
	}
	return c, nil
}

// withBound runs call with the context of hold current on the calling OS
// thread, and unbinds before returning.
func withBound(hold *core.Hold, call func(api backend.API) error) error {
	b, err := hold.Bind()
	if err != nil {
		return err
	}
	return unbind(b, call(b.API()))
}

// withContext runs call with c current, for calls that belong to no object.
func withContext(c *core.Context, call func(api backend.API) error) error {
	b, err := c.Bind()
	if err != nil {
		return err
	}
	return unbind(b, call(b.API()))
}

// unbind undoes b and returns err, or the error of unbinding when err is nil.
func unbind(b core.Binding, err error) error {
	if uerr := b.Unbind(); uerr != nil && err == nil {
		return uerr
	}
	return err
}

// dropHold closes the hold taken for an object whose creation failed with
// err, and adds the error of that, if any, to err.
func dropHold(hold *core.Hold, err error) error {
	if r := hold.Close(nil); r != nil {
		return errors.Join(err, r)
	}
	return err
}
