package module

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// CompileError is a failed compile: NVRTC refused the source or the
// options. Log is NVRTC's complete log (every error and warning, with line
// numbers in Name). It wraps the *backend.NVRTCError NVRTC returned.
type CompileError struct {
	Name    string   // the source's name (Options.Name or the default)
	Arch    string   // the architecture compiled for
	Log     string   // NVRTC's program log
	Options Options  // the options as given
	Flags   []string // the NVRTC options passed
	Err     error    // the NVRTC error (Code NVRTCErrorCompilation, ...)
	// Hint, for a header NVRTC could not open, says where Compile looked
	// for the CUDA toolkit's headers and how to point it at them
	// (NOCGO_CUDA_INCLUDE); "" otherwise.
	Hint string
}

// Error returns the source name, the architecture, the NVRTC error and the
// whole log.
func (e *CompileError) Error() string {
	if e == nil {
		return "module.CompileError: nil"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "module.Compile: %s (%s): %v", e.Name, e.Arch, e.Err)
	if log := strings.TrimSpace(e.Log); log != "" {
		b.WriteString(":\n")
		b.WriteString(log)
	}
	if e.Hint != "" {
		b.WriteString("\nhint: ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Unwrap returns the NVRTC error.
func (e *CompileError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// compiled is what a compile produces, and what the cache keeps.
type compiled struct {
	Arch    string            `json:"arch"`
	Kind    ImageKind         `json:"kind"`
	Image   []byte            `json:"image"`         // what cuModuleLoadData gets
	PTX     []byte            `json:"ptx,omitempty"` // the PTX, for parameter layouts
	Log     string            `json:"log,omitempty"`
	Lowered map[string]string `json:"lowered,omitempty"`
}

// Compile compiles CUDA C++ source with NVRTC (the run-time compiler of ctx's driver)
// and loads the result into ctx. The caller owns the Module: Close it.
//
// The target is Options.Arch, or the device's own architecture (sm_90 on an
// H200), which gives a CUBIN: native code that needs no JIT and loads on a
// driver older than NVRTC. A compute_XY target gives PTX. For a device
// newer than NVRTC knows, the default target becomes PTX for the newest
// architecture NVRTC knows, which the driver compiles at load. The PTX is kept
// with the module either way where NVRTC provides it, so that launches can
// be checked against the kernels' signatures on drivers without
// cuFuncGetParamInfo.
//
// A source that includes headers beyond Options.Headers is compiled with
// the CUDA toolkit's include directories (ToolkitIncludePaths; see
// Options.NoToolkitIncludes).
//
// Results are cached on disk (see CacheDir): the key hashes the source, the
// in-memory headers, the normalised options, the architecture, the
// toolkit headers the source reaches (by contents), the compiler's identity
// and this library's Version, and the entry keeps the log and the lowered
// names. The compiler's identity is, where the backend can tell it without
// opening the compiler (backend.NVRTCIdentifier; the real backend and the
// fake can), the libnvrtc file that would be opened (its resolved path,
// size and modification time, found as the system loader finds it), else
// NVRTC's implementation and version. So a hit opens no compiler: it reads
// the entry and loads the image, as a C program loading a CUBIN does;
// Module.Cached reports it. A miss opens NVRTC, compiles and stores.
//
// A source NVRTC rejects gives a *CompileError with the full log; warnings
// of a successful compile are in Module.Log.
func Compile(ctx *driver.Context, src string, opts Options) (*Module, error) {
	return compileThen("module.Compile", ctx, src, opts, func(c *compiled, name string) (*Module, error) {
		m, err := loadCompiled(ctx, c, name)
		if err == nil {
			m.csrc = src
		}
		return m, err
	})
}

// compileThen is Compile with another loader: it finds the compile's
// result in the cache or compiles it, and gives it to load (a loaded thing
// from the cache is marked cached). An entry load refuses is as good as
// corrupt: it compiles again.
func compileThen[T interface{ markCached() }](op string, ctx *driver.Context, src string, opts Options, load func(c *compiled, name string) (T, error)) (T, error) {
	var none T
	cc := core.ContextOf(ctx)
	if cc == nil {
		return none, fmt.Errorf(op+": nil context: %w", driver.ErrInvalidInput)
	}
	if ctx.Closed() {
		return none, fmt.Errorf(op+": %s: %w", ctx, driver.ErrClosed)
	}
	name := opts.name()
	if err := opts.check(); err != nil {
		return none, fmt.Errorf(op+": %s: %v: %w", name, err, driver.ErrInvalidInput)
	}
	arch, defaulted := opts.Arch, false
	if arch == "" {
		ma, mi, err := computeCapability(cc.API, ctx.Device())
		if err != nil {
			return none, fmt.Errorf(op+": %s: %w", name, err)
		}
		arch, defaulted = fmt.Sprintf("sm_%d%d", ma, mi), true
	}
	opts.toolkit = findToolkit(src, &opts)

	// The cache is looked up before the compiler is opened, under the
	// identity the backend gives without opening it: a hit opens nothing.
	cache := openCache(opts, cc.API)
	id, known := identityOf(cc.API)
	key := ""
	if known && cache.dir != "" {
		key = cacheKey(src, name, opts, arch, id)
		if m, ok := loadCached(cache, key, name, load); ok {
			return m, nil
		}
	}

	nv, err := compilerOf(cc.API)
	if err != nil {
		return none, fmt.Errorf(op+": %s: %w", name, err)
	}
	// The compiler opened names itself now (it may be another file than
	// the one the backend expected), or by its implementation and version.
	opened, ok := identityOf(cc.API)
	if !ok {
		major, minor, err := nv.Version()
		if err != nil {
			return none, fmt.Errorf(op+": %s: nvrtcVersion: %w", name, err)
		}
		opened = nvrtcIdentity(nv, major, minor)
	}
	if opened != id || !known {
		key = cacheKey(src, name, opts, arch, opened)
		if m, ok := loadCached(cache, key, name, load); ok {
			return m, nil
		}
	}

	c, err := compile(nv, src, name, opts, arch)
	if err != nil && defaulted && unknownArch(err) {
		c, err = compileOlder(nv, src, name, opts, arch, err)
	}
	if err != nil {
		return none, err
	}
	cache.put(key, c)
	return load(c, name)
}

// loadCached gives the cache's entry for key to load, marked cached;
// false for a miss, and for an entry load refuses (as good as corrupt: the
// caller compiles again and replaces it).
func loadCached[T interface{ markCached() }](cache cache, key, name string, load func(c *compiled, name string) (T, error)) (T, bool) {
	var none T
	c, ok := cache.get(key)
	if !ok {
		return none, false
	}
	m, err := load(c, name)
	if err != nil {
		return none, false
	}
	m.markCached()
	return m, true
}

// identityOf asks a backend for its compiler's identity without opening
// the compiler (backend.NVRTCIdentifier).
func identityOf(api backend.API) (string, bool) {
	if i, ok := api.(backend.NVRTCIdentifier); ok {
		if id, ok := i.NVRTCIdentity(); ok {
			return "identity " + id, true
		}
	}
	return "", false
}

// nvrtcIdentity names the compiler for the cache key when its backend
// cannot (see identityOf): its implementation (libnvrtc, the fake's) and
// its version. Two compilers that report the same version but are
// different implementations must not share entries: the fake's output
// (kernels whose bodies are empty) would otherwise be loaded, and run as
// no-ops, by the real driver of a machine sharing the cache directory.
func nvrtcIdentity(nv backend.NVRTC, major, minor int) string {
	return fmt.Sprintf("%s %d.%d", nv.Implementation(), major, minor)
}

// unknownArch reports a compile refused for its --gpu-architecture.
func unknownArch(err error) bool {
	var ce *CompileError
	var nv *backend.NVRTCError
	return errors.As(err, &ce) && errors.As(err, &nv) && nv.Code == backend.NVRTCErrorInvalidOption &&
		strings.Contains(ce.Log, "gpu-architecture")
}

// virtualArchs are NVRTC's virtual architectures, newest first.
var virtualArchs = []int{121, 120, 110, 103, 101, 100, 90, 89, 87, 86, 80, 75, 72, 70, 62, 61, 60, 53, 52, 50}

// compileOlder compiles for a device NVRTC does not know (one newer than
// the toolkit): PTX for the newest virtual architecture NVRTC accepts, not
// newer than the device, which the driver compiles for the device at load.
// It returns first if no architecture works.
func compileOlder(nv backend.NVRTC, src, name string, opts Options, arch string, first error) (*compiled, error) {
	var dev int
	if _, err := fmt.Sscanf(strings.TrimPrefix(arch, "sm_"), "%d", &dev); err != nil {
		return nil, first
	}
	for _, a := range append([]int{dev}, virtualArchs...) {
		if a > dev {
			continue
		}
		c, err := compile(nv, src, name, opts, fmt.Sprintf("compute_%d", a))
		if err == nil {
			return c, nil
		}
		if !unknownArch(err) {
			return nil, err
		}
	}
	return nil, first
}

// compile runs NVRTC once.
func compile(nv backend.NVRTC, src, name string, opts Options, arch string) (*compiled, error) {
	contents, includes := opts.headers()
	prog, err := nv.CreateProgram(src, name, contents, includes)
	if err != nil {
		return nil, fmt.Errorf("module.Compile: %s: nvrtcCreateProgram: %w", name, err)
	}
	c, err := compileProgram(nv, prog, name, opts, arch)
	// A failed destroy is tried once more, so that one failure leaks
	// nothing; a second one is reported.
	derr := nv.DestroyProgram(prog)
	if derr != nil {
		derr = nv.DestroyProgram(prog)
	}
	if derr != nil && err == nil {
		return nil, fmt.Errorf("module.Compile: %s: nvrtcDestroyProgram: %w", name, derr)
	}
	return c, err
}

// compileProgram compiles and reads the created program prog.
func compileProgram(nv backend.NVRTC, prog uintptr, name string, opts Options, arch string) (*compiled, error) {
	for _, e := range opts.NameExpressions {
		if err := nv.AddNameExpression(prog, e); err != nil {
			return nil, fmt.Errorf("module.Compile: %s: name expression %q: %w", name, e, err)
		}
	}
	flags := opts.flags(arch)
	cerr := nv.Compile(prog, flags)
	log, lerr := nv.ProgramLog(prog)
	if lerr != nil && cerr == nil {
		return nil, fmt.Errorf("module.Compile: %s: nvrtcGetProgramLog: %w", name, lerr)
	}
	log = strings.TrimRight(log, "\x00")
	if cerr != nil {
		return nil, &CompileError{Name: name, Arch: arch, Log: log, Options: opts.given(), Flags: flags, Err: cerr, Hint: toolkitHint(log, &opts)}
	}
	c := &compiled{Arch: arch, Log: log}
	ptx, err := nv.PTX(prog)
	if err != nil {
		return nil, fmt.Errorf("module.Compile: %s (%s): nvrtcGetPTX: %w", name, arch, err)
	}
	if len(ptx) > 0 {
		c.PTX = ptx
	}
	if binaryArch(arch) {
		cubin, err := nv.CUBIN(prog)
		if err != nil {
			return nil, fmt.Errorf("module.Compile: %s (%s): nvrtcGetCUBIN: %w", name, arch, err)
		}
		if len(cubin) > 0 {
			c.Kind, c.Image = CUBIN, cubin
		}
	}
	if c.Image == nil {
		if c.PTX == nil {
			return nil, fmt.Errorf("module.Compile: %s (%s): NVRTC produced neither a CUBIN nor PTX", name, arch)
		}
		c.Kind, c.Image = PTX, c.PTX
	}
	if len(opts.NameExpressions) > 0 {
		c.Lowered = make(map[string]string, len(opts.NameExpressions))
		for _, e := range opts.NameExpressions {
			l, err := nv.LoweredName(prog, e)
			if err != nil {
				return nil, fmt.Errorf("module.Compile: %s: lowered name of %q: %w", name, e, err)
			}
			c.Lowered[e] = strings.TrimRight(l, "\x00")
		}
	}
	return c, nil
}

// markCached marks a module found in the cache.
func (m *Module) markCached() { m.cached = true }

// markCached marks a library found in the cache.
func (l *Library) markCached() { l.cached = true }

// loadCompiled loads a compile's image into ctx.
func loadCompiled(ctx *driver.Context, c *compiled, name string) (*Module, error) {
	m, err := load(ctx, c.Image, c.Kind, c.PTX)
	if err != nil {
		return nil, fmt.Errorf("module.Compile: %s (%s): %w", name, c.Arch, err)
	}
	m.arch, m.log, m.lowered, m.image = c.Arch, c.Log, c.Lowered, c.Image
	return m, nil
}

// computeCapability reads the compute capability of dev, whose driver is
// api, with errors that do not name the call (Device.ComputeCapability's
// name theirs).
func computeCapability(api backend.API, dev *driver.Device) (major, minor int, err error) {
	for _, x := range []struct {
		a backend.DeviceAttribute
		v *int
	}{{backend.AttrComputeCapabilityMajor, &major}, {backend.AttrComputeCapabilityMinor, &minor}} {
		if *x.v, err = api.DeviceGetAttribute(x.a, dev.Handle()); err != nil {
			return 0, 0, fmt.Errorf("device %d: cuDeviceGetAttribute(%d): %w", dev.Ordinal(), x.a, err)
		}
	}
	return major, minor, nil
}

// compilerOf returns the run-time compiler of a backend.
func compilerOf(api backend.API) (backend.NVRTC, error) {
	p, ok := api.(backend.NVRTCProvider)
	if !ok {
		return nil, errors.New("this backend has no run-time compiler (NVRTC)")
	}
	return p.NVRTC()
}
