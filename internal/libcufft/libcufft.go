//go:build linux && (amd64 || arm64)

package libcufft

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
)

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
