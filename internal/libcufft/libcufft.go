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

// sym indexes the cuFFT entry points.
type sym int

const (
	symGetVersion sym = iota
	symCreate
	symDestroy
	symSetAutoAllocation
	symMakePlanMany64
	symGetSize
	symSetWorkArea
	symSetStream
	symExecC2C
	symExecZ2Z
	symExecR2C
	symExecD2Z
	symExecC2R
	symExecZ2D
	numSyms
)

var names = [numSyms]string{
	symGetVersion:        "cufftGetVersion",
	symCreate:            "cufftCreate",
	symDestroy:           "cufftDestroy",
	symSetAutoAllocation: "cufftSetAutoAllocation",
	symMakePlanMany64:    "cufftMakePlanMany64",
	symGetSize:           "cufftGetSize",
	symSetWorkArea:       "cufftSetWorkArea",
	symSetStream:         "cufftSetStream",
	symExecC2C:           "cufftExecC2C",
	symExecZ2Z:           "cufftExecZ2Z",
	symExecR2C:           "cufftExecR2C",
	symExecD2Z:           "cufftExecD2Z",
	symExecC2R:           "cufftExecC2R",
	symExecZ2D:           "cufftExecZ2D",
}

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
	return &Lib{lib: lib, syms: symtab.InLibrary(lib, int(numSyms), func(i int) string { return names[i] })}, nil
}

// Path returns the path of the library opened.
func (l *Lib) Path() string { return l.lib.Path() }

// fn returns the address of entry point s, resolving it on first use.
func (l *Lib) fn(s sym) (uintptr, error) {
	return l.syms.Get(int(s))
}

// check turns a cufftResult (in the low 32 bits) into nil or an *FFTError.
func check(s sym, r uintptr) error {
	code := backend.FFTResult(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	return &backend.FFTError{Result: code, Op: names[s]}
}

// Version is cufftGetVersion(int*).
func (l *Lib) Version() (int, error) {
	p, err := l.fn(symGetVersion)
	if err != nil {
		return 0, err
	}
	var v int32
	r := dl.Call1(p, uintptr(unsafe.Pointer(&v)))
	return int(v), check(symGetVersion, r)
}

// Create is cufftCreate(cufftHandle*).
func (l *Lib) Create() (uintptr, error) {
	p, err := l.fn(symCreate)
	if err != nil {
		return 0, err
	}
	var h int32
	r := dl.Call1(p, uintptr(unsafe.Pointer(&h)))
	if err := check(symCreate, r); err != nil {
		return 0, err
	}
	return uintptr(uint32(h)), nil
}

func (l *Lib) call1(s sym, a1 uintptr) error {
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	return check(s, dl.Call1(p, a1))
}

func (l *Lib) call2(s sym, a1, a2 uintptr) error {
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	return check(s, dl.Call2(p, a1, a2))
}

func (l *Lib) call3(s sym, a1, a2, a3 uintptr) error {
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	return check(s, dl.Call3(p, a1, a2, a3))
}

// Destroy is cufftDestroy(cufftHandle).
func (l *Lib) Destroy(plan uintptr) error { return l.call1(symDestroy, plan) }

// SetAutoAllocation is cufftSetAutoAllocation(cufftHandle, int).
func (l *Lib) SetAutoAllocation(plan uintptr, auto bool) error {
	v := uintptr(0)
	if auto {
		v = 1
	}
	return l.call2(symSetAutoAllocation, plan, v)
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
	if err := check(symMakePlanMany64, r); err != nil {
		return 0, err
	}
	return *ws, nil
}

// GetSize is cufftGetSize(cufftHandle, size_t*).
func (l *Lib) GetSize(plan uintptr) (uintptr, error) {
	p, err := l.fn(symGetSize)
	if err != nil {
		return 0, err
	}
	var ws uintptr
	r := dl.Call2(p, plan, uintptr(unsafe.Pointer(&ws)))
	return ws, check(symGetSize, r)
}

// SetWorkArea is cufftSetWorkArea(cufftHandle, void*).
func (l *Lib) SetWorkArea(plan, area uintptr) error { return l.call2(symSetWorkArea, plan, area) }

// SetStream is cufftSetStream(cufftHandle, cudaStream_t).
func (l *Lib) SetStream(plan, s uintptr) error { return l.call2(symSetStream, plan, s) }

func (l *Lib) exec4(s sym, plan, in, out uintptr, dir backend.FFTDirection) error {
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	return check(s, dl.Call4(p, plan, in, out, uintptr(uint32(int32(dir)))))
}

// ExecC2C is cufftExecC2C(cufftHandle, cufftComplex*, cufftComplex*, int).
func (l *Lib) ExecC2C(plan, in, out uintptr, dir backend.FFTDirection) error {
	return l.exec4(symExecC2C, plan, in, out, dir)
}

// ExecZ2Z is cufftExecZ2Z(cufftHandle, cufftDoubleComplex*, cufftDoubleComplex*, int).
func (l *Lib) ExecZ2Z(plan, in, out uintptr, dir backend.FFTDirection) error {
	return l.exec4(symExecZ2Z, plan, in, out, dir)
}

// ExecR2C is cufftExecR2C(cufftHandle, cufftReal*, cufftComplex*).
func (l *Lib) ExecR2C(plan, in, out uintptr) error { return l.call3(symExecR2C, plan, in, out) }

// ExecD2Z is cufftExecD2Z(cufftHandle, cufftDoubleReal*, cufftDoubleComplex*).
func (l *Lib) ExecD2Z(plan, in, out uintptr) error { return l.call3(symExecD2Z, plan, in, out) }

// ExecC2R is cufftExecC2R(cufftHandle, cufftComplex*, cufftReal*).
func (l *Lib) ExecC2R(plan, in, out uintptr) error { return l.call3(symExecC2R, plan, in, out) }

// ExecZ2D is cufftExecZ2D(cufftHandle, cufftDoubleComplex*, cufftDoubleReal*).
func (l *Lib) ExecZ2D(plan, in, out uintptr) error { return l.call3(symExecZ2D, plan, in, out) }
