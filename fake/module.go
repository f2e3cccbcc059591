package fake

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

type module struct {
	h     uintptr
	ctx   *context
	funcs map[string]*function
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

var elfMagic = []byte("\x7fELF")

// ptxEntry is one .entry of an image: its name and parameter sizes.
type ptxEntry struct {
	name  string
	sizes []uintptr
}

var (
	targetRe = regexp.MustCompile(`(?m)^\s*\.target\s+sm_(\d+)([a-z]?)`)
	entryRe  = regexp.MustCompile(`\.entry\s+([^\s(]+)\s*\(([^)]*)\)`)
	paramRe  = regexp.MustCompile(`\.param\s+(.*)`)
	arrayRe  = regexp.MustCompile(`\[(\d+)\]\s*$`)
)

// ptxTypeSize returns the size of a PTX fundamental type such as ".u64".
func ptxTypeSize(t string) uintptr {
	if len(t) < 3 || t[0] != '.' {
		return 0
	}
	n, err := strconv.Atoi(t[2:])
	if err != nil || n%8 != 0 {
		return 0
	}
	switch t[1] {
	case 'u', 's', 'f', 'b':
		return uintptr(n / 8)
	}
	return 0
}

// parseImage reads a module image: PTX text, or the fake's CUBIN
// ("\x7fELF" + the same text). It returns the target architecture and the
// entries.
func parseImage(image []byte) (arch int, suffix string, cubin bool, entries []ptxEntry, err error) {
	text := image
	if bytes.HasPrefix(image, elfMagic) {
		cubin = true
		text = image[len(elfMagic):]
	}
	text = bytes.TrimRight(text, "\x00")
	if bytes.IndexByte(text, 0) >= 0 || !bytes.Contains(text, []byte(".version")) {
		return 0, "", false, nil, driver.ErrInvalidImage
	}
	m := targetRe.FindSubmatch(text)
	if m == nil {
		return 0, "", false, nil, driver.ErrInvalidImage
	}
	arch, _ = strconv.Atoi(string(m[1]))
	suffix = string(m[2])
	for _, e := range entryRe.FindAllSubmatch(text, -1) {
		ent := ptxEntry{name: string(e[1])}
		for _, decl := range strings.Split(string(e[2]), ",") {
			pm := paramRe.FindStringSubmatch(strings.TrimSpace(decl))
			if pm == nil {
				continue
			}
			var size uintptr
			for _, tok := range strings.Fields(pm[1]) {
				if size = ptxTypeSize(tok); size > 0 {
					break
				}
			}
			if am := arrayRe.FindStringSubmatch(pm[1]); am != nil {
				n, _ := strconv.Atoi(am[1])
				size *= uintptr(n)
			}
			ent.sizes = append(ent.sizes, size)
		}
		entries = append(entries, ent)
	}
	return arch, suffix, cubin, entries, nil
}

// ModuleLoadData is cuModuleLoadData in the current context. The image is
// PTX text or the fake's CUBIN, as the fake NVRTC produces them (or
// hand-written PTX); every .entry must have a Go body registered under its
// name, with the same parameter sizes, else ErrInvalidImage. A CUBIN must be
// for the device's architecture (ErrNoBinaryForGPU); PTX must not target a
// newer one (ErrInvalidPTX).
func (b *Backend) ModuleLoadData(image []byte) (uintptr, error) {
	if err := b.enter("cuModuleLoadData"); err != nil {
		return 0, err
	}
	if len(image) == 0 {
		return 0, driver.ErrInvalidValue
	}
	tid := gettid()
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.currentLocked(tid)
	if err != nil {
		return 0, err
	}
	arch, _, cubin, entries, err := parseImage(image)
	if err != nil {
		return 0, err
	}
	cc := c.dev.attrs[driver.AttrComputeCapabilityMajor]*10 + c.dev.attrs[driver.AttrComputeCapabilityMinor]
	if cubin && (arch/10 != cc/10 || arch > cc) {
		return 0, driver.ErrNoBinaryForGPU
	}
	if !cubin && arch > cc {
		return 0, driver.ErrInvalidPTX
	}
	m := &module{h: newHandle(), ctx: c, funcs: map[string]*function{}}
	for _, e := range entries {
		k := b.kernelForEntryLocked(e.name)
		if k == nil || k.err != nil || len(k.params) != len(e.sizes) {
			return 0, driver.ErrInvalidImage
		}
		for i, p := range k.params {
			if e.sizes[i] != 0 && e.sizes[i] != p.size {
				return 0, driver.ErrInvalidImage
			}
		}
		m.funcs[e.name] = &function{mod: m, name: e.name, k: k, maxDyn: defaultMaxDynamicShared, carveout: -1}
	}
	for _, f := range m.funcs {
		f.h = newHandle()
		b.funcs[f.h] = f
	}
	b.modules[m.h] = m
	return m.h, nil
}

// ModuleUnload is cuModuleUnload. Launches already queued still run.
func (b *Backend) ModuleUnload(h uintptr) error {
	if err := b.enter("cuModuleUnload"); err != nil {
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

func (b *Backend) unloadLocked(m *module) {
	for _, f := range m.funcs {
		delete(b.funcs, f.h)
	}
}

// ModuleGetFunction is cuModuleGetFunction: ErrNotFound for a name the
// module lacks. The same name gives the same handle.
func (b *Backend) ModuleGetFunction(h uintptr, name string) (uintptr, error) {
	if err := b.enter("cuModuleGetFunction"); err != nil {
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

func (b *Backend) funcLocked(h uintptr) (*function, error) {
	f := b.funcs[h]
	if f == nil {
		return nil, b.goneLocked(h)
	}
	return f, nil
}

// FuncGetParamInfo is cuFuncGetParamInfo: the offset and size of parameter
// index, laid out with C alignment; ErrInvalidValue past the last.
func (b *Backend) FuncGetParamInfo(h uintptr, index int) (uintptr, uintptr, error) {
	if err := b.enter("cuFuncGetParamInfo"); err != nil {
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

// FuncGetAttribute is cuFuncGetAttribute. The fake's kernels all report
// 1024 threads per block, 32 registers, no static shared, constant or local
// memory, and PTX and binary version 90.
func (b *Backend) FuncGetAttribute(attr backend.FunctionAttribute, h uintptr) (int, error) {
	if err := b.enter("cuFuncGetAttribute"); err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	f, err := b.funcLocked(h)
	if err != nil {
		return 0, err
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
func (b *Backend) FuncSetAttribute(h uintptr, attr backend.FunctionAttribute, value int) error {
	if err := b.enter("cuFuncSetAttribute"); err != nil {
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
func (b *Backend) OccupancyMaxPotentialBlockSize(h uintptr, dynamicSharedMem uintptr, blockSizeLimit int) (int, int, error) {
	if err := b.enter("cuOccupancyMaxPotentialBlockSize"); err != nil {
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
