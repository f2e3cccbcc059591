package module

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/internal/ptx"
)

// ImageKind is the format of a module image.
type ImageKind int

// Image kinds.
const (
	PTX    ImageKind = iota + 1 // PTX text, compiled by the driver at load
	CUBIN                       // an ELF CUBIN: native code for one architecture
	Fatbin                      // a fat binary: CUBINs and/or PTX for several
)

// String returns "PTX", "CUBIN" or "fatbin".
func (k ImageKind) String() string {
	switch k {
	case PTX:
		return "PTX"
	case CUBIN:
		return "CUBIN"
	case Fatbin:
		return "fatbin"
	case LTOIR:
		return "LTO-IR"
	}
	return fmt.Sprintf("ImageKind(%d)", int(k))
}

// fatbinMagic is the first word of a fat binary (little endian).
const fatbinMagic = 0xBA55ED50

// DetectKind says what image holds: a CUBIN (ELF), a fatbin (by its magic
// number) or, otherwise, PTX text.
func DetectKind(image []byte) ImageKind {
	switch {
	case bytes.HasPrefix(image, []byte("\x7fELF")):
		return CUBIN
	case len(image) >= 4 && binary.LittleEndian.Uint32(image) == fatbinMagic:
		return Fatbin
	}
	return PTX
}

// Module is device code loaded into a context (a CUmodule). It is owned by
// whoever loaded or compiled it: Close unloads it, after which it and its
// Functions return errors wrapping driver.ErrClosed. A Module holds its context
// from its load until its Close (see driver.Context). A Module is safe for
// concurrent use, but Close must not race launches of its functions.
type Module struct {
	ctx    *driver.Context
	hold   *core.Hold // the module's hold on ctx, let go by Close
	h      uintptr
	loaded        // the image's kind, compile results and PTX
	image  []byte // the compiled image, for compiled modules
	cached bool
	jitLog string   // the JIT's info log of the load
	csrc   string   // the CUDA C source of a compiled module, for launch errors (csig.go)
	lib    *Library // the Library this is the instance of, which owns it; nil for a Module's own

	mu      sync.Mutex           // guards funcs and kernels; serialises Unload
	funcs   map[string]*Function // by the name asked for
	kernels map[uintptr]*kernel  // what Functions of one CUfunction share
}

// Load loads a module image into ctx (cuModuleLoadData): PTX text (with or
// without a trailing NUL), a CUBIN or a fatbin, recognised by its first
// bytes. The caller owns the Module: Close it. For PTX, the kernels'
// signatures are read from the text, so launches are checked even on
// drivers without cuFuncGetParamInfo; the PTX text is kept (see PTX).
func Load(ctx *driver.Context, image []byte) (*Module, error) {
	m, err := loadImage(ctx, image)
	if err != nil {
		return nil, fmt.Errorf("module.Load: %w", err)
	}
	return m, nil
}

// loadImage is Load, with errors that do not name the call.
func loadImage(ctx *driver.Context, image []byte) (*Module, error) {
	kind := DetectKind(image)
	var text []byte
	if kind == PTX {
		text = image
	}
	return load(ctx, image, kind, text)
}

// LoadFile reads a PTX, CUBIN or fatbin file and loads it as Load does.
func LoadFile(ctx *driver.Context, path string) (*Module, error) {
	image, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("module.LoadFile: %w", err)
	}
	m, err := loadImage(ctx, image)
	if err != nil {
		return nil, fmt.Errorf("module.LoadFile: %s: %w", path, err)
	}
	return m, nil
}

// load loads image of kind into ctx; ptxText, if any, is its PTX, parsed for
// the kernels' signatures. The Module takes a hold on ctx first, and gives it
// back if the load fails.
func load(ctx *driver.Context, image []byte, kind ImageKind, ptxText []byte) (*Module, error) {
	c := core.ContextOf(ctx)
	if c == nil {
		return nil, fmt.Errorf("nil context: %w", driver.ErrInvalidInput)
	}
	if len(bytes.TrimRight(image, "\x00")) == 0 {
		return nil, fmt.Errorf("empty %s image: %w", kind, driver.ErrInvalidInput)
	}
	m := &Module{ctx: ctx, loaded: loaded{kind: kind}, funcs: map[string]*Function{}, kernels: map[uintptr]*kernel{}}
	if len(ptxText) > 0 {
		m.hasPTX = true
		m.ptx = bytes.Clone(bytes.TrimRight(ptxText, "\x00"))
		m.entries, m.ptxErr = ptx.Parse(string(m.ptx))
	}
	if kind == PTX && image[len(image)-1] != 0 {
		// cuModuleLoadData reads PTX up to its NUL.
		image = append(image[:len(image):len(image)], 0)
	}
	hold, err := c.Hold()
	if err != nil {
		return nil, err
	}
	var h uintptr
	err = hold.Do(func(api backend.API) error {
		var r error
		h, m.jitLog, r = loadData(api, image, kind)
		return r
	})
	if err != nil {
		if h != 0 { // loaded, but unbinding failed
			err = hold.Undo(err, func(api backend.API) error { return api.ModuleUnload(h) })
		}
		return nil, hold.Drop(err)
	}
	m.h, m.hold = h, hold
	return m, nil
}

// loadData loads image in the current context: with cuModuleLoadDataEx and
// the JIT's logs (verbose: the info log lists each kernel's registers and
// memory) where the backend has it, returning the info log, and a
// *LoadError with the error log when the driver refuses the image; with
// cuModuleLoadData otherwise.
func loadData(api backend.API, image []byte, kind ImageKind) (uintptr, string, error) {
	what := fmt.Sprintf("%s image (%d bytes)", kind, len(image))
	jit, ok := api.(backend.ModuleJIT)
	if !ok {
		h, err := api.ModuleLoadData(image)
		if err != nil {
			return 0, "", fmt.Errorf("%s: cuModuleLoadData: %w", what, err)
		}
		return h, "", nil
	}
	h, log, err := jit.ModuleLoadDataEx(image, true)
	if err != nil {
		return 0, "", &LoadError{What: what, Call: "cuModuleLoadDataEx", Log: log.Error, Info: log.Info, Err: err}
	}
	return h, log.Info, nil
}

// api is the backend of the module's context.
func (m *Module) api() backend.API { return m.hold.Context().API }

// closed reports whether the module was closed.
func (m *Module) closed() bool { return m == nil || m.hold == nil || m.hold.Closed() }

// Context returns the context the module is loaded in.
func (m *Module) Context() *driver.Context {
	if m == nil {
		return nil
	}
	return m.ctx
}

// Handle returns the raw CUmodule (0 after Close).
func (m *Module) Handle() uintptr {
	if m.closed() {
		return 0
	}
	return m.h
}

// loadedOrNone returns what m knows of its image, nothing for a nil m.
func (m *Module) loadedOrNone() *loaded {
	if m == nil {
		return &nothingLoaded
	}
	return &m.loaded
}

// Kind returns the format of the loaded image: PTX or CUBIN for a compiled
// module, whatever Load detected otherwise.
func (m *Module) Kind() ImageKind { return m.loadedOrNone().kind }

// Arch returns the architecture a compiled module was built for ("sm_90"),
// or "" for a module from Load.
func (m *Module) Arch() string { return m.loadedOrNone().arch }

// Log returns NVRTC's log of a successful compile: warnings, or "" when
// there were none or the module came from Load.
func (m *Module) Log() string { return m.loadedOrNone().log }

// JITLog returns the driver's info log of the load: what its JIT compiler
// said about each kernel it compiled from PTX (registers, shared, constant
// and local memory), or "" when it said nothing or the backend gives no
// logs. A load the driver refuses returns a *LoadError with its error log.
func (m *Module) JITLog() string {
	if m == nil {
		return ""
	}
	return m.jitLog
}

// Cached reports whether Compile found the module in the on-disk cache
// instead of running NVRTC.
func (m *Module) Cached() bool { return m != nil && m.cached }

// PTX returns the module's PTX text: the PTX NVRTC produced for a
// compiled module (also for a CUBIN target, where NVRTC provides it), the
// image of a module loaded from PTX, nil otherwise. The caller must not
// modify it.
func (m *Module) PTX() []byte { return m.loadedOrNone().ptx }

// Image returns what Compile produced and loaded: the CUBIN, or the PTX for
// a compute_XY target; nil for a module from Load. It can be saved and
// loaded later with Load or LoadFile. The caller must not modify it.
func (m *Module) Image() []byte {
	if m == nil {
		return nil
	}
	return m.image
}

// LoweredName returns the lowered (mangled) name of a name expression given
// in Options.NameExpressions, such as "_Z5scaleIfEvPT_i" for
// "scale<float>".
func (m *Module) LoweredName(expr string) (string, bool) { return m.loadedOrNone().loweredName(expr) }

// Kernels returns the names of the module's kernels (lowered names), when
// they are known: for modules with PTX, that is, loaded from PTX or compiled.
// It returns nil for a CUBIN or fatbin loaded without PTX.
func (m *Module) Kernels() []string { return m.loadedOrNone().kernelNames() }

// Function returns the kernel called name (cuModuleGetFunction): an extern
// "C" name, a lowered name, or a name expression given to Compile. A name
// the module does not have is an error wrapping driver.ErrNotFound that
// lists the kernels the module has, when known. Functions are looked up once
// and shared: calling Function twice with a name gives the same *Function.
func (m *Module) Function(name string) (*Function, error) {
	const op = "module.Module.Function"
	if m == nil {
		return nil, fmt.Errorf("%s: nil module: %w", op, driver.ErrInvalidInput)
	}
	if m.closed() {
		return nil, fmt.Errorf("%s: function %q: module %#x: %w", op, name, m.h, driver.ErrClosed)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.funcs[name]; ok {
		return f, nil
	}
	entry := name
	if l, ok := m.lowered[name]; ok {
		entry = l
	}
	if entry == "" || strings.IndexByte(entry, 0) >= 0 {
		return nil, fmt.Errorf("%s: function %q: bad name: %w", op, name, driver.ErrInvalidInput)
	}
	if m.closed() {
		// Closed while this call waited for the lock.
		return nil, fmt.Errorf("%s: function %q: module %#x: %w", op, name, m.h, driver.ErrClosed)
	}
	var h uintptr
	err := m.hold.Do(func(api backend.API) error {
		var r error
		if h, r = api.ModuleGetFunction(m.h, entry); r != nil {
			return fmt.Errorf("function %q: cuModuleGetFunction: %w%s", name, r, m.available("module"))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	// Another name of the same kernel (an extern "C" name and its name
	// expression, a name expression and its lowered name) gives another
	// *Function of the same CUfunction: they share what the driver keeps per
	// function.
	k := m.kernels[h]
	if k == nil {
		k = &kernel{}
		m.kernels[h] = k
	}
	f := newFunction(m, k, h, name, entry)
	m.funcs[name] = f
	return f, nil
}

// Close unloads the module (cuModuleUnload) and lets go of its context
// (see driver.Context; an error in ending the context is returned too). Its
// Functions return errors wrapping driver.ErrClosed afterwards. If cuModuleUnload
// fails, the module stays loaded and usable, and Close may be called again.
// A second Close after a successful one is a no-op that returns nil.
func (m *Module) Close() error {
	if m == nil || m.hold == nil {
		return fmt.Errorf("module.Module.Close: nil or zero module: %w", driver.ErrInvalidInput)
	}
	if m.lib != nil {
		return fmt.Errorf("module.Module.Close: module %#x is %s's instance in %s: close the Library: %w", m.h, m.lib, m.ctx, driver.ErrInvalidInput)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.hold.Close(func(api backend.API) error {
		if r := api.ModuleUnload(m.h); r != nil {
			return fmt.Errorf("cuModuleUnload: %w", r)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("module.Module.Close: module %#x: %w", m.h, err)
	}
	return nil
}

// String describes the module, for errors and logs.
func (m *Module) String() string {
	if m == nil {
		return "nil module"
	}
	return fmt.Sprintf("module %#x (%s) in %s", m.h, m.kind, m.ctx)
}

// entry returns the PTX signature of the kernel named by its lowered name.
func (m *Module) entry(name string) (ptx.Entry, error) {
	if !m.hasPTX {
		return ptx.Entry{}, ErrNoLayout
	}
	if m.ptxErr != nil {
		return ptx.Entry{}, fmt.Errorf("%w: reading its PTX: %v", ErrNoLayout, m.ptxErr)
	}
	e, ok := ptx.Find(m.entries, name)
	if !ok {
		return ptx.Entry{}, fmt.Errorf("%w: the PTX has no .entry %s", ErrNoLayout, name)
	}
	return e, nil
}
