//go:build linux && (amd64 || arm64)

package libcuda

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/internal/libnvrtc"
	"github.com/nocgo/cuda/internal/symtab"
	"github.com/nocgo/cuda/loader"
)

// libcuda is the real backend: backend.API over libcuda, called through
// internal/dl's CallN (purego.SyscallN without its per-call allocation).
// Entry points resolve lazily through a Table, so a driver that
// lacks a newer one still serves every other call; the missing one returns
// a *loader.SymbolError when called.
type libcuda struct {
	lib     *loader.Library
	version int // cuDriverGetVersion, read at open

	// getProc is cuGetProcAddress_v2 (getProcV2) or cuGetProcAddress; 0 on
	// drivers before CUDA 11.3, where entry points are found with dlsym.
	getProc   uintptr
	getProcV2 bool

	syms *symtab.Table

	nvrtcMu   sync.Mutex
	nvrtcDone bool
	nvrtcErr  error
	nvrtc     atomic.Pointer[backend.NVRTC] // internal/libnvrtc's, once opened

	jitLink lazyJITLinker // internal/libnvjitlink's, opened on first use (nvjitlink.go)
}

// Open opens libcuda through package loader, resolves cuGetProcAddress and
// cuDriverGetVersion, and returns the backend. Other entry points
// resolve on first use. A missing library is a *loader.LibraryError, a
// library without cuDriverGetVersion a *loader.SymbolError.
//
// Each call searches again (so a changed NOCGO_CUDA_LIBCUDA takes effect)
// and builds a fresh symbol table; the library itself is loaded once per
// process by the system loader.
func Open() (backend.API, error) {
	lib, err := loader.Open(loader.CUDA)
	if err != nil {
		return nil, err
	}
	l := &libcuda{lib: lib}
	if p, err := lib.Symbol("cuGetProcAddress_v2"); err == nil {
		l.getProc, l.getProcV2 = p, true
	} else if p, err := lib.Symbol("cuGetProcAddress"); err == nil {
		l.getProc = p
	}
	gv, err := lib.Symbol("cuDriverGetVersion")
	if err != nil {
		var serr *loader.SymbolError
		if errors.As(err, &serr) {
			serr.Since = syms[symDriverGetVersion].since
		}
		return nil, err
	}
	var v int32
	if r := dl.Call1(gv, uintptr(unsafe.Pointer(&v))); uint32(r) != 0 {
		return nil, fmt.Errorf("%s: cuDriverGetVersion: %w", lib.Path(), backend.Check(uintptr(uint32(r))))
	}
	l.version = int(v)
	l.syms = symtab.New(int(numSyms), func(i int) (uintptr, error) { return l.resolve(sym(i)) })
	return l, nil
}

// CUdriverProcAddressQueryResult values.
const (
	procAddressSuccess           = 0
	procAddressSymbolNotFound    = 1
	procAddressVersionNotSuffice = 2
)

// resolve finds entry point s: through cuGetProcAddress at the version
// s.requestVersion picks, or, on drivers without it (and for the few entry
// points needed before cuInit), through dlsym of the explicit versioned
// names.
func (l *libcuda) resolve(s sym) (uintptr, error) {
	info := &syms[s]
	serr := &loader.SymbolError{Library: l.lib.Path(), Symbol: info.name, Since: info.since, Have: l.version}
	if l.getProc == 0 || info.direct {
		names := info.dlsym
		if names == nil {
			names = []string{info.name}
		}
		var errs []error
		for _, n := range names {
			p, err := l.lib.Symbol(n)
			if err == nil {
				return p, nil
			}
			errs = append(errs, err)
		}
		serr.Err = errors.Join(errs...)
		return 0, serr
	}
	name, err := cstr.Bytes(info.name)
	if err != nil {
		serr.Err = err
		return 0, serr
	}
	ver := s.requestVersion(l.version)
	// The out-parameters live on the heap: cuGetProcAddress may be a Go
	// callback (the tests' stand-in), which can move the goroutine stack.
	out := newProcOut()
	var r uintptr
	if l.getProcV2 {
		// CUresult cuGetProcAddress_v2(const char *symbol, void **pfn,
		//     int cudaVersion, cuuint64_t flags,
		//     CUdriverProcAddressQueryResult *symbolStatus)
		r = dl.Call5(l.getProc, uintptr(unsafe.Pointer(&name[0])), uintptr(unsafe.Pointer(&out.fn)),
			uintptr(ver), 0, uintptr(unsafe.Pointer(&out.status)))
	} else {
		// CUresult cuGetProcAddress(const char *symbol, void **pfn,
		//     int cudaVersion, cuuint64_t flags)
		r = dl.Call4(l.getProc, uintptr(unsafe.Pointer(&name[0])), uintptr(unsafe.Pointer(&out.fn)),
			uintptr(ver), 0)
	}
	runtime.KeepAlive(name)
	runtime.KeepAlive(out)
	fn, status := out.fn, out.status
	switch {
	case uint32(r) == 0 && status == procAddressSuccess && fn != 0:
		return fn, nil
	case status == procAddressVersionNotSuffice:
		serr.Err = fmt.Errorf("cuGetProcAddress(%q, %d): the driver has it only at a newer version", info.name, ver)
	case status == procAddressSymbolNotFound:
		serr.Err = fmt.Errorf("cuGetProcAddress(%q, %d): symbol not found", info.name, ver)
	case uint32(r) == 0:
		serr.Err = fmt.Errorf("cuGetProcAddress(%q, %d): returned a NULL address", info.name, ver)
	default:
		serr.Err = fmt.Errorf("cuGetProcAddress(%q, %d): %w", info.name, ver, backend.Check(uintptr(uint32(r))))
	}
	return 0, serr
}

// fn returns the address of entry point s, resolving it on first use.
func (l *libcuda) fn(s sym) (uintptr, error) { return l.syms.Get(int(s)) }

// check turns a CUresult returned in a 64-bit register into an error. A
// CUresult is a 32-bit enum: the upper half of the register is not part of
// the value and is dropped.
func check(r uintptr) error { return backend.Check(uintptr(uint32(r))) }

// LibraryPaths returns the path of libcuda, and of libnvrtc once NVRTC has
// opened it.
func (l *libcuda) LibraryPaths() []string {
	paths := []string{l.lib.Path()}
	if n := l.nvrtc.Load(); n != nil {
		if p, ok := (*n).(backend.LibraryPaths); ok {
			paths = append(paths, p.LibraryPaths()...)
		}
	}
	return paths
}

// NVRTC opens libnvrtc (internal/libnvrtc, through package loader) on the
// first call and returns the run-time compiler; later calls return the same
// compiler, or the same error.
func (l *libcuda) NVRTC() (backend.NVRTC, error) {
	if n := l.nvrtc.Load(); n != nil {
		return *n, nil
	}
	l.nvrtcMu.Lock()
	defer l.nvrtcMu.Unlock()
	if !l.nvrtcDone {
		n, err := libnvrtc.Open()
		l.nvrtcDone, l.nvrtcErr = true, err
		if err == nil {
			l.nvrtc.Store(&n)
		}
	}
	if l.nvrtcErr != nil {
		return nil, l.nvrtcErr
	}
	return *l.nvrtc.Load(), nil
}

var (
	_ backend.API           = (*libcuda)(nil)
	_ backend.NVRTCProvider = (*libcuda)(nil)
	_ backend.LibraryPaths  = (*libcuda)(nil)
)

// procOut is cuGetProcAddress's out-parameters.
type procOut struct {
	fn     uintptr
	status int32
}

// newProcOut returns a procOut on the heap: it is returned from a function
// that is never inlined, so it escapes.
//
//go:noinline
func newProcOut() *procOut { return &procOut{status: procAddressSuccess} }

// strictFn resolves an entry point marked strict in entrypoints.txt,
// refusing it on a driver older than the ABI this backend calls: several
// base names were given a new ABI (cuStreamGetCaptureInfo, cuGraphGetEdges
// in 12.3; cuGraphAddKernelNode, cuGraphExecUpdate in 12.0;
// cuMemPrefetchAsync, cuMemAdvise in 13.0), and cuGetProcAddress on an
// older driver would hand out the old one, which takes other arguments.
func (l *libcuda) strictFn(s sym) (uintptr, error) {
	if info := &syms[s]; l.version > 0 && l.version < info.since {
		return 0, &loader.SymbolError{Library: l.lib.Path(), Symbol: info.name, Since: info.since, Have: l.version,
			Err: errors.New("the driver has only an older ABI of it")}
	}
	return l.fn(s)
}
