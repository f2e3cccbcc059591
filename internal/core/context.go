// Package core is the one lifetime rule that every public package shares,
// written once: a context reference, the objects that hold it, and binding
// it to the calling OS thread. It is internal so that users never see it:
// they hold *driver.Context, streams, buffers and modules, which keep their
// core state in unexported fields.
//
// The rule: every object made in a context (a stream, an event, a buffer, a
// module; owned, wrapped and borrowed alike) holds the context from its
// creation until its Close. Releasing the Context ends the user's reference
// at once (the Context answers ErrClosed), and ends the context in the
// driver (cuDevicePrimaryCtxRelease, cuCtxDestroy) when the last object
// holding it is closed; so closing an object never touches a dead context. A
// teardown that the driver refuses stays pending and is tried again by the
// next Release or Close.
package core

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver/backend"
)

// ErrClosed is returned by every operation on an object after its Close,
// Release, Free or Unload. Package driver exports it.
var ErrClosed = errors.New("driver: object is closed")

// Context is the state of one reference to a CUDA context.
type Context struct {
	API     backend.API
	Handle  uintptr
	Ordinal int    // the device's ordinal
	Desc    string // "primary context 0x5a0 on device 0", for errors

	end func() error // ends the reference in the driver; nil for wrapped contexts

	mu       sync.Mutex
	released bool // the user's reference was released
	holds    int  // objects and bindings in progress that hold the context
	ended    bool // end succeeded: the context is gone for this reference

	captures captures // the captures begun through this library (capture.go)
}

// NewContext returns the state of a context reference whose end in the
// driver is end (nil when there is nothing to end, as for a wrapped
// context).
func NewContext(api backend.API, handle uintptr, ordinal int, desc string, end func() error) *Context {
	return &Context{API: api, Handle: handle, Ordinal: ordinal, Desc: desc, end: end}
}

// String returns the description given to NewContext.
func (c *Context) String() string { return c.Desc }

// Released reports whether the user's reference was released.
func (c *Context) Released() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.released
}

// Release ends the user's reference: from now on Hold fails with ErrClosed,
// and the context ends in the driver once nothing holds it (now, if nothing
// does). If ending fails, the error is returned and the next Release tries
// again; a Release after the end is a no-op. From inside a host callback it
// fails with an error wrapping ErrInCallback and changes nothing.
func (c *Context) Release() error {
	if err := NotInCallback(c); err != nil {
		return err
	}
	c.mu.Lock()
	c.released = true
	return c.endIfUnheldLocked()
}

// endIfUnheldLocked ends the context when it is released and unheld; it is
// called with c.mu held and unlocks it.
func (c *Context) endIfUnheldLocked() error {
	if !c.released || c.holds > 0 || c.ended {
		c.mu.Unlock()
		return nil
	}
	// Keep the lock while ending, so that no bind can start on a context that
	// is being ended, and a failed end can be retried.
	defer c.mu.Unlock()
	if c.end != nil {
		if err := c.end(); err != nil {
			return fmt.Errorf("%s: %w", c.Desc, err)
		}
	}
	c.ended = true
	return nil
}

// Hold is an object's hold on its context, from the object's creation until
// its Close; it also counts the calls in progress on the object (Use,
// Bind, Do), so that Close destroys the object only once none is: a call
// that passed its "not closed" check never hands the driver a destroyed
// handle.
type Hold struct {
	c      *Context
	mu     sync.Mutex  // serialises Close
	closed atomic.Bool // read without the lock on every use

	// users is twice the number of calls in progress, plus closing while a
	// Close waits for them and after it succeeded: a call that finds
	// closing set fails with ErrClosed (it raced Close; had Close won, it
	// would have found the object closed), so no call waits for a Close,
	// and a call made while another one holds the object (even on the same
	// goroutine) never deadlocks. The last call to end while closing is set
	// signals drained.
	users   atomic.Uint64
	drained chan struct{}

	retained atomic.Int64 // graphs and execs that refer to the object (retain.go)
}

// closing is the flag bit of Hold.users.
const closing = 1

// Hold takes a hold for a new object. It fails with ErrClosed once the
// user's reference was released: objects are made only in open contexts.
// From inside a host callback it fails with an error wrapping
// ErrInCallback: objects are not made there.
func (c *Context) Hold() (*Hold, error) {
	if err := NotInCallback(c); err != nil {
		return nil, err
	}
	if err := c.acquire(true); err != nil {
		return nil, err
	}
	return &Hold{c: c, drained: make(chan struct{}, 1)}, nil
}

// acquire counts one more holder. fresh holders (new objects, the user's own
// calls) need the user's reference open; holders that exist while another
// hold keeps the context (a call on an object) only need it not ended.
func (c *Context) acquire(fresh bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended || (fresh && c.released) {
		return fmt.Errorf("%s: %w", c.Desc, ErrClosed)
	}
	c.holds++
	return nil
}

// drop counts one holder less, ending the context if it was the last holder
// of a released context.
func (c *Context) drop() error {
	c.mu.Lock()
	c.holds--
	return c.endIfUnheldLocked()
}

// Context returns the context held.
func (h *Hold) Context() *Context { return h.c }

// Closed reports whether Close succeeded.
func (h *Hold) Closed() bool { return h.closed.Load() }

// Check returns nil while the object is open, and an error wrapping
// ErrClosed that names what after its Close.
func (h *Hold) Check(what fmt.Stringer) error {
	if h.Closed() {
		return fmt.Errorf("%s: %w", what, ErrClosed)
	}
	return nil
}

// Use holds the object open for one call that reaches the driver without
// binding its context: until Unuse, a Close waits, so the call's handle
// stays valid. It fails with an error wrapping ErrClosed that names what
// once Close succeeded, or while one is in progress. Every successful Use
// is matched by one Unuse.
func (h *Hold) Use(what fmt.Stringer) error {
	if h.use() {
		return nil
	}
	return fmt.Errorf("%s: %w", what, ErrClosed)
}

// Unuse ends a call begun by Use.
func (h *Hold) Unuse() {
	if h.users.Add(^uint64(1)) == closing { // the last call a Close waits for
		select {
		case h.drained <- struct{}{}:
		default: // a signal is pending already; Close reads the count again
		}
	}
}

// use counts one more call in progress, unless the object is closing or
// closed.
func (h *Hold) use() bool {
	if h.users.Add(2)&closing != 0 {
		h.Unuse()
		return false
	}
	return true
}

// quiesce refuses new calls and waits for those in progress to end; open
// undoes it when the Close fails. Called with h.mu held.
func (h *Hold) quiesce() {
	for h.users.Or(closing)>>1 != 0 {
		<-h.drained
		if h.users.Load()>>1 == 0 {
			return
		}
	}
}

// open lets calls in again after a Close that failed.
func (h *Hold) open() { h.users.And(^uint64(closing)) }

// Bind makes the context current on the calling OS thread for one call on
// the object (see Context.Bind), and holds the object for the call (see
// Use) until Unbind. It works after the user released the Context, until
// the object's Close.
func (h *Hold) Bind() (Binding, error) {
	if !h.use() {
		return Binding{}, fmt.Errorf("%s: %w", h.c.Desc, ErrClosed)
	}
	b, err := h.c.bind(false)
	if err != nil {
		h.Unuse()
		return Binding{}, err
	}
	b.h = h
	return b, nil
}

// Close closes the object: it waits for the calls in progress on the object
// (Use, Bind, Do) to end, refusing new ones with ErrClosed meanwhile; then
// destroy (nil for an object that owns nothing in
// the driver, such as a wrapped stream) runs with the context bound, and on
// success the hold is let go, which ends a released context when it was the
// last holder. A destroy that fails leaves the object open, so that Close
// can be retried; a Close after a successful one is a no-op that returns
// nil. The object is closed even when ending the context then fails: that
// error is returned, and the context's next Release tries again. A destroy
// that fails because the context is unusable after a sticky fault, or gone,
// closes the object too (its resources went with the context) and returns
// that error, marked with ErrStickyFault for a sticky fault. From inside a
// host callback it fails with an error wrapping ErrInCallback and changes
// nothing, before taking any lock (a Close in progress elsewhere may be
// waiting in the driver for that very callback). While a graph or exec
// retains the object (see Retain), Close fails with an error wrapping
// ErrRetained and changes nothing.
func (h *Hold) Close(destroy func(api backend.API) error) error {
	if err := NotInCallback(h.c); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed.Load() {
		return nil
	}
	h.quiesce()
	if err := h.refuseRetained(); err != nil {
		h.open()
		return err
	}
	return h.closeLocked(destroy)
}

// Abort is Close without waiting for the calls in progress: for the
// objects whose driver call is made to stop a call stuck on them
// (ncclCommAbort). New calls are refused from its start.
func (h *Hold) Abort(destroy func(api backend.API) error) error {
	if err := NotInCallback(h.c); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed.Load() {
		return nil
	}
	h.users.Or(closing)
	return h.closeLocked(destroy)
}

// closeLocked is Close once the calls are refused (h.users has closing):
// it lets them in again when the destroy fails.
func (h *Hold) closeLocked(destroy func(api backend.API) error) error {
	var lost error
	if destroy != nil {
		b, err := h.c.bind(false)
		if err != nil {
			h.open()
			return err
		}
		err = destroy(h.c.API)
		uerr := b.Unbind()
		switch {
		case err == nil:
			// Destroyed: the object is closed whatever the unbind says,
			// since destroying it again would fail; a failed unbind is
			// reported all the same.
			lost = uerr
		case Gone(err):
			// The context is unusable or gone, and the object with it:
			// it is closed, and the error says why.
			lost = errors.Join(ClosedAnyway(err), uerr)
		default:
			h.open()
			return errors.Join(err, uerr)
		}
	}
	h.closed.Store(true)
	if err := h.c.drop(); err != nil {
		return errors.Join(lost, err)
	}
	return lost
}
