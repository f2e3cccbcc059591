package driver

import (
	"fmt"
	"runtime"

	"github.com/nocgo/cuda/internal/core"
)

// ContextKind says who owns a Context and what Close does.
type ContextKind int

const (
	// Primary is the device's primary context, shared with the CUDA runtime
	// API and every other user in the process; Close drops one reference.
	Primary ContextKind = iota
	// Owned is a context created by NewContext; Close destroys it.
	Owned
	// Wrapped is a foreign context; Close only detaches.
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

// Context is one reference to a CUDA context (CUcontext), and who owns it.
//
// Every object made in a context (streams, events, buffers, modules; owned,
// wrapped and borrowed alike) holds it from its creation until its Close.
// Close ends this reference at once for the Context itself, which then
// answers ErrClosed, but the context lives on in the driver until the last
// object made in it is closed; only then is it released or destroyed. So
// objects keep working after Close, and closing them never touches a dead
// context. This is the library's one lifetime rule; the other packages refer
// to it.
//
// Operations on a Context and on its objects work from any goroutine: they
// make the context current on the calling OS thread only for the call, and
// leave the thread's context as they found it.
type Context struct {
	contextLink // its state (core.ContextOf), for the packages above
	dev         *Device
	kind        ContextKind
}

// contextLink names the embedded link unexported: users see nothing of it.
type contextLink = core.ContextLink

// state returns the context's state, nil for a nil or zero Context.
func (c *Context) state() *core.Context { return core.ContextOf(c) }

func newContext(dev *Device, h uintptr, kind ContextKind, end func() error) *Context {
	desc := fmt.Sprintf("%s context %#x on device %d", kind, h, dev.ordinal)
	return &Context{contextLink: core.LinkContext(core.NewContext(dev.drv.api, h, dev.ordinal, desc, end)), dev: dev, kind: kind}
}

// PrimaryContext retains the device's primary context (cuDevicePrimaryCtxRetain)
// and returns a reference to it. Each call takes one reference; Close drops
// it. The primary context is shared with the CUDA runtime and other libraries
// in the process.
func (d *Device) PrimaryContext() (*Context, error) {
	if d == nil || d.drv == nil {
		return nil, nilDevice("driver.Device.PrimaryContext")
	}
	api := d.drv.api
	d.mu.Lock()
	defer d.mu.Unlock()
	h, r := api.DevicePrimaryCtxRetain(d.handle)
	if r != nil {
		return nil, d.errf("driver.Device.PrimaryContext", "cuDevicePrimaryCtxRetain", r)
	}
	d.primaryRefs++
	return newContext(d, h, Primary, func() error {
		d.mu.Lock()
		defer d.mu.Unlock()
		if r := api.DevicePrimaryCtxRelease(d.handle); r != nil {
			return fmt.Errorf("cuDevicePrimaryCtxRelease: %w", r)
		}
		d.primaryRefs--
		return nil
	}), nil
}

// ResetPrimaryContext resets the device's primary context
// (cuDevicePrimaryCtxReset): everything made in it is destroyed, and the
// next PrimaryContext gets a fresh context (with, for example, other flags).
// It does not recover from a sticky fault: on the H200 with driver 580, the
// driver refuses new contexts after one all the same (see ErrStickyFault).
// It refuses, with an error wrapping ErrIllegalState, while this Driver
// still holds a reference to the primary context (a Context not closed, or
// closed but held by objects not yet closed), since those would be left
// with a dead context. The reset destroys what other libraries in the
// process made in the primary context too: call it only when nothing else
// uses the device.
func (d *Device) ResetPrimaryContext() error {
	const op = "driver.Device.ResetPrimaryContext"
	if d == nil || d.drv == nil {
		return nilDevice(op)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.primaryRefs > 0 {
		return fmt.Errorf("%s: device %d: %d references to the primary context are still held (close the objects made in it and its Contexts first): %w",
			op, d.ordinal, d.primaryRefs, ErrIllegalState)
	}
	if r := d.drv.api.DevicePrimaryCtxReset(d.handle); r != nil {
		return d.errf(op, "cuDevicePrimaryCtxReset", r)
	}
	return nil
}

// ContextOptions configure a new context. The zero value is the driver's
// default: automatic scheduling.
type ContextOptions struct {
	// Flags is the or of the CU_CTX_* flags below.
	Flags ContextFlags
}

// NewContext creates a context of its own on the device (cuCtxCreate). The
// caller owns it: Close destroys it. The calling thread's current context
// is left as it was.
func (d *Device) NewContext(opts ContextOptions) (*Context, error) {
	if d == nil || d.drv == nil {
		return nil, nilDevice("driver.Device.NewContext")
	}
	api := d.drv.api
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	h, r := api.CtxCreate(uint32(opts.Flags), d.handle)
	if r != nil {
		return nil, d.errf("driver.Device.NewContext", "cuCtxCreate", r)
	}
	// cuCtxCreate pushes the new context; pop it so the thread is as it was.
	if _, r := api.CtxPopCurrent(); r != nil {
		api.CtxDestroy(h)
		return nil, d.errf("driver.Device.NewContext", "cuCtxPopCurrent", r)
	}
	return newContext(d, h, Owned, func() error {
		if r := api.CtxDestroy(h); r != nil {
			return fmt.Errorf("cuCtxDestroy: %w", r)
		}
		return nil
	}), nil
}

// ContextFlags are the CU_CTX_* flags of NewContext.
type ContextFlags uint32

// Context flags.
const (
	SchedAuto         ContextFlags = 0x0 // CU_CTX_SCHED_AUTO
	SchedSpin         ContextFlags = 0x1 // CU_CTX_SCHED_SPIN
	SchedYield        ContextFlags = 0x2 // CU_CTX_SCHED_YIELD
	SchedBlockingSync ContextFlags = 0x4 // CU_CTX_SCHED_BLOCKING_SYNC
	MapHost           ContextFlags = 0x8 // CU_CTX_MAP_HOST
)

// WrapContext wraps a context created by someone else (the CUDA runtime,
// another library). The handle must be live; Close only detaches and never
// destroys it.
func WrapContext(drv *Driver, handle uintptr) (*Context, error) {
	if drv == nil || drv.api == nil {
		return nil, fmt.Errorf("driver.WrapContext: nil driver: %w", ErrInvalidValue)
	}
	if handle == 0 {
		return nil, fmt.Errorf("driver.WrapContext: handle 0x0: a NULL context cannot be wrapped: %w", ErrInvalidContext)
	}
	api := drv.api
	if _, r := api.CtxGetAPIVersion(handle); r != nil {
		return nil, fmt.Errorf("driver.WrapContext: handle %#x: cuCtxGetApiVersion: %w", handle, r)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if r := api.CtxPushCurrent(handle); r != nil {
		return nil, fmt.Errorf("driver.WrapContext: handle %#x: cuCtxPushCurrent: %w", handle, r)
	}
	devh, r := api.CtxGetDevice()
	if _, perr := api.CtxPopCurrent(); perr != nil && r == nil {
		r = perr
	}
	if r != nil {
		return nil, fmt.Errorf("driver.WrapContext: handle %#x: cuCtxGetDevice: %w", handle, r)
	}
	dev, err := drv.deviceByHandle(devh)
	if err != nil {
		return nil, fmt.Errorf("driver.WrapContext: handle %#x: %w", handle, err)
	}
	return newContext(dev, handle, Wrapped, nil), nil
}

// nilContext is what op, a method of a nil or zero *Context, returns.
func nilContext(op string) error {
	return fmt.Errorf("%s: nil context: %w", op, ErrInvalidValue)
}

// Handle returns the raw CUcontext (0 for a nil Context). It stays valid
// while the context is alive; for a wrapped context that is up to its owner.
func (c *Context) Handle() uintptr {
	if c.state() == nil {
		return 0
	}
	return c.state().Handle
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
	if c == nil || c.dev == nil {
		return nil
	}
	return c.dev.drv
}

// Same reports whether c and o are references to one CUDA context of one
// Driver: the same handle, through the same *Driver (false when either is
// nil or zero). Calls that take objects of several contexts compare them
// with Same, so that an object of another Driver is refused even where its
// handle happens to equal one of this Driver's.
func (c *Context) Same(o *Context) bool {
	cs, os := c.state(), o.state()
	return cs != nil && os != nil && c.Driver() == o.Driver() && cs.Handle == os.Handle
}

// Kind says whether the context is the primary context, owned or wrapped.
func (c *Context) Kind() ContextKind {
	if c == nil {
		return Wrapped
	}
	return c.kind
}

// Closed reports whether Close has been called (true for a nil Context).
func (c *Context) Closed() bool { return c.state() == nil || c.state().Released() }

// Synchronize blocks until all work in the context is done (cuCtxSynchronize).
func (c *Context) Synchronize() error {
	const op = "driver.Context.Synchronize"
	if c.state() == nil {
		return nilContext(op)
	}
	if err := c.synchronize(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Close ends this reference to the context (see Context for when the
// context ends in the driver): a primary context reference is released
// (cuDevicePrimaryCtxRelease), an owned context destroyed (cuCtxDestroy), a
// wrapped one only detached. If the driver refuses, the error is returned
// and Close can be called again; once it succeeded, Close is a no-op
// that returns nil.
func (c *Context) Close() error {
	const op = "driver.Context.Close"
	if c.state() == nil {
		return nilContext(op)
	}
	if err := c.state().Release(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// String describes the context, for errors and logs.
func (c *Context) String() string {
	if c.state() == nil {
		return "nil context"
	}
	return c.state().Desc
}
