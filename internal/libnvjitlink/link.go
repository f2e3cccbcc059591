//go:build linux && (amd64 || arm64)

package libnvjitlink

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/internal/symtab"
	"github.com/nocgo/cuda/loader"
)

// resultNames are the nvJitLinkResult names (nvJitLink has no
// GetErrorString).
var resultNames = map[int]string{
	1: "NVJITLINK_ERROR_UNRECOGNIZED_OPTION", 2: "NVJITLINK_ERROR_MISSING_ARCH",
	3: "NVJITLINK_ERROR_INVALID_INPUT", 4: "NVJITLINK_ERROR_PTX_COMPILE",
	5: "NVJITLINK_ERROR_NVVM_COMPILE", 6: "NVJITLINK_ERROR_INTERNAL",
	7: "NVJITLINK_ERROR_THREADPOOL", 8: "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
	9: "NVJITLINK_ERROR_FINALIZE", 10: "NVJITLINK_ERROR_NULL_INPUT",
	11: "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS", 12: "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
	13: "NVJITLINK_ERROR_ARCH_MISMATCH", 14: "NVJITLINK_ERROR_OUTDATED_LIBRARY",
	15: "NVJITLINK_ERROR_MISSING_FATBIN",
}

// linker is backend.JITLinker over libnvJitLink.
type linker struct {
	lib  *loader.Library
	syms *symtab.Table
}

// Open opens libnvJitLink through package loader. A missing library is a
// *loader.LibraryError listing every path tried; entry points resolve on
// first use (a missing one is a *loader.SymbolError).
func Open() (backend.JITLinker, error) {
	lib, err := loader.Open(loader.NVJITLINK)
	if err != nil {
		return nil, err
	}
	return &linker{lib: lib, syms: symtab.InLibrary(lib, symEntries[:], nil)}, nil
}

// LibraryPaths returns the path of the libnvJitLink file opened.
func (l *linker) LibraryPaths() []string { return []string{l.lib.Path()} }

func (l *linker) fn(s sym) (uintptr, error) { return l.syms.Get(int(s)) }

// check is result for entry point s.
func (l *linker) check(s sym, r uintptr) error { return result(symEntries[s].Name, r) }

// result turns an nvJitLinkResult (a 32-bit enum in a 64-bit register)
// from op into nil or a *JITLinkError.
func result(op string, r uintptr) error {
	code := int(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	name := resultNames[code]
	if name == "" {
		name = "NVJITLINK_ERROR_" + strconv.Itoa(code)
	}
	return &backend.JITLinkError{Code: code, Name: name, Op: op}
}

// Link links inputs with options into a CUBIN (see backend.JITLinker).
// Inputs with no data, an unknown kind or a name with a NUL byte, and
// options with a NUL byte, are refused before any call
// (NVJITLINK_ERROR_INVALID_INPUT, NVJITLINK_ERROR_UNRECOGNIZED_OPTION).
func (l *linker) Link(options []string, inputs []backend.JITLinkInput) (cubin []byte, info string, err error) {
	names := make([][]byte, len(inputs))
	for i, in := range inputs {
		n, nerr := cstr.Bytes(in.Name)
		if nerr != nil || len(in.Data) == 0 || in.Kind < backend.JITLinkCUBIN || in.Kind > backend.JITLinkFatbin {
			return nil, "", &backend.JITLinkError{Code: 3, Name: resultNames[3], Op: "nvJitLinkAddData",
				Log: fmt.Sprintf("input %d (%q): no data, an unknown kind (%d) or a name with a NUL byte", i, in.Name, in.Kind)}
		}
		names[i] = n
	}
	opts, err := cstr.NewArray(options)
	if err != nil {
		return nil, "", &backend.JITLinkError{Code: 1, Name: resultNames[1], Op: "nvJitLinkCreate", Log: "an option with a NUL byte"}
	}
	defer opts.Free()
	create, err := l.fn(symCreate)
	if err != nil {
		return nil, "", err
	}
	destroy, err := l.fn(symDestroy)
	if err != nil {
		return nil, "", err
	}
	var h uintptr
	if err := result("nvJitLinkCreate", dl.Call3(create, uintptr(unsafe.Pointer(&h)), uintptr(opts.Len()), uintptr(opts.Ptr()))); err != nil {
		return nil, "", err
	}
	// nvJitLinkDestroy(nvJitLinkHandle *handle), whatever happens below.
	defer func() { dl.Call1(destroy, uintptr(unsafe.Pointer(&h))) }()
	fail := func(err error) ([]byte, string, error) {
		var je *backend.JITLinkError
		if errors.As(err, &je) {
			je.Log = l.log(h, symGetErrorLogSize, symGetErrorLog)
		}
		return nil, l.log(h, symGetInfoLogSize, symGetInfoLog), err
	}
	add, err := l.fn(symAddData)
	if err != nil {
		return nil, "", err
	}
	for i, in := range inputs {
		r := dl.Call5(add, h, uintptr(in.Kind), uintptr(unsafe.Pointer(&in.Data[0])), uintptr(len(in.Data)), uintptr(unsafe.Pointer(&names[i][0])))
		runtime.KeepAlive(in.Data)
		runtime.KeepAlive(names[i])
		if err := result("nvJitLinkAddData", r); err != nil {
			return fail(err)
		}
	}
	complete, err := l.fn(symComplete)
	if err != nil {
		return nil, "", err
	}
	if err := result("nvJitLinkComplete", dl.Call1(complete, h)); err != nil {
		return fail(err)
	}
	cubin, err = l.output(h, symGetLinkedCubinSize, symGetLinkedCubin)
	if err != nil {
		return fail(err)
	}
	if len(cubin) == 0 {
		return fail(&backend.JITLinkError{Code: 6, Name: resultNames[6], Op: "nvJitLinkGetLinkedCubin"})
	}
	return cubin, l.log(h, symGetInfoLogSize, symGetInfoLog), nil
}

// output reads one of nvJitLink's size-then-copy outputs of linker h.
func (l *linker) output(h uintptr, sizeSym, getSym sym) ([]byte, error) {
	ps, err := l.fn(sizeSym)
	if err != nil {
		return nil, err
	}
	pg, err := l.fn(getSym)
	if err != nil {
		return nil, err
	}
	var size uintptr
	if err := l.check(sizeSym, dl.Call2(ps, h, uintptr(unsafe.Pointer(&size)))); err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, nil
	}
	buf := make([]byte, size)
	r := dl.Call2(pg, h, uintptr(unsafe.Pointer(&buf[0])))
	runtime.KeepAlive(buf)
	if err := l.check(getSym, r); err != nil {
		return nil, err
	}
	return buf, nil
}

// log reads a log of linker h, without its NUL; "" when there is none or
// it cannot be read.
func (l *linker) log(h uintptr, sizeSym, getSym sym) string {
	b, err := l.output(h, sizeSym, getSym)
	if err != nil {
		return ""
	}
	return string(bytes.TrimRight(b, "\x00"))
}

var (
	_ backend.JITLinker    = (*linker)(nil)
	_ backend.LibraryPaths = (*linker)(nil)
)
