//go:build linux && (amd64 || arm64)

package libcufft

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/internal/symtab"
	"github.com/nocgo/cuda/loader"
)

// Lib is the real cuFFT: libcufft through internal/dl.
type Lib struct {
	lib  *loader.Library
	syms *symtab.Table // the entry points, resolved on first use
}

var _ backend.CUFFT = (*Lib)(nil)

// Open opens libcufft through package loader.
func Open() (*Lib, error) {
	lib, err := loader.Open(loader.CUFFT)
	if err != nil {
		return nil, err
	}
	return &Lib{lib: lib, syms: symtab.InLibrary(lib, symEntries[:], nil)}, nil
}

// Path returns the path of the library opened.
func (l *Lib) Path() string { return l.lib.Path() }

// fn returns the address of entry point s, resolving it on first use.
func (l *Lib) fn(s sym) (uintptr, error) {
	return l.syms.Get(int(s))
}

// check turns a cufftResult (in the low 32 bits) from s into nil or an
// *FFTError.
func (l *Lib) check(s sym, r uintptr) error {
	code := backend.FFTResult(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	return &backend.FFTError{Result: code, Op: symEntries[s].Name}
}

func sliceAddr(s []int64) uintptr {
	if len(s) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(s)))
}

// MakePlanMany is cufftMakePlanMany64(cufftHandle, int rank, long long* n,
// long long* inembed, long long istride, long long idist, long long*
// onembed, long long ostride, long long odist, cufftType, long long batch,
// size_t* workSize).
func (l *Lib) MakePlanMany(plan uintptr, pl *backend.FFTPlan) (uintptr, error) {
	p, err := l.fn(symMakePlanMany64)
	if err != nil {
		return 0, err
	}
	n := append([]int64(nil), pl.N...) // heap copies: cuFFT reads them during the call
	in := append([]int64(nil), pl.InEmbed...)
	out := append([]int64(nil), pl.OutEmbed...)
	ws := new(uintptr)
	np, ip, op := sliceAddr(n), sliceAddr(in), sliceAddr(out)
	r := dl.Call12(p, plan, uintptr(len(n)), np, ip, uintptr(pl.IStride), uintptr(pl.IDist),
		op, uintptr(pl.OStride), uintptr(pl.ODist), uintptr(pl.Type), uintptr(pl.Batch), uintptr(unsafe.Pointer(ws)))
	runtime.KeepAlive(n)
	runtime.KeepAlive(in)
	runtime.KeepAlive(out)
	runtime.KeepAlive(ws)
	if err := l.check(symMakePlanMany64, r); err != nil {
		return 0, err
	}
	return *ws, nil
}
