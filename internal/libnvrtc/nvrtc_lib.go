//go:build linux && (amd64 || arm64)

package libnvrtc

import (
	"bytes"
	"runtime"
	"strconv"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/internal/symtab"
	"github.com/nocgo/cuda/loader"
)

// libnvrtc is the real NVRTC: libnvrtc through internal/dl.CallN, its entry
// points resolved with dlsym on first use.
type libnvrtc struct {
	lib  *loader.Library
	syms *symtab.Table
}

// openLibnvrtc opens libnvrtc through package loader.
func openLibnvrtc() (*libnvrtc, error) {
	lib, err := loader.Open(loader.NVRTC)
	if err != nil {
		return nil, err
	}
	n := &libnvrtc{lib: lib}
	n.syms = symtab.New(int(numNVSyms), func(i int) (uintptr, error) { return n.resolve(nvsym(i)) })
	return n, nil
}

// resolve finds entry point s with dlsym (NVRTC's entry points were never
// versioned).
func (n *libnvrtc) resolve(s nvsym) (uintptr, error) {
	p, err := n.lib.Symbol(nvsyms[s].name)
	if err != nil {
		if se, ok := err.(*loader.SymbolError); ok {
			se.Since = nvsyms[s].since
		}
		return 0, err
	}
	return p, nil
}

func (n *libnvrtc) fn(s nvsym) (uintptr, error) { return n.syms.Get(int(s)) }

// check turns an nvrtcResult (a 32-bit enum in a 64-bit register) from
// entry point op into nil or an *NVRTCError named by nvrtcGetErrorString.
func (n *libnvrtc) check(op string, r uintptr) error {
	code := int(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	return &backend.NVRTCError{Code: code, Name: n.errorName(code), Op: op}
}

// errorName is nvrtcGetErrorString(code).
func (n *libnvrtc) errorName(code int) string {
	if p, err := n.fn(nvGetErrorString); err == nil {
		var s unsafe.Pointer
		// const char *nvrtcGetErrorString(nvrtcResult): the pointer comes
		// back in the return register; store it through memory so that it
		// is a pointer from the start, never an integer turned into one.
		r := dl.Call1(p, uintptr(code))
		*(*uintptr)(unsafe.Pointer(&s)) = r
		if name := cstr.GoString(s); name != "" {
			return name
		}
	}
	return "NVRTC_ERROR_" + strconv.Itoa(code)
}

// fail builds the *NVRTCError for input rejected before calling NVRTC
// (a string with a NUL byte, unpaired headers), with NVRTC's own name for
// code.
func (n *libnvrtc) fail(op string, code int) error {
	return &backend.NVRTCError{Code: code, Name: n.errorName(code), Op: op}
}

// Implementation returns "libnvrtc".
func (n *libnvrtc) Implementation() string { return "libnvrtc" }

// Version is nvrtcVersion(int *major, int *minor).
func (n *libnvrtc) Version() (int, int, error) {
	p, err := n.fn(nvVersion)
	if err != nil {
		return 0, 0, err
	}
	var v struct{ major, minor int32 }
	r := dl.Call2(p, uintptr(unsafe.Pointer(&v.major)), uintptr(unsafe.Pointer(&v.minor)))
	return int(v.major), int(v.minor), n.check("nvrtcVersion", r)
}

// CreateProgram is nvrtcCreateProgram(nvrtcProgram*, const char *src,
// const char *name, int numHeaders, const char *const *headers, const char
// *const *includeNames). headers[i] is the content of includeNames[i]. The
// strings are copied to pinned C strings for the call; NVRTC copies them.
func (n *libnvrtc) CreateProgram(src, name string, headers, includeNames []string) (uintptr, error) {
	const op = "nvrtcCreateProgram"
	if len(headers) != len(includeNames) {
		return 0, n.fail(op, backend.NVRTCErrorInvalidInput)
	}
	p, err := n.fn(nvCreateProgram)
	if err != nil {
		return 0, err
	}
	csrc, err1 := cstr.Bytes(src)
	cname, err2 := cstr.Bytes(name)
	if err1 != nil || err2 != nil {
		return 0, n.fail(op, backend.NVRTCErrorInvalidInput)
	}
	hs, err := cstr.NewArray(headers)
	if err != nil {
		return 0, n.fail(op, backend.NVRTCErrorInvalidInput)
	}
	defer hs.Free()
	ins, err := cstr.NewArray(includeNames)
	if err != nil {
		return 0, n.fail(op, backend.NVRTCErrorInvalidInput)
	}
	defer ins.Free()
	nh, hp, ip := uintptr(hs.Len()), hs.Ptr(), ins.Ptr()
	var prog uintptr
	r := dl.Call6(p, uintptr(unsafe.Pointer(&prog)), uintptr(unsafe.Pointer(&csrc[0])),
		uintptr(unsafe.Pointer(&cname[0])), nh, uintptr(hp), uintptr(ip))
	runtime.KeepAlive(csrc)
	runtime.KeepAlive(cname)
	if err := n.check(op, r); err != nil {
		return 0, err
	}
	return prog, nil
}

// AddNameExpression is nvrtcAddNameExpression(nvrtcProgram, const char*).
func (n *libnvrtc) AddNameExpression(prog uintptr, expr string) error {
	const op = "nvrtcAddNameExpression"
	p, err := n.fn(nvAddNameExpression)
	if err != nil {
		return err
	}
	cexpr, err := cstr.Bytes(expr)
	if err != nil {
		return n.fail(op, backend.NVRTCErrorInvalidInput)
	}
	r := dl.Call2(p, prog, uintptr(unsafe.Pointer(&cexpr[0])))
	runtime.KeepAlive(cexpr)
	return n.check(op, r)
}

// Compile is nvrtcCompileProgram(nvrtcProgram, int numOptions, const char
// *const *options), the options passed as pinned C strings.
func (n *libnvrtc) Compile(prog uintptr, options []string) error {
	const op = "nvrtcCompileProgram"
	p, err := n.fn(nvCompileProgram)
	if err != nil {
		return err
	}
	opts, err := cstr.NewArray(options)
	if err != nil {
		return n.fail(op, backend.NVRTCErrorInvalidOption)
	}
	defer opts.Free()
	no, op2 := uintptr(opts.Len()), opts.Ptr()
	r := dl.Call3(p, prog, no, uintptr(op2))
	return n.check(op, r)
}

// output reads one of NVRTC's size-then-copy outputs (log, PTX, CUBIN).
func (n *libnvrtc) output(prog uintptr, sizeSym, getSym nvsym) ([]byte, error) {
	ps, err := n.fn(sizeSym)
	if err != nil {
		return nil, err
	}
	pg, err := n.fn(getSym)
	if err != nil {
		return nil, err
	}
	var size uintptr
	r := dl.Call2(ps, prog, uintptr(unsafe.Pointer(&size)))
	if err := n.check(nvsyms[sizeSym].name, r); err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, nil
	}
	buf := make([]byte, size)
	r = dl.Call2(pg, prog, uintptr(unsafe.Pointer(&buf[0])))
	runtime.KeepAlive(buf)
	if err := n.check(nvsyms[getSym].name, r); err != nil {
		return nil, err
	}
	return buf, nil
}

// ProgramLog is nvrtcGetProgramLogSize + nvrtcGetProgramLog, without the
// trailing NUL.
func (n *libnvrtc) ProgramLog(prog uintptr) (string, error) {
	b, err := n.output(prog, nvGetProgramLogSize, nvGetProgramLog)
	if err != nil {
		return "", err
	}
	return string(bytes.TrimRight(b, "\x00")), nil
}

// PTX is nvrtcGetPTXSize + nvrtcGetPTX: the PTX text without its trailing
// NUL (ModuleLoadData adds one back).
func (n *libnvrtc) PTX(prog uintptr) ([]byte, error) {
	b, err := n.output(prog, nvGetPTXSize, nvGetPTX)
	if err != nil {
		return nil, err
	}
	return bytes.TrimRight(b, "\x00"), nil
}

// CUBIN is nvrtcGetCUBINSize + nvrtcGetCUBIN. NVRTC makes no CUBIN for a
// virtual architecture (compute_XX): the size is 0, and CUBIN returns an
// *NVRTCError with Code NVRTCErrorInvalidInput.
func (n *libnvrtc) CUBIN(prog uintptr) ([]byte, error) {
	b, err := n.output(prog, nvGetCUBINSize, nvGetCUBIN)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, n.fail("nvrtcGetCUBIN", backend.NVRTCErrorInvalidInput)
	}
	return b, nil
}

// LoweredName is nvrtcGetLoweredName(nvrtcProgram, const char*, const char
// **lowered); the lowered name belongs to the program and is copied.
func (n *libnvrtc) LoweredName(prog uintptr, expr string) (string, error) {
	const op = "nvrtcGetLoweredName"
	p, err := n.fn(nvGetLoweredName)
	if err != nil {
		return "", err
	}
	cexpr, err := cstr.Bytes(expr)
	if err != nil {
		return "", n.fail(op, backend.NVRTCErrorNameExprNotValid)
	}
	var lowered unsafe.Pointer
	r := dl.Call3(p, prog, uintptr(unsafe.Pointer(&cexpr[0])), uintptr(unsafe.Pointer(&lowered)))
	runtime.KeepAlive(cexpr)
	if err := n.check(op, r); err != nil {
		return "", err
	}
	return cstr.GoString(lowered), nil
}

// DestroyProgram is nvrtcDestroyProgram(nvrtcProgram*).
func (n *libnvrtc) DestroyProgram(prog uintptr) error {
	p, err := n.fn(nvDestroyProgram)
	if err != nil {
		return err
	}
	r := dl.Call1(p, uintptr(unsafe.Pointer(&prog)))
	return n.check("nvrtcDestroyProgram", r)
}
