package module

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/internal/ptx"
)

// Library is device code loaded once for every context of a driver (a
// CUlibrary, CUDA 12.0+: context-independent loading). Where a Module
// belongs to the one context it was loaded in, a Library belongs to none:
// each context that uses it gets its own instance (its functions, its own
// copy of the globals) the first time a Function or a global is asked for
// there, which the driver loads lazily; one Library serves every device.
//
// The caller owns the Library: Close unloads it from every context at once
// (cuLibraryUnload). A Library holds each context it was used in from the
// first use until its Close, as a Module holds its own (see
// driver.Context). Its LibraryKernels and the Functions they gave return errors
// wrapping driver.ErrClosed after Close. A Library is safe for concurrent
// use, but Close must not race launches of its functions.
type Library struct {
	drv    *driver.Driver
	api    backend.API
	libs   backend.Libraries
	h      uintptr
	loaded // the image's kind, compile results and PTX, given to each instance
	cached bool

	mu      sync.Mutex
	closed  bool
	kernels map[string]*LibraryKernel // by the name asked for
	mods    map[*core.Context]*Module // the instance in each context used
}

// LibraryKernel is one kernel of a Library (a CUkernel): it belongs to no
// context; Function gives its function in a context. It belongs to its
// Library, and returns errors wrapping driver.ErrClosed after the
// Library's Close. It is safe for concurrent use.
type LibraryKernel struct {
	lib   *Library
	h     uintptr
	name  string // as asked for
	entry string // the lowered name
}

// LoadLibrary loads a module image (PTX text, a CUBIN or a fatbin, told
// apart by their first bytes, as Load does) once for every context of
// ctx's driver (cuLibraryLoadData). ctx names the driver only: the Library
// does not belong to it, and serves every context of every device of that
// driver, ctx's included, after ctx is closed too. The image is copied.
// The caller owns the Library: Close it. For PTX, the kernels' signatures
// are read from the text, so that launches are checked as a Module's are.
//
// A backend without cuLibrary (a driver older than CUDA 12.0) gives an
// error wrapping errors.ErrUnsupported or a *loader.SymbolError.
func LoadLibrary(ctx *driver.Context, image []byte) (*Library, error) {
	kind := DetectKind(image)
	var text []byte
	if kind == PTX {
		text = image
	}
	l, err := loadLibrary(ctx, image, kind, text)
	if err != nil {
		return nil, fmt.Errorf("module.LoadLibrary: %w", err)
	}
	return l, nil
}

// CompileLibrary compiles CUDA C++ source as Compile does (same options,
// same cache, the same target: ctx's device unless Options.Arch says) and
// loads the result as a Library, for every context of ctx's driver (see
// LoadLibrary). Name expressions resolve as they do for a Module. A
// CUBIN serves only devices of its architecture: compile for a compute_XY
// target (PTX, compiled by the driver for each device) to serve several
// kinds of device. The caller owns the Library: Close it.
func CompileLibrary(ctx *driver.Context, src string, opts Options) (*Library, error) {
	l, err := compileThen("module.CompileLibrary", ctx, src, opts, func(c *compiled, name string) (*Library, error) {
		l, err := loadLibrary(ctx, c.Image, c.Kind, c.PTX)
		if err != nil {
			return nil, fmt.Errorf("module.CompileLibrary: %s (%s): %w", name, c.Arch, err)
		}
		l.arch, l.log, l.lowered = c.Arch, c.Log, c.Lowered
		return l, nil
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// loadLibrary loads image of kind for ctx's driver; ptxText, if any, is
// its PTX, parsed for the kernels' signatures.
func loadLibrary(ctx *driver.Context, image []byte, kind ImageKind, ptxText []byte) (*Library, error) {
	c := core.ContextOf(ctx)
	if c == nil {
		return nil, fmt.Errorf("nil context: %w", driver.ErrInvalidValue)
	}
	if ctx.Closed() {
		return nil, fmt.Errorf("%s: %w", ctx, driver.ErrClosed)
	}
	if len(bytes.TrimRight(image, "\x00")) == 0 {
		return nil, fmt.Errorf("empty %s image: %w", kind, driver.ErrInvalidValue)
	}
	libs, ok := c.API.(backend.Libraries)
	if !ok {
		return nil, fmt.Errorf("the backend has no cuLibraryLoadData: %w", errors.ErrUnsupported)
	}
	l := &Library{drv: ctx.Driver(), api: c.API, libs: libs, loaded: loaded{kind: kind},
		kernels: map[string]*LibraryKernel{}, mods: map[*core.Context]*Module{}}
	if len(ptxText) > 0 {
		l.hasPTX = true
		l.ptx = bytes.Clone(bytes.TrimRight(ptxText, "\x00"))
		l.entries, l.ptxErr = ptx.Parse(string(l.ptx))
	}
	h, err := libs.LibraryLoadData(image)
	if err != nil {
		return nil, fmt.Errorf("%s image (%d bytes): cuLibraryLoadData: %w", kind, len(image), err)
	}
	l.h = h
	return l, nil
}

// Handle returns the raw CUlibrary (0 after Close).
func (l *Library) Handle() uintptr {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0
	}
	return l.h
}

// loadedOrNone returns what l knows of its image, nothing for a nil l.
func (l *Library) loadedOrNone() *loaded {
	if l == nil {
		return &nothingLoaded
	}
	return &l.loaded
}

// Kind returns the format of the image loaded.
func (l *Library) Kind() ImageKind { return l.loadedOrNone().kind }

// Arch returns the architecture a compiled library was built for
// ("sm_90", "compute_90"), or "" for one from LoadLibrary.
func (l *Library) Arch() string { return l.loadedOrNone().arch }

// Log returns NVRTC's log of a successful CompileLibrary ("" when there
// were no warnings, or for LoadLibrary).
func (l *Library) Log() string { return l.loadedOrNone().log }

// Cached reports whether CompileLibrary found the image in the on-disk
// cache.
func (l *Library) Cached() bool { return l != nil && l.cached }

// PTX returns the library's PTX text, when known (see Module.PTX). The
// caller must not modify it.
func (l *Library) PTX() []byte { return l.loadedOrNone().ptx }

// LoweredName returns the lowered name of a name expression given to
// CompileLibrary in Options.NameExpressions.
func (l *Library) LoweredName(expr string) (string, bool) { return l.loadedOrNone().loweredName(expr) }

// Kernels returns the names (lowered) of the library's kernels when its
// PTX is known, else nil.
func (l *Library) Kernels() []string { return l.loadedOrNone().kernelNames() }

// Kernel returns the kernel called name (cuLibraryGetKernel): an extern
// "C" name, a lowered name, or a name expression given to CompileLibrary.
// A name the library lacks is an error wrapping driver.ErrNotFound that
// lists the kernels it has, when known. The same name gives the same
// *LibraryKernel.
func (l *Library) Kernel(name string) (*LibraryKernel, error) {
	const op = "module.Library.Kernel"
	if l == nil || l.libs == nil {
		return nil, fmt.Errorf("%s: nil or zero library: %w", op, driver.ErrInvalidValue)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, fmt.Errorf("%s: kernel %q: library %#x: %w", op, name, l.h, driver.ErrClosed)
	}
	if k, ok := l.kernels[name]; ok {
		return k, nil
	}
	entry := name
	if lw, ok := l.lowered[name]; ok {
		entry = lw
	}
	if entry == "" || strings.IndexByte(entry, 0) >= 0 {
		return nil, fmt.Errorf("%s: kernel %q: bad name: %w", op, name, driver.ErrInvalidValue)
	}
	h, err := l.libs.LibraryGetKernel(l.h, entry)
	if err != nil {
		return nil, fmt.Errorf("%s: kernel %q: cuLibraryGetKernel: %w%s", op, name, err, l.available("library"))
	}
	k := &LibraryKernel{lib: l, h: h, name: name, entry: entry}
	l.kernels[name] = k
	return k, nil
}

// available describes the kernels of the library for a missing-name error.
// Function returns the function of the kernel called name in ctx:
// Kernel(name), then its Function(ctx).
func (l *Library) Function(ctx *driver.Context, name string) (*Function, error) {
	k, err := l.Kernel(name)
	if err != nil {
		return nil, err
	}
	return k.Function(ctx)
}

// moduleIn returns the library's instance in ctx (cuLibraryGetModule,
// which loads it there on first use), made once per context reference and
// kept until Close.
func (l *Library) moduleIn(op string, ctx *driver.Context) (*Module, error) {
	c := core.ContextOf(ctx)
	if c == nil {
		return nil, fmt.Errorf("%s: nil context: %w", op, driver.ErrInvalidValue)
	}
	if c.API != l.api {
		return nil, fmt.Errorf("%s: %s is of another driver than library %#x: %w", op, ctx, l.h, driver.ErrInvalidContext)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, fmt.Errorf("%s: library %#x: %w", op, l.h, driver.ErrClosed)
	}
	if m := l.mods[c]; m != nil {
		return m, nil
	}
	hold, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: library %#x: %w", op, l.h, err)
	}
	var h uintptr
	err = hold.Do(func(backend.API) error {
		var r error
		if h, r = l.libs.LibraryGetModule(l.h); r != nil {
			return fmt.Errorf("cuLibraryGetModule: %w", r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: library %#x in %s: %w", op, l.h, ctx, hold.Drop(err))
	}
	m := &Module{ctx: ctx, hold: hold, h: h, loaded: l.loaded, lib: l,
		funcs: map[string]*Function{}, kernels: map[uintptr]*kernel{}}
	l.mods[c] = m
	return m, nil
}

// Function returns the kernel's function in ctx (cuKernelGetFunction),
// loading the library there first if it is not yet: a Function like a
// Module's, checked and launched the same way, whose Module is the
// library's instance in ctx (owned by the Library: its Close is refused).
// The same context gives the same *Function. A context of another driver
// is an error wrapping driver.ErrInvalidContext.
func (k *LibraryKernel) Function(ctx *driver.Context) (*Function, error) {
	const op = "module.LibraryKernel.Function"
	if k == nil || k.lib == nil {
		return nil, fmt.Errorf("%s: nil or zero kernel: %w", op, driver.ErrInvalidValue)
	}
	m, err := k.lib.moduleIn(op, ctx)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.funcs[k.name]; ok {
		return f, nil
	}
	if m.closed() {
		return nil, fmt.Errorf("%s: kernel %q: library %#x: %w", op, k.name, k.lib.h, driver.ErrClosed)
	}
	var h uintptr
	err = m.hold.Do(func(backend.API) error {
		var r error
		if h, r = k.lib.libs.KernelGetFunction(k.h); r != nil {
			return fmt.Errorf("cuKernelGetFunction: %w", r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: kernel %q in %s: %w", op, k.name, ctx, err)
	}
	kn := m.kernels[h]
	if kn == nil {
		kn = &kernel{}
		m.kernels[h] = kn
	}
	f := newFunction(m, kn, h, k.name, k.entry)
	m.funcs[k.name] = f
	return f, nil
}

// Name returns the name the kernel was asked for by.
func (k *LibraryKernel) Name() string {
	if k == nil {
		return ""
	}
	return k.name
}

// LoweredName returns the kernel's lowered (mangled) name.
func (k *LibraryKernel) LoweredName() string {
	if k == nil {
		return ""
	}
	return k.entry
}

// Handle returns the raw CUkernel (0 after the Library's Close).
func (k *LibraryKernel) Handle() uintptr {
	if k == nil || k.lib.Handle() == 0 {
		return 0
	}
	return k.h
}

// Attribute reads a function attribute of the kernel on dev
// (cuKernelGetAttribute), with no context: what a Function of it reports
// until someone changes it (see Function.Attribute). dev must be of the
// library's driver.
func (k *LibraryKernel) Attribute(a FunctionAttribute, dev *driver.Device) (int, error) {
	const op = "module.LibraryKernel.Attribute"
	if k == nil || k.lib == nil {
		return 0, fmt.Errorf("%s: nil or zero kernel: %w", op, driver.ErrInvalidValue)
	}
	if dev == nil {
		return 0, fmt.Errorf("%s: kernel %q: nil device: %w", op, k.name, driver.ErrInvalidValue)
	}
	if dev.Driver() != k.lib.drv {
		return 0, fmt.Errorf("%s: kernel %q: device %d is of another driver: %w", op, k.name, dev.Ordinal(), driver.ErrInvalidDevice)
	}
	k.lib.mu.Lock()
	closed := k.lib.closed
	k.lib.mu.Unlock()
	if closed {
		return 0, fmt.Errorf("%s: kernel %q: library %#x: %w", op, k.name, k.lib.h, driver.ErrClosed)
	}
	v, err := k.lib.libs.KernelGetAttribute(a, k.h, dev.Handle())
	if err != nil {
		return 0, fmt.Errorf("%s: kernel %q: cuKernelGetAttribute(%d): %w", op, k.name, a, err)
	}
	return v, nil
}

// Close unloads the library from every context (cuLibraryUnload) and lets
// go of the contexts it was used in (see driver.Context; an error in
// ending a context is returned too). Its LibraryKernels and their Functions
// return errors wrapping driver.ErrClosed afterwards. If cuLibraryUnload
// fails, the library stays loaded and usable, and Close may be called
// again. A second Close after a successful one is a no-op that returns nil.
func (l *Library) Close() error {
	if l == nil || l.libs == nil {
		return fmt.Errorf("module.Library.Close: nil or zero library: %w", driver.ErrInvalidValue)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		// A graph or exec that uses one of the kernels refuses the Close
		// before anything changes (see graph.ErrRetained).
		for _, m := range l.mods {
			if n := m.hold.Retained(); n > 0 {
				return fmt.Errorf("module.Library.Close: library %#x: %s: %d graph(s) or exec(s): %w", l.h, m, n, core.ErrRetained)
			}
		}
		// The unload comes first, so that a failed one leaves every
		// instance usable; the instances' holds on their contexts go
		// after it.
		if err := l.libs.LibraryUnload(l.h); err != nil {
			return fmt.Errorf("module.Library.Close: library %#x: cuLibraryUnload: %w", l.h, err)
		}
		l.closed = true
	}
	// An instance whose hold could not be let go stays in l.mods, for the
	// next Close to try again.
	var errs []error
	for c, m := range l.mods {
		m.mu.Lock()
		if err := m.hold.Close(nil); err != nil {
			errs = append(errs, err)
		} else {
			delete(l.mods, c)
		}
		m.mu.Unlock()
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("module.Library.Close: library %#x: %w", l.h, err)
	}
	return nil
}

// String describes the library, for errors and logs.
func (l *Library) String() string {
	if l == nil {
		return "nil library"
	}
	return fmt.Sprintf("library %#x (%s)", l.h, l.kind)
}
