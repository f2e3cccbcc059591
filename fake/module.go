package fake

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ptxexec"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

type module struct {
	h     uintptr
	ctx   *context
	funcs map[string]*function
	// globals are the module-scope variables of interpreted PTX, in
	// globalMem.
	globals   map[string]global
	globalMem []*alloc
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

// ptxEntry is one .entry of an image: its name and parameter sizes.
type ptxEntry struct {
	name  string
	sizes []uintptr
}

// ptxTypeSize returns the size of a PTX fundamental type such as ".u64".
func ptxTypeSize(t string) uintptr {
	if len(t) < 3 || t[0] != '.' {
		return 0
	}
	n, err := strconv.Atoi(t[2:])
	if err != nil || n%8 != 0 || n < 8 || n > 128 {
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
// entries. Text that does not begin with a .version directive is no image
// the driver knows (ErrInvalidImage, as measured on the H200 for
// "garbage"); PTX that is not well formed fails to JIT (ErrInvalidPTX); a
// CUBIN that is not well formed is ErrInvalidImage.
func parseImage(image []byte) (arch int, suffix string, cubin bool, entries []ptxEntry, err error) {
	text := image
	bad := driver.ErrInvalidPTX
	if bytes.HasPrefix(image, elfMagic) {
		cubin = true
		bad = driver.ErrInvalidImage
		text = bytes.TrimRight(image[len(elfMagic):], "\x00")
		if bytes.IndexByte(text, 0) >= 0 {
			return 0, "", false, nil, driver.ErrInvalidImage
		}
	} else if i := bytes.IndexByte(text, 0); i >= 0 {
		text = text[:i] // the driver reads PTX up to its NUL
	}
	toks, ok := lexPTX(text)
	if len(toks) == 0 || toks[0].text != ".version" {
		return 0, "", false, nil, driver.ErrInvalidImage
	}
	if !ok {
		return 0, "", false, nil, bad
	}
	p := &ptxParser{toks: toks}
	arch, suffix, entries, ok = p.module()
	if !ok {
		return 0, "", false, nil, bad
	}
	return arch, suffix, cubin, entries, nil
}

// ptxToken is a token of PTX text; bol: it is the first of its line.
type ptxToken struct {
	text string
	bol  bool
}

func isPTXIdentStart(c byte) bool {
	return c == '_' || c == '$' || c == '%' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isPTXIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// lexPTX splits PTX text into tokens: directives (".entry"), identifiers,
// numbers, strings and single punctuation characters; comments are
// dropped. It reports false for an unterminated comment or string, or a
// byte that is not PTX.
func lexPTX(text []byte) ([]ptxToken, bool) {
	var toks []ptxToken
	bol := true
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			bol = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '/':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			j := bytes.Index(text[i+2:], []byte("*/"))
			if j < 0 {
				return toks, false
			}
			if bytes.IndexByte(text[i:i+2+j], '\n') >= 0 {
				bol = true
			}
			i += 2 + j + 2
			continue
		}
		j := i + 1
		switch {
		case c == '.' && j < len(text) && isPTXIdentStart(text[j]):
			for j < len(text) && isPTXIdentByte(text[j]) {
				j++
			}
		case isPTXIdentStart(c):
			for j < len(text) && isPTXIdentByte(text[j]) {
				j++
			}
		case c >= '0' && c <= '9':
			for j < len(text) && (isPTXIdentByte(text[j]) || text[j] == '.') {
				j++
			}
		case c == '"':
			for j < len(text) && text[j] != '"' && text[j] != '\n' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(text) || text[j] != '"' {
				return toks, false
			}
			j++
		case c > ' ' && c < 0x7f: // punctuation, one character a token
		default:
			return toks, false // a control character or a byte past ASCII
		}
		toks = append(toks, ptxToken{string(text[i:j]), bol})
		bol = false
		i = j
	}
	return toks, true
}

// ptxParser checks the module-level structure of PTX: the .version and
// .target directives first, every line outside bodies and parentheses a
// directive, balanced braces and parentheses, and each .entry's name,
// parameter list and body. Instructions inside bodies are not checked.
type ptxParser struct {
	toks []ptxToken
	i    int
}

func (p *ptxParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i].text
	}
	return ""
}

func (p *ptxParser) next() string {
	t := p.peek()
	p.i++
	return t
}

func isPTXIdent(s string) bool {
	if s == "" || !isPTXIdentStart(s[0]) {
		return false
	}
	if len(s) == 1 && (s[0] == '_' || s[0] == '$' || s[0] == '%') {
		return false // these start an identifier of two characters or more
	}
	for i := 1; i < len(s); i++ {
		if !isPTXIdentByte(s[i]) {
			return false
		}
	}
	return true
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (p *ptxParser) module() (arch int, suffix string, entries []ptxEntry, ok bool) {
	p.next() // .version
	major, minor, found := strings.Cut(p.next(), ".")
	if !found || !isNumber(major) || !isNumber(minor) {
		return 0, "", nil, false
	}
	if p.next() != ".target" {
		return 0, "", nil, false
	}
	target := p.next()
	digits := strings.TrimPrefix(target, "sm_")
	if len(digits) > 0 && digits[len(digits)-1] >= 'a' && digits[len(digits)-1] <= 'z' {
		suffix = digits[len(digits)-1:]
		digits = digits[:len(digits)-1]
	}
	if digits == target || !isNumber(digits) || len(digits) > 4 {
		return 0, "", nil, false
	}
	arch, _ = strconv.Atoi(digits)
	for p.peek() == "," { // .target sm_90, debug
		p.next()
		if !isPTXIdent(p.next()) {
			return 0, "", nil, false
		}
	}
	seen := map[string]bool{}
	parens := 0
	for p.i < len(p.toks) {
		t := p.toks[p.i]
		if parens == 0 && t.bol && !strings.HasPrefix(t.text, ".") && t.text != "(" && t.text != "{" && t.text != ";" {
			return 0, "", nil, false // not a directive: garbage
		}
		switch t.text {
		case ".entry":
			p.next()
			e, body, ok := p.entry()
			if !ok || body && seen[e.name] {
				return 0, "", nil, false
			}
			if body { // not a declaration of an entry defined elsewhere
				seen[e.name] = true
				entries = append(entries, e)
			}
			continue
		case ".version", ".target":
			return 0, "", nil, false // only once, first
		case "(":
			parens++
		case ")":
			if parens--; parens < 0 {
				return 0, "", nil, false
			}
		case "{":
			if !p.skipBlock() {
				return 0, "", nil, false
			}
			continue
		case "}":
			return 0, "", nil, false
		}
		p.next()
	}
	return arch, suffix, entries, parens == 0
}

// skipBlock skips a braced block, the current token its "{".
func (p *ptxParser) skipBlock() bool {
	depth := 0
	for p.i < len(p.toks) {
		switch p.next() {
		case "{":
			depth++
		case "}":
			if depth--; depth == 0 {
				return true
			}
		}
	}
	return false
}

// entry parses an .entry after its directive: name, optional parameter
// list, performance directives and the body, or the ";" that ends a
// declaration (body false).
func (p *ptxParser) entry() (e ptxEntry, body, ok bool) {
	e.name = p.next()
	if !isPTXIdent(e.name) {
		return e, false, false
	}
	if p.peek() == "(" {
		p.next()
		if p.peek() == ")" {
			p.next()
		} else {
			for {
				size, ok := p.param()
				if !ok {
					return e, false, false
				}
				e.sizes = append(e.sizes, size)
				if t := p.next(); t == ")" {
					break
				} else if t != "," {
					return e, false, false
				}
			}
		}
	}
	// Performance directives (.maxntid 256, 1, 1) up to the body.
	for p.peek() != "{" {
		t := p.next()
		if t == ";" {
			return e, false, true
		}
		if !strings.HasPrefix(t, ".") || t == ".entry" {
			return e, false, false
		}
		for isNumber(p.peek()) || p.peek() == "," {
			p.next()
		}
	}
	return e, true, p.skipBlock()
}

// param parses one ".param" declaration of an entry and returns its size (0
// for an opaque type whose size the fake does not check).
func (p *ptxParser) param() (uintptr, bool) {
	if p.next() != ".param" {
		return 0, false
	}
	var size uintptr
	types := 0
	for strings.HasPrefix(p.peek(), ".") {
		switch t := p.next(); t {
		case ".align":
			if !isNumber(p.next()) {
				return 0, false
			}
		case ".ptr", ".global", ".const", ".local", ".shared":
		case ".texref", ".samplerref", ".surfref":
			types++
		default:
			if size = ptxTypeSize(t); size == 0 {
				return 0, false
			}
			types++
		}
	}
	if types != 1 || !isPTXIdent(p.next()) {
		return 0, false
	}
	if p.peek() == "[" {
		p.next()
		n, err := strconv.ParseUint(p.next(), 10, 32)
		if err != nil || n == 0 || p.next() != "]" {
			return 0, false
		}
		size *= uintptr(n)
	}
	return size, true
}

// ModuleLoadData is cuModuleLoadData in the current context. The image is
// PTX text (from a real NVRTC, the fake NVRTC, a file or a fatbin's
// uncompressed PTX entry) or the fake's CUBIN; text that is not PTX (no
// leading .version directive) is ErrInvalidImage, PTX that is not well
// formed (see ptxParser) is ErrInvalidPTX. An .entry with a Go body
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
	m := &module{h: newHandle(), ctx: c, funcs: map[string]*function{}, globals: map[string]global{}}
	var prog *ptxexec.Program
	var progErr error
	if cubin {
		// The fake's CUBINs (its own compilers' output) carry their PTX
		// behind the ELF magic.
		prog, progErr = ptxexec.Compile(ptxText(image[len(elfMagic):]))
	} else {
		prog, progErr = ptxexec.Compile(ptxText(image))
	}
	for _, e := range entries {
		k := b.kernelForEntryLocked(e.name)
		if k == nil {
			if progErr != nil {
				return 0, b.noteLoadError(progErr)
			}
			if x := prog.Kernels[e.name]; x != nil {
				k = ptxKernel(x)
			}
		}
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
	if prog != nil && progErr == nil {
		if err := b.placeGlobalsLocked(c, m, prog); err != nil {
			return 0, err
		}
	}
	for _, f := range m.funcs {
		f.h = newHandle()
		b.funcs[f.h] = f
	}
	b.modules[m.h] = m
	return m.h, nil
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
	for _, f := range m.funcs {
		delete(b.funcs, f.h)
	}
	for _, a := range m.globalMem {
		b.removeGlobalLocked(a)
	}
	m.globalMem = nil
	clear(m.globals)
}

// ptxText is the PTX text of an image: up to its first NUL.
func ptxText(image []byte) string {
	if i := bytes.IndexByte(image, 0); i >= 0 {
		image = image[:i]
	}
	return string(image)
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
