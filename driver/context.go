package driver

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// ErrWrongContext reports a handle or pointer that belongs to another context
// than the one it was used with. The packages above re-export it.
var ErrWrongContext = errors.New("cuda: wrong context")

// ContextKind says who owns a Context and what Release does.
type ContextKind int

const (
	// Primary is the device's primary context, shared with the CUDA runtime
	// API and every other user in the process; Release drops one reference.
	Primary ContextKind = iota
	// Owned is a context created by NewContext; Release destroys it.
	Owned
	// Wrapped is a foreign context; Release only detaches.
	Wrapped
)

// String returns "primary", "owned" or "wrapped".
func (k ContextKind) String() string {
	switch k {
	case Primary:
		return "primary"
	case Owned:
		return "owned"
	case Wrapped:
		return "wrapped"
	}
	return fmt.Sprintf("ContextKind(%d)", int(k))
}

// Context is a CUDA context (CUcontext) and who owns it. Every object made in
// it (streams, events, buffers, modules) keeps it. Operations on a Context and
// on its objects work from any goroutine: they make it current on the calling
// OS thread only for the call, and leave that thread's context as they found
// it (see Bind).
type Context struct {
	drv    *Driver
	dev    *Device
	h      uintptr
	kind   ContextKind
	closed atomic.Bool // Release was called: this reference is closed

	mu    sync.Mutex
	holds int  // live Holds: objects made in the context and not yet closed
	ended bool // the context reference was ended in the driver (released or destroyed)
}

// PrimaryContext retains the device's primary context (cuDevicePrimaryCtxRetain)
// and returns a reference to it. Each call takes one reference; Release drops
// it. The primary context is shared with the CUDA runtime and other libraries
// in the process.
func (d *Device) PrimaryContext() (*Context, error) {
	if d == nil || d.drv == nil {
		return nil, errNilDevice
	}
	h, r := d.drv.api.DevicePrimaryCtxRetain(d.handle)
	if r != nil {
		return nil, d.err("cuDevicePrimaryCtxRetain", r)
	}
	return &Context{drv: d.drv, dev: d, h: h, kind: Primary}, nil
}

// NewContext creates a context of its own on the device (cuCtxCreate with
// flags, CU_CTX_* values). The caller owns it: Release destroys it. The
// calling thread's current context is left as it was.
func (d *Device) NewContext(flags uint32) (*Context, error) {
	if d == nil || d.drv == nil {
		return nil, errNilDevice
	}
	api := d.drv.api
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	h, r := api.CtxCreate(flags, d.handle)
	if r != nil {
		return nil, d.err("cuCtxCreate", r)
	}
	// cuCtxCreate pushes the new context; pop it so the thread is as it was.
	if _, r := api.CtxPopCurrent(); r != nil {
		api.CtxDestroy(h)
		return nil, d.err("cuCtxPopCurrent", r)
	}
	return &Context{drv: d.drv, dev: d, h: h, kind: Owned}, nil
}

// WrapContext wraps a context created by someone else (the CUDA runtime,
// another library). The handle must be live; Release only detaches and never
// destroys it.
func WrapContext(drv *Driver, handle uintptr) (*Context, error) {
	if drv == nil || drv.api == nil {
		return nil, fmt.Errorf("driver.WrapContext: nil driver: %w", ErrInvalidValue)
	}
	if handle == 0 {
		return nil, fmt.Errorf("driver.WrapContext: handle 0x0: a NULL context cannot be wrapped: %w", ErrInvalidContext)
	}
	api := drv.api
	if _, r := api.CtxGetApiVersion(handle); r != nil {
		return nil, fmt.Errorf("driver.WrapContext: handle %#x: cuCtxGetApiVersion: %w", handle, r)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if r := api.CtxPushCurrent(handle); r != nil {
		return nil, fmt.Errorf("driver.WrapContext: handle %#x: cuCtxPushCurrent: %w", handle, r)
	}
	devh, r := api.CtxGetDevice()
	api.CtxPopCurrent()
	if r != nil {
		return nil, fmt.Errorf("driver.WrapContext: handle %#x: cuCtxGetDevice: %w", handle, r)
	}
	dev, err := drv.deviceByHandle(devh)
	if err != nil {
		return nil, fmt.Errorf("driver.WrapContext: handle %#x: %w", handle, err)
	}
	return &Context{drv: drv, dev: dev, h: handle, kind: Wrapped}, nil
}

// errNilContext is what every method of a nil *Context returns.
var errNilContext = fmt.Errorf("driver: nil context: %w", ErrInvalidValue)

// Handle returns the raw CUcontext (0 for a nil Context). It stays valid
// while the context is alive; for a wrapped context that is up to its owner.
func (c *Context) Handle() uintptr {
	if c == nil {
		return 0
	}
	return c.h
}

// Device returns the context's device.
func (c *Context) Device() *Device {
	if c == nil {
		return nil
	}
	return c.dev
}

// Driver returns the context's driver.
func (c *Context) Driver() *Driver {
	if c == nil {
		return nil
	}
	return c.drv
}

// API returns the raw backend of the context's driver (nil for a nil
// Context).
func (c *Context) API() API {
	if c == nil || c.drv == nil {
		return nil
	}
	return c.drv.api
}

// Kind says whether the context is the primary context, owned or wrapped.
func (c *Context) Kind() ContextKind {
	if c == nil {
		return Wrapped
	}
	return c.kind
}

// Closed reports whether Release has been called (true for a nil Context).
func (c *Context) Closed() bool { return c == nil || c.closed.Load() }

// Synchronize blocks until all work in the context is done (cuCtxSynchronize).
func (c *Context) Synchronize() error {
	b, err := c.Bind()
	if err != nil {
		return err
	}
	defer b.Unbind()
	if r := c.drv.api.CtxSynchronize(); r != nil {
		return c.errf("cuCtxSynchronize", r)
	}
	return nil
}

// Release ends this reference to the context: a primary context reference is
// released (cuDevicePrimaryCtxRelease), an owned context destroyed
// (cuCtxDestroy), a wrapped one only detached. After Release the Context
// itself answers ErrClosed; objects made in it that own driver resources
// (streams, events, buffers, modules) hold the context (see Hold), and the
// release or destruction waits until the last of them is closed, so that
// closing them never touches a dead context. A second Release is a no-op
// that returns nil.
func (c *Context) Release() error {
	if c == nil || c.drv == nil {
		return errNilContext
	}
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	c.mu.Lock()
	last := c.holds == 0
	c.mu.Unlock()
	if last {
		return c.end()
	}
	return nil
}

// end releases or destroys the context in the driver, once.
func (c *Context) end() error {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return nil
	}
	c.ended = true
	c.mu.Unlock()
	switch c.kind {
	case Primary:
		if r := c.drv.api.DevicePrimaryCtxRelease(c.dev.handle); r != nil {
			return c.errf("cuDevicePrimaryCtxRelease", r)
		}
	case Owned:
		if r := c.drv.api.CtxDestroy(c.h); r != nil {
			return c.errf("cuCtxDestroy", r)
		}
	}
	return nil
}

// Hold keeps a context alive for one object made in it that owns a driver
// resource (a stream, an event, device or pinned memory, a module), from its
// creation until its Close. The object binds through its Hold, which works
// after the Context itself was released, until the Hold is released. Hold
// returns ErrClosed after Release.
type Hold struct {
	c        *Context
	released atomic.Bool
}

// Hold takes a Hold on c. Packages that build objects on a Context take one
// when the object is made and release it when the object is closed.
func (c *Context) Hold() (*Hold, error) {
	if c == nil || c.drv == nil {
		return nil, errNilContext
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() {
		return nil, fmt.Errorf("driver: %s: %w", c, ErrClosed)
	}
	c.holds++
	return &Hold{c: c}, nil
}

// Bind is Context.Bind for the object that holds the context: it works until
// the Hold is released, whether or not the Context was released.
func (h *Hold) Bind() (Binding, error) {
	if h == nil {
		return Binding{}, errNilContext
	}
	if h.released.Load() {
		return Binding{}, fmt.Errorf("driver: %s: %w", h.c, ErrClosed)
	}
	return h.c.bind()
}

// Release ends the Hold. When it was the last one and the Context was
// released, the context is released or destroyed now, and the error of that
// is returned. A second Release is a no-op.
func (h *Hold) Release() error {
	if h == nil || !h.released.CompareAndSwap(false, true) {
		return nil
	}
	c := h.c
	c.mu.Lock()
	c.holds--
	last := c.holds == 0 && c.closed.Load()
	c.mu.Unlock()
	if last {
		return c.end()
	}
	return nil
}

// String describes the context, for errors and logs.
func (c *Context) String() string {
	if c == nil || c.dev == nil {
		return "nil context"
	}
	return fmt.Sprintf("%s context %#x on device %d", c.kind, c.h, c.dev.ordinal)
}

func (c *Context) errf(op string, r error) error {
	return fmt.Errorf("driver: %s: %s: %w", c, op, r)
}

// Binding is a context made current on a locked OS thread by Bind. Unbind
// undoes exactly what Bind did; call it exactly once, on the goroutine that
// called Bind (a second Unbind would pop a context someone else pushed).
type Binding struct {
	api    API
	pushed bool
}

// Bind locks the calling goroutine to its OS thread and makes c current there
// if it is not already, by pushing it on the thread's context stack. The
// caller must call Unbind on the result (defer b.Unbind()), which pops what
// was pushed and unlocks the thread, so that other code sharing the thread
// finds its context as it left it. Bind costs one cuCtxGetCurrent when c is
// already current, and a push and pop otherwise. It returns ErrClosed after
// Release.
func (c *Context) Bind() (Binding, error) {
	if c == nil || c.drv == nil {
		return Binding{}, errNilContext
	}
	if c.closed.Load() {
		return Binding{}, fmt.Errorf("driver: %s: %w", c, ErrClosed)
	}
	return c.bind()
}

func (c *Context) bind() (Binding, error) {
	api := c.drv.api
	runtime.LockOSThread()
	cur, r := api.CtxGetCurrent()
	if r != nil {
		runtime.UnlockOSThread()
		return Binding{}, c.errf("cuCtxGetCurrent", r)
	}
	if cur == c.h {
		return Binding{api: api}, nil
	}
	if r := api.CtxPushCurrent(c.h); r != nil {
		runtime.UnlockOSThread()
		return Binding{}, c.errf("cuCtxPushCurrent", r)
	}
	return Binding{api: api, pushed: true}, nil
}

// Unbind pops the context Bind pushed, if any, and unlocks the OS thread.
// Calling it on a zero Binding does nothing.
func (b Binding) Unbind() {
	if b.api == nil {
		return
	}
	if b.pushed {
		b.api.CtxPopCurrent()
	}
	runtime.UnlockOSThread()
}
