package core

import (
	"fmt"
	"runtime"
)

// Binding is a context made current on a locked OS thread by Bind. Unbind
// undoes exactly what Bind did.
type Binding struct {
	c      *Context
	h      *Hold // the object held for the call (Hold.Bind, Queue.Use), if any
	pushed bool
}

// Bind locks the calling goroutine to its OS thread and makes c current
// there if it is not already, by pushing it on the thread's context stack;
// Unbind pops what was pushed and unlocks the thread, so that other code
// sharing the thread finds its context as it left it. It costs one
// cuCtxGetCurrent when c is already current, and a push and pop otherwise.
// The binding holds the context for its duration: a Release racing it ends
// the context only after Unbind. It fails with ErrClosed once the user's
// reference was released, and with an error wrapping ErrInCallback when
// called from inside a host callback.
func (c *Context) Bind() (Binding, error) { return c.bind(true) }

func (c *Context) bind(fresh bool) (Binding, error) {
	if err := NotInCallback(c); err != nil {
		return Binding{}, err
	}
	if err := c.acquire(fresh); err != nil {
		return Binding{}, err
	}
	runtime.LockOSThread()
	cur, err := c.API.CtxGetCurrent()
	if err == nil && cur == c.Handle {
		return Binding{c: c}, nil
	}
	if err == nil {
		err = c.API.CtxPushCurrent(c.Handle)
		if err == nil {
			return Binding{c: c, pushed: true}, nil
		}
		err = fmt.Errorf("%s: cuCtxPushCurrent: %w", c.Desc, err)
	} else {
		err = fmt.Errorf("%s: cuCtxGetCurrent: %w", c.Desc, err)
	}
	runtime.UnlockOSThread()
	if derr := c.drop(); derr != nil {
		err = fmt.Errorf("%w (and ending the context: %v)", err, derr)
	}
	return Binding{}, err
}

// Unbind pops the context Bind pushed, if any, unlocks the OS thread and
// lets go of the context. A pop that fails leaves the thread locked (the
// context is still current there, and another goroutine must not inherit
// it) and is returned. Calling it on a zero Binding does nothing. Call it
// exactly once, on the goroutine that called Bind.
func (b Binding) Unbind() error {
	if b.h != nil {
		defer b.h.Unuse()
	}
	if b.c == nil {
		return nil
	}
	var err error
	if b.pushed {
		if _, perr := b.c.API.CtxPopCurrent(); perr != nil {
			err = fmt.Errorf("%s: cuCtxPopCurrent: %w", b.c.Desc, perr)
		}
	}
	if err == nil {
		runtime.UnlockOSThread()
	}
	if derr := b.c.drop(); derr != nil && err == nil {
		err = derr
	}
	return err
}

// Done is Unbind for a deferred call in a function with a named error
// result: defer b.Done(&err). The unbinding's error is stored in *err when
// the function returns none of its own. On a zero Binding it does nothing;
// on one that binds nothing (the common case: a call on an ordinary stream)
// it only ends the call's hold on the object.
func (b Binding) Done(err *error) {
	if b.c == nil {
		if b.h != nil {
			b.h.Unuse()
		}
		return
	}
	if uerr := b.Unbind(); uerr != nil && *err == nil {
		*err = uerr
	}
}
