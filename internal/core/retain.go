package core

import (
	"errors"
	"fmt"
)

// Retention: an object that a CUDA graph (or an exec made from one) refers
// to, such as the memory of a copy node or the module of a kernel node, is
// retained by the graph for the graph's life. Close of a retained object is
// refused with an error wrapping ErrRetained, and changes nothing: a
// replay of the graph never touches freed memory or an unloaded module.
// Close it after the graphs and execs that use it.

// ErrRetained is wrapped by the error of Close (Buffer.Close, Module.Close)
// on an object that an open graph or exec still refers to.
var ErrRetained = errors.New("in use by an open CUDA graph or graph exec (close them first)")

// Retain counts one more retainer of the object (a graph or exec that
// refers to it), until Release. It fails with an error wrapping ErrClosed
// that names what once the object's Close succeeded, or while one is in
// progress.
func (h *Hold) Retain(what fmt.Stringer) error {
	if !h.use() {
		return fmt.Errorf("%s: %w", what, ErrClosed)
	}
	h.retained.Add(1)
	h.Unuse()
	return nil
}

// Release ends a retention begun by Retain.
func (h *Hold) Release() { h.retained.Add(-1) }

// Retained reports how many retainers the object has.
func (h *Hold) Retained() int64 { return h.retained.Load() }

// refuseRetained returns an error wrapping ErrRetained while the object is
// retained. Called by Close once the calls in progress ended.
func (h *Hold) refuseRetained() error {
	if n := h.retained.Load(); n > 0 {
		return fmt.Errorf("%d graph(s) or exec(s): %w", n, ErrRetained)
	}
	return nil
}
