package cublas

import (
	"math"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ondevice"
)

// vecLen is the elements a vector of n elements at stride inc spans.
func vecLen(n, inc int) int {
	if n <= 0 {
		return 0
	}
	if inc < 0 {
		inc = -inc
	}
	return 1 + (n-1)*inc
}

// matLen is the elements a column-major rows×cols matrix with leading
// dimension ld spans.
func matLen(rows, cols, ld int) int {
	if rows <= 0 || cols <= 0 {
		return 0
	}
	return (cols-1)*ld + rows
}

// view returns the n elements of size at device address p, for reading
// (write false) or writing.
func view(m ondevice.Memory, p uintptr, n, size int, write bool) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	nb := uintptr(n) * uintptr(size)
	if write {
		return m.Write(p, nb)
	}
	return m.Read(p, nb)
}

func f32s(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func f64s(b []byte) []float64 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), len(b)/8)
}

func c64s(b []byte) []complex64 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*complex64)(unsafe.Pointer(&b[0])), len(b)/8)
}

func c128s(b []byte) []complex128 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*complex128)(unsafe.Pointer(&b[0])), len(b)/16)
}

func u16s(b []byte) []uint16 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
}

// scalar reads a scalar of BLAS type t: its host value, or the value at its
// device pointer.
func scalar(m ondevice.Memory, s backend.BLASScalar, t backend.BLASType) (complex128, error) {
	if s.Ptr == 0 {
		return complex(s.Re, s.Im), nil
	}
	b, err := m.Read(s.Ptr, uintptr(t.Size()))
	if err != nil {
		return 0, err
	}
	switch t {
	case backend.BLASFloat32:
		return complex(float64(f32s(b)[0]), 0), nil
	case backend.BLASFloat64:
		return complex(f64s(b)[0], 0), nil
	case backend.BLASComplex64:
		return complex128(c64s(b)[0]), nil
	}
	return c128s(b)[0], nil
}

// scalarOf reads a scalar of data type t (GemmEx's scale types).
func scalarOf(m ondevice.Memory, s backend.BLASScalar, t backend.DataType) (float64, error) {
	if s.Ptr == 0 {
		if t == backend.DataR16F {
			return float64(f16ToF32(f32ToF16(float32(s.Re)))), nil // the host value is passed as __half
		}
		return s.Re, nil
	}
	b, err := m.Read(s.Ptr, uintptr(t.Size()))
	if err != nil {
		return 0, err
	}
	switch t {
	case backend.DataR16F:
		return float64(f16ToF32(u16s(b)[0])), nil
	case backend.DataR32F:
		return float64(f32s(b)[0]), nil
	}
	return f64s(b)[0], nil
}

// storeResult writes a reduction's result of size bytes to device memory.
func storeResult(m ondevice.Memory, p uintptr, v complex128, t backend.BLASType, asReal bool) error {
	size := t.Size()
	if asReal && t.Complex() {
		size /= 2
	}
	b, err := m.Write(p, uintptr(size))
	if err != nil {
		return err
	}
	switch size {
	case 4:
		*(*float32)(unsafe.Pointer(&b[0])) = float32(real(v))
	case 8:
		if t == backend.BLASComplex64 && !asReal {
			*(*complex64)(unsafe.Pointer(&b[0])) = complex64(v)
		} else {
			*(*float64)(unsafe.Pointer(&b[0])) = real(v)
		}
	case 16:
		*(*complex128)(unsafe.Pointer(&b[0])) = v
	}
	return nil
}

// tf32 rounds x to TF32 (8 exponent bits, 10 mantissa bits), to nearest
// with ties away from zero, as cvt.rna.tf32.f32 does.
func tf32(x float32) float32 {
	b := math.Float32bits(x)
	if b&0x7f800000 == 0x7f800000 {
		return x // Inf and NaN stay
	}
	b += 0x1000
	b &^= 0x1fff
	return math.Float32frombits(b)
}
