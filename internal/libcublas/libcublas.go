//go:build linux && (amd64 || arm64)

package libcublas

import (
	"math"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

// typed returns the entry point of family f for precision t.
func (l *Lib) typed(f family, t backend.BLASType) (uintptr, sym, error) {
	if !t.Valid() {
		return 0, 0, &backend.BLASError{Status: backend.BLASInvalidValue, Op: "cublas", Text: backend.BLASStatusText[backend.BLASInvalidValue], Detail: "unknown precision"}
	}
	s := familySyms[f][t]
	p, err := l.fn(s)
	return p, s, err
}

// check turns a cublasStatus_t (a 32-bit enum in a 64-bit register) from s
// into nil or a *BLASError with cuBLAS's text.
func (l *Lib) check(s sym, r uintptr) error {
	code := backend.BLASStatus(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	return &backend.BLASError{Status: code, Op: symEntries[s].Name, Text: l.statusString(code)}
}

func (l *Lib) statusString(s backend.BLASStatus) string {
	p, err := l.fn(symGetStatusString)
	if err != nil {
		return backend.BLASStatusText[s]
	}
	return cString(dl.Call1(p, uintptr(uint32(s))))
}

// cString reads the const char* a call returned.
func cString(r uintptr) string {
	var p unsafe.Pointer
	*(*uintptr)(unsafe.Pointer(&p)) = r
	return cstr.GoString(p)
}

// tooBig is the error of s for sizes beyond cuBLAS's 32-bit int.
func (l *Lib) tooBig(s sym) error {
	return &backend.BLASError{Status: backend.BLASInvalidValue, Op: symEntries[s].Name, Text: backend.BLASStatusText[backend.BLASInvalidValue],
		Detail: "a size, increment or leading dimension beyond 2^31-1 (the 64-bit API is not used)"}
}

// ints reports whether every value fits a C int.
func ints(vs ...int) bool {
	for _, v := range vs {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return false
		}
	}
	return true
}

// scalars holds host-mode scalars (alpha, beta) and host results in the
// routine's representation: two 16-byte slots, 16-byte aligned, since
// cuBLAS reads a cuDoubleComplex (double2, __align__(16)) with aligned
// SSE/NEON loads: an 8-byte-aligned complex128 alpha faults inside
// cublasZaxpy_v2 (SIGSEGV, seen on the H200). A Go stack frame is only 8-byte
// aligned, so the array has a spare word and base picks the aligned start.
// The caller keeps it on its stack (no allocation), converts &sc[o] and
// &sc[o+2] in the call expression (see package dl) and ends with
// runtime.KeepAlive(&sc), so the stores stay and the slot stays its own
// until the C call returns. A stack that grows moves by a multiple of its
// (power-of-two) size, so the alignment base computed holds after a move.
type scalars [6]uint64

// base returns the index of the first 16-byte-aligned word of sc: slot i
// is sc[base+2i : base+2i+2].
func (sc *scalars) base() int { return int(uintptr(unsafe.Pointer(sc))>>3) & 1 }

// set stores s as scalar i of type t, and returns the mask that selects
// its host address in the call (all ones in host mode, 0 in device mode:
// the argument is then s.Ptr | mask&address, computed in the call
// expression).
func (sc *scalars) set(i int, t backend.BLASType, s backend.BLASScalar) uintptr {
	if s.Ptr != 0 {
		return 0
	}
	p := unsafe.Pointer(&sc[sc.base()+2*(i&1)])
	switch t {
	case backend.BLASFloat32:
		*(*float32)(p) = float32(s.Re)
	case backend.BLASFloat64:
		*(*float64)(p) = s.Re
	case backend.BLASComplex64:
		*(*complex64)(p) = complex(float32(s.Re), float32(s.Im))
	default:
		*(*complex128)(p) = complex(s.Re, s.Im)
	}
	return ^uintptr(0)
}

// setData stores s as scalar i of data type t (GemmEx's scale types).
func (sc *scalars) setData(i int, t backend.DataType, s backend.BLASScalar) uintptr {
	if s.Ptr != 0 {
		return 0
	}
	p := unsafe.Pointer(&sc[sc.base()+2*(i&1)])
	switch t {
	case backend.DataR16F:
		*(*uint16)(p) = halfOf(s.Re)
	case backend.DataR64F:
		*(*float64)(p) = s.Re
	case backend.DataR32I:
		*(*int32)(p) = int32(s.Re)
	default:
		*(*float32)(p) = float32(s.Re)
	}
	return ^uintptr(0)
}

// halfOf rounds x to binary16 (to nearest even, through float32: exact
// for the float32 values users pass).
func halfOf(x float64) uint16 {
	f := float32(x)
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	a := math.Abs(float64(f))
	switch {
	case f != f:
		return 0x7e00
	case a >= 65520:
		return sign | 0x7c00
	case a < 0x1p-14: // subnormal: multiples of 2^-24, rounded to even
		return sign | uint16(math.RoundToEven(a*0x1p24))
	}
	e := math.Ilogb(a)
	m := math.RoundToEven(a/math.Ldexp(1, e-10)) - 1024 // 10 mantissa bits
	if m == 1024 {
		m, e = 0, e+1
	}
	return sign | uint16(e+15)<<10 | uint16(m)
}
