package fake

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ptxexec"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/internal/ptx"
)

type module struct {
	h     uintptr
	ctx   *context
	funcs map[string]*function
	// globals are the module-scope variables of interpreted PTX, in
	// globalMem.
	globals   map[string]global
	globalMem []*alloc

	site callSite // who made it, for Leaks (leak_site.go)

	unloaded atomic.Bool // set by unloadLocked, read by graph replays (loadedOnly)
}

type function struct {
	h        uintptr
	mod      *module
	name     string
	k        *kernel
	maxDyn   int // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
	carveout int
}

// defaultMaxDynamicShared is the dynamic shared memory a launch may use
// without raising the function's limit: 48 KiB.
const defaultMaxDynamicShared = 49152

var (
	elfMagic    = []byte(abi.ELFMagic)
	fatbinMagic = []byte(abi.FatbinMagic)
)

// ptxEntry is one defined .entry of an image: its name and parameter sizes
// (0 for an opaque parameter, whose size the fake does not check).
type ptxEntry struct {
	name  string
	sizes []uintptr
}

// parseImage reads a module image: PTX text, or the fake's CUBIN
// ("\x7fELF" + the same text), with the PTX front-end (ptx.Read). It returns
// the target architecture, the syntax tree (for the interpreter) and the
// defined entries. Text that does not begin with a .version directive is no
// image the driver knows (ErrInvalidImage, as measured on the H200 for
// "garbage"); PTX that is not well formed (see ptx.Read), or that defines
// an entry twice, fails to JIT (ErrInvalidPTX); a CUBIN that is not well
// formed is ErrInvalidImage.
func parseImage(image []byte) (arch int, suffix string, cubin bool, mod *ptx.Module, entries []ptxEntry, err error) {
	text := image
	bad := driver.ErrInvalidPTX
	if bytes.HasPrefix(image, elfMagic) {
		cubin = true
		bad = driver.ErrInvalidImage
		text = bytes.TrimRight(image[len(elfMagic):], "\x00")
		if bytes.IndexByte(text, 0) >= 0 {
			return 0, "", false, nil, nil, driver.ErrInvalidImage
		}
	}
	m, perr := ptx.Read(string(text)) // the driver reads PTX up to its NUL
	if perr != nil {
		if errors.Is(perr, ptx.ErrNotPTX) {
			return 0, "", false, nil, nil, driver.ErrInvalidImage
		}
		return 0, "", false, nil, nil, bad
	}
	seen := map[string]bool{}
	for _, f := range m.Funcs {
		if !f.Entry || !f.Defined {
			continue // a declaration of an entry defined elsewhere
		}
		if seen[f.Name] {
			return 0, "", false, nil, nil, bad
		}
		seen[f.Name] = true
		e := ptxEntry{name: f.Name}
		for _, p := range f.Params {
			size := uintptr(p.Size)
			if p.Opaque {
				size = 0
			}
			e.sizes = append(e.sizes, size)
		}
		entries = append(entries, e)
	}
	return m.Arch, m.ArchSuffix, cubin, m, entries, nil
}

// ModuleLoadData is cuModuleLoadData in the current context. The image is
// PTX text (from a real NVRTC, the fake NVRTC, a file or a fatbin's
// uncompressed PTX entry) or the fake's CUBIN; text that is not PTX (no
// leading .version directive) is ErrInvalidImage, PTX that is not well
// formed (see parseImage) is ErrInvalidPTX. An .entry with a Go body
// registered under its name (with the same parameter sizes, else
// ErrInvalidImage) runs the body; one without runs in the PTX interpreter,
// and PTX the interpreter cannot run is ErrInvalidPTX (LoadError says
// why). The module's .global and .const variables are placed in device
// memory. A CUBIN must be for the device's architecture
// (ErrNoBinaryForGPU) and runs like PTX; PTX must not target
// a newer one (ErrInvalidPTX). A fatbin whose entries do not lie inside
// the image is ErrInvalidImage, as on the real backend; one with no
// uncompressed PTX entry is ErrNoBinaryForGPU, since the fake runs no
// machine code.
func (b *fakeBackend) ModuleLoadData(image []byte) (uintptr, error) {
	if err := b.enter(abi.CuModuleLoadData); err != nil {
		return 0, err
	}
	if len(image) == 0 {
		return 0, driver.ErrInvalidValue
	}
	fatbin := bytes.HasPrefix(image, fatbinMagic)
	if fatbin {
		if err := checkFatbin(image); err != nil {
			return 0, err // refused before the driver, as by the real backend
		}
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.currentLocked(tid)
	if err != nil {
		return 0, err
	}
	if fatbin {
		// The fake runs no machine code: only PTX in the fatbin can run.
		ptx := fatbinPTX(image)
		if ptx == nil {
			return 0, driver.ErrNoBinaryForGPU
		}
		image = ptx
	}
	arch, _, cubin, mod, entries, err := parseImage(image)
	if err != nil {
		return 0, err
	}
	m, err := b.loadParsedLocked(c, arch, cubin, mod, entries)
	if err != nil {
		return 0, err
	}
	return m.h, nil
}

// loadParsedLocked loads an image parseImage read into context c, as
// cuModuleLoadData does (see ModuleLoadData): the architecture checks, the
// kernels (Go bodies first, else the PTX interpreter's), the globals. A
// library's instantiations load the library's one parsed image this way.
func (b *fakeBackend) loadParsedLocked(c *context, arch int, cubin bool, mod *ptx.Module, entries []ptxEntry) (*module, error) {
	cc := c.dev.attrs[driver.AttrComputeCapabilityMajor]*10 + c.dev.attrs[driver.AttrComputeCapabilityMinor]
	if cubin && (arch/10 != cc/10 || arch > cc) {
		return nil, driver.ErrNoBinaryForGPU
	}
	if !cubin && arch > cc {
		return nil, driver.ErrInvalidPTX
	}
	if !cubin {
		if err := b.checkPTXVersion(mod, arch); err != nil {
			return nil, err
		}
	}
	m := &module{h: newHandle(), ctx: c, funcs: map[string]*function{}, globals: map[string]global{}, site: here()}
	// The fake's CUBINs (its own compilers' output) carry their PTX behind
	// the ELF magic: both run in the interpreter.
	prog, progErr := ptxexec.Decode(mod)
	for _, e := range entries {
		k := b.kernelForEntryLocked(e.name)
		if k == nil {
			if progErr != nil {
				return nil, b.noteLoadError(progErr)
			}
			if x := prog.Kernels[e.name]; x != nil {
				k = ptxKernel(x)
			}
		}
		if k == nil {
			return nil, driver.ErrInvalidImage
		}
		if !k.fits(e) {
			return nil, b.refuseBody(k, e)
		}
		m.funcs[e.name] = &function{mod: m, name: e.name, k: k, maxDyn: defaultMaxDynamicShared, carveout: -1}
	}
	if prog != nil && progErr == nil {
		if err := b.placeGlobalsLocked(c, m, prog); err != nil {
			return nil, err
		}
	}
	for _, f := range m.funcs {
		f.h = newHandle()
		b.funcs[f.h] = f
	}
	b.modules[m.h] = m
	return m, nil
}

// ModuleUnload is cuModuleUnload. Launches already queued still run.
func (b *fakeBackend) ModuleUnload(h uintptr) error {
	if err := b.enter(abi.CuModuleUnload); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.modules[h]
	if m == nil {
		return b.goneLocked(h)
	}
	b.unloadLocked(m)
	delete(b.modules, h)
	return nil
}

func (b *fakeBackend) unloadLocked(m *module) {
	m.unloaded.Store(true)
	for _, f := range m.funcs {
		delete(b.funcs, f.h)
	}
	for _, a := range m.globalMem {
		b.removeGlobalLocked(a)
	}
	m.globalMem = nil
	clear(m.globals)
}

// ModuleGetFunction is cuModuleGetFunction: ErrNotFound for a name the
// module lacks. The same name gives the same handle. A name with a NUL byte
// is ErrInvalidValue before anything else, as on the real backend, which
// cannot pass it as a C string and so never calls the driver.
func (b *fakeBackend) ModuleGetFunction(h uintptr, name string) (uintptr, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return 0, driver.ErrInvalidValue
	}
	if err := b.enter(abi.CuModuleGetFunction); err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	m := b.modules[h]
	if m == nil {
		return 0, b.goneLocked(h)
	}
	f := m.funcs[name]
	if f == nil {
		return 0, driver.ErrNotFound
	}
	return f.h, nil
}

func (b *fakeBackend) funcLocked(h uintptr) (*function, error) {
	f := b.funcs[h]
	if f == nil {
		return nil, b.goneLocked(h)
	}
	return f, nil
}

// FuncGetParamInfo is cuFuncGetParamInfo: the offset and size of parameter
// index, laid out with C alignment; ErrInvalidValue past the last.
func (b *fakeBackend) FuncGetParamInfo(h uintptr, index int) (uintptr, uintptr, error) {
	if err := b.enter(abi.CuFuncGetParamInfo); err != nil {
		return 0, 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	f, err := b.funcLocked(h)
	if err != nil {
		return 0, 0, err
	}
	if index < 0 || index >= len(f.k.params) {
		return 0, 0, driver.ErrInvalidValue
	}
	p := f.k.params[index]
	return p.off, p.size, nil
}

// FuncGetAttribute is cuFuncGetAttribute. Kernels run by the PTX
// interpreter report their .maxntid (else 1024) threads per block, their
// static .shared, .const and .local bytes, and the registers their PTX
// declares (at most 255); kernels with a Go body report 1024 threads per
// block, 32 registers, no static shared, constant or local memory. All
// report PTX and binary version 90.
func (b *fakeBackend) FuncGetAttribute(attr backend.FunctionAttribute, h uintptr) (int, error) {
	if err := b.enter(abi.CuFuncGetAttribute); err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	f, err := b.funcLocked(h)
	if err != nil {
		return 0, err
	}
	return funcAttribute(f, attr)
}

// funcAttribute is attribute attr of function f (see FuncGetAttribute).
func funcAttribute(f *function, attr backend.FunctionAttribute) (int, error) {
	if x := f.k.interp; x != nil {
		switch attr {
		case backend.FuncMaxThreadsPerBlock:
			return x.MaxThreads, nil
		case backend.FuncSharedSizeBytes:
			return x.StaticShared, nil
		case backend.FuncLocalSizeBytes:
			return x.LocalSize, nil
		case backend.FuncConstSizeBytes:
			return x.ConstSize, nil
		case backend.FuncNumRegs:
			return x.Regs, nil
		}
	}
	switch attr {
	case backend.FuncMaxThreadsPerBlock:
		return 1024, nil
	case backend.FuncSharedSizeBytes, backend.FuncConstSizeBytes, backend.FuncLocalSizeBytes:
		return 0, nil
	case backend.FuncNumRegs:
		return 32, nil
	case backend.FuncPTXVersion, backend.FuncBinaryVersion:
		return 90, nil
	case 7: // CU_FUNC_ATTRIBUTE_CACHE_MODE_CA
		return 0, nil
	case backend.FuncMaxDynamicSharedSize:
		return f.maxDyn, nil
	case backend.FuncPreferredSharedCarveout:
		return f.carveout, nil
	case 10, 11, 12, 13, 14, 15: // cluster attributes
		return 0, nil
	}
	return 0, driver.ErrInvalidValue
}

// FuncSetAttribute is cuFuncSetAttribute: the maximum dynamic shared
// memory (up to the device's opt-in limit) and the preferred carveout can be
// set.
func (b *fakeBackend) FuncSetAttribute(h uintptr, attr backend.FunctionAttribute, value int) error {
	if err := b.enter(abi.CuFuncSetAttribute); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	f, err := b.funcLocked(h)
	if err != nil {
		return err
	}
	switch attr {
	case backend.FuncMaxDynamicSharedSize:
		if value < 0 || value > f.mod.ctx.dev.attrs[driver.AttrMaxSharedMemoryPerBlockOptin] {
			return driver.ErrInvalidValue
		}
		f.maxDyn = value
		return nil
	case backend.FuncPreferredSharedCarveout:
		if value < -1 || value > 100 {
			return driver.ErrInvalidValue
		}
		f.carveout = value
		return nil
	}
	return driver.ErrInvalidValue
}

// OccupancyMaxPotentialBlockSize is cuOccupancyMaxPotentialBlockSize with
// the fake's rule, which reproduces the H200's answers for a small kernel:
// for block sizes bs from min(1024, blockSizeLimit) down to 32 in warps,
// blocks per SM = min(2048/bs, 32); the block size with the most threads
// per SM wins (ties to the larger); the minimum grid is blocks per SM times
// the SM count. Dynamic shared memory does not limit it.
func (b *fakeBackend) OccupancyMaxPotentialBlockSize(h uintptr, dynamicSharedMem uintptr, blockSizeLimit int) (int, int, error) {
	if err := b.enter(abi.CuOccupancyMaxPotentialBlockSize); err != nil {
		return 0, 0, err
	}
	// Measured on the H200: the occupancy calculator needs a current context (201).
	if _, err := b.current(); err != nil {
		return 0, 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	f, err := b.funcLocked(h)
	if err != nil {
		return 0, 0, err
	}
	return occupancy(f.mod.ctx.dev.attrs, blockSizeLimit)
}

// occupancy applies the fake's occupancy rule to a device.
func occupancy(a map[driver.DeviceAttribute]int, limit int) (minGrid, block int, err error) {
	top := a[driver.AttrMaxThreadsPerBlock]
	if limit > 0 && limit < top {
		top = limit
	}
	warp := a[driver.AttrWarpSize]
	perSM := a[driver.AttrMaxThreadsPerMultiprocessor]
	best, bestBlocks := 0, 0
	for bs := top / warp * warp; bs >= warp; bs -= warp {
		blocks := min(perSM/bs, 32)
		if blocks*bs > best*bestBlocks {
			best, bestBlocks = bs, blocks
		}
	}
	if best == 0 { // a limit below one warp
		best, bestBlocks = max(top, 1), 32
	}
	return bestBlocks * a[driver.AttrMultiprocessorCount], best, nil
}

// maxPTXVersion is the newest PTX ISA version (10*major+minor) the driver
// of each CUDA version JITs, from NVIDIA's PTX ISA release notes; the H200's
// driver (CUDA 13.0) takes 9.0 and refuses 9.9 with
// CUDA_ERROR_UNSUPPORTED_PTX_VERSION (GPU run 2 of 2026-12-01).
var maxPTXVersion = []struct{ cuda, ptx int }{
	{13000, 90}, {12090, 88}, {12080, 87}, {12050, 85}, {12040, 84}, {12030, 83},
	{12020, 82}, {12010, 81}, {12000, 80}, {11080, 78}, {11070, 77}, {11060, 76},
	{11050, 75}, {11040, 74}, {11030, 73}, {11020, 72}, {11010, 71}, {11000, 70},
}

// checkPTXVersion checks a PTX module's .version and .target as the
// driver's JIT does: a version newer than this driver's is
// CUDA_ERROR_UNSUPPORTED_PTX_VERSION; one older than its target allows, or
// no .target at all, is CUDA_ERROR_INVALID_PTX.
func (b *fakeBackend) checkPTXVersion(m *ptx.Module, arch int) error {
	if m.Target == "" {
		return driver.ErrInvalidPTX
	}
	major, minor, ok := strings.Cut(m.Version, ".")
	maj, err1 := strconv.Atoi(major)
	mnr, err2 := strconv.Atoi(minor)
	if !ok || err1 != nil || err2 != nil || mnr > 9 {
		return driver.ErrInvalidPTX
	}
	v := 10*maj + mnr
	for _, e := range maxPTXVersion {
		if b.version >= e.cuda {
			if v > e.ptx {
				return driver.ErrUnsupportedPTXVersion
			}
			break
		}
	}
	if lo, ok := abi.OldestPTX(arch); ok && v < lo {
		return driver.ErrInvalidPTX
	}
	return nil
}
