package core

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
)

// Do runs call with the context current on the calling OS thread (see
// Context.Bind), and unbinds before returning. The error is call's, or else
// the binding's.
func (c *Context) Do(call func(api backend.API) error) error {
	b, err := c.Bind()
	if err != nil {
		return err
	}
	return unbind(b, call(c.API))
}

// Do is Context.Do for a call on the held object: it works after the user
// closed the Context, until the object's Close. It unbinds before
// returning, so that the caller may then let go of the hold.
func (h *Hold) Do(call func(api backend.API) error) error {
	b, err := h.Bind()
	if err != nil {
		return err
	}
	return unbind(b, call(h.c.API))
}

// Drop lets go of the hold of an object that could not be made, because of
// err, and returns err joined with the error of ending the context, if
// letting go ended it and that failed.
func (h *Hold) Drop(err error) error {
	if r := h.Close(nil); r != nil {
		return errors.Join(err, r)
	}
	return err
}

func unbind(b Binding, err error) error {
	if uerr := b.Unbind(); uerr != nil && err == nil {
		return uerr
	}
	return err
}

// Undo destroys an object the driver made for a create call that then
// failed (its unbinding did: the object exists, but the call reports an
// error), so that nothing the driver made is dropped: a call either returns
// its object or destroys it. destroy runs with the context bound through h
// (which the failed unbinding left current anyway). It returns err, joined
// with destroy's error if the object could not be destroyed either.
func (h *Hold) Undo(err error, destroy func(api backend.API) error) error {
	if derr := h.Do(destroy); derr != nil {
		return errors.Join(err, fmt.Errorf("destroying the object made: %w", derr))
	}
	return err
}
