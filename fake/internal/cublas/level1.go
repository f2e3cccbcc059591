package cublas

import (
	"fmt"

	"gonum.org/v1/gonum/blas/gonum"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ondevice"
)

var impl gonum.Implementation

// names holds each routine's entry point per precision, as cuBLAS names
// them (for errors).
func name(base string, t backend.BLASType, suffix string) string {
	p := "SDCZ"
	if !t.Valid() {
		return "cublas?" + base + suffix
	}
	return "cublas" + p[t:t+1] + base + suffix
}

// guard runs work, turning a panic in the numerics into a failed launch.
func guard(work func(m ondevice.Memory) error) func(m ondevice.Memory) error {
	return func(m ondevice.Memory) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("cublas (fake): %v: %w", r, backend.ErrLaunchFailed)
			}
		}()
		return work(m)
	}
}

// level1 checks a level-1 call: the handle, the type and the scalars.
func (b *BLAS) level1(op string, h uintptr, t backend.BLASType, ss ...backend.BLASScalar) (handle, error) {
	st, err := b.get(op, h)
	if err != nil {
		return st, err
	}
	if !t.Valid() {
		return st, invalid(op, "type %d", t)
	}
	return st, st.scalars(op, ss...)
}

func (b *BLAS) Axpy(h uintptr, t backend.BLASType, n int, alpha backend.BLASScalar, x uintptr, incx int, y uintptr, incy int) error {
	op := name("axpy", t, "_v2")
	st, err := b.level1(op, h, t, alpha)
	if err != nil || n <= 0 {
		return err
	}
	return b.enqueue(op, st, guard(func(m ondevice.Memory) error {
		a, err := scalar(m, alpha, t)
		if err != nil {
			return err
		}
		xs, err := view(m, x, vecLen(n, incx), t.Size(), false)
		if err != nil {
			return err
		}
		ys, err := view(m, y, vecLen(n, incy), t.Size(), true)
		if err != nil {
			return err
		}
		switch t {
		case backend.BLASFloat32:
			impl.Saxpy(n, float32(real(a)), f32s(xs), incx, f32s(ys), incy)
		case backend.BLASFloat64:
			impl.Daxpy(n, real(a), f64s(xs), incx, f64s(ys), incy)
		case backend.BLASComplex64:
			impl.Caxpy(n, complex64(a), c64s(xs), incx, c64s(ys), incy)
		default:
			impl.Zaxpy(n, a, c128s(xs), incx, c128s(ys), incy)
		}
		return nil
	}))
}

func (b *BLAS) Scal(h uintptr, t backend.BLASType, n int, alpha backend.BLASScalar, x uintptr, incx int) error {
	op := name("scal", t, "_v2")
	st, err := b.level1(op, h, t, alpha)
	if err != nil || n <= 0 || incx <= 0 {
		return err
	}
	return b.enqueue(op, st, guard(func(m ondevice.Memory) error {
		a, err := scalar(m, alpha, t)
		if err != nil {
			return err
		}
		xs, err := view(m, x, vecLen(n, incx), t.Size(), true)
		if err != nil {
			return err
		}
		switch t {
		case backend.BLASFloat32:
			impl.Sscal(n, float32(real(a)), f32s(xs), incx)
		case backend.BLASFloat64:
			impl.Dscal(n, real(a), f64s(xs), incx)
		case backend.BLASComplex64:
			impl.Cscal(n, complex64(a), c64s(xs), incx)
		default:
			impl.Zscal(n, a, c128s(xs), incx)
		}
		return nil
	}))
}

func (b *BLAS) Copy(h uintptr, t backend.BLASType, n int, x uintptr, incx int, y uintptr, incy int) error {
	return b.copySwap(name("copy", t, "_v2"), h, t, n, x, incx, y, incy, false)
}

func (b *BLAS) Swap(h uintptr, t backend.BLASType, n int, x uintptr, incx int, y uintptr, incy int) error {
	return b.copySwap(name("swap", t, "_v2"), h, t, n, x, incx, y, incy, true)
}

func (b *BLAS) copySwap(op string, h uintptr, t backend.BLASType, n int, x uintptr, incx int, y uintptr, incy int, swap bool) error {
	st, err := b.level1(op, h, t)
	if err != nil || n <= 0 {
		return err
	}
	return b.enqueue(op, st, guard(func(m ondevice.Memory) error {
		xs, err := view(m, x, vecLen(n, incx), t.Size(), swap)
		if err != nil {
			return err
		}
		ys, err := view(m, y, vecLen(n, incy), t.Size(), true)
		if err != nil {
			return err
		}
		switch {
		case t == backend.BLASFloat32 && swap:
			impl.Sswap(n, f32s(xs), incx, f32s(ys), incy)
		case t == backend.BLASFloat32:
			impl.Scopy(n, f32s(xs), incx, f32s(ys), incy)
		case t == backend.BLASFloat64 && swap:
			impl.Dswap(n, f64s(xs), incx, f64s(ys), incy)
		case t == backend.BLASFloat64:
			impl.Dcopy(n, f64s(xs), incx, f64s(ys), incy)
		case t == backend.BLASComplex64 && swap:
			impl.Cswap(n, c64s(xs), incx, c64s(ys), incy)
		case t == backend.BLASComplex64:
			impl.Ccopy(n, c64s(xs), incx, c64s(ys), incy)
		case swap:
			impl.Zswap(n, c128s(xs), incx, c128s(ys), incy)
		default:
			impl.Zcopy(n, c128s(xs), incx, c128s(ys), incy)
		}
		return nil
	}))
}

// reduce runs a reduction: compute reads the memory and returns the
// value, which goes to result (device mode) or is returned (host mode).
func (b *BLAS) reduce(op string, h uintptr, t backend.BLASType, n int, result uintptr, asReal bool,
	compute func(m ondevice.Memory) (complex128, error)) (complex128, error) {
	st, err := b.level1(op, h, t)
	if err != nil {
		return 0, err
	}
	if (st.ptr == backend.BLASPointerDevice) != (result != 0) {
		return 0, invalid(op, "result %#x does not match the handle's pointer mode (%d)", result, st.ptr)
	}
	if n <= 0 {
		compute = func(ondevice.Memory) (complex128, error) { return 0, nil }
	}
	if result != 0 {
		return 0, b.enqueue(op, st, guard(func(m ondevice.Memory) error {
			v, err := compute(m)
			if err != nil {
				return err
			}
			return storeResult(m, result, v, t, asReal)
		}))
	}
	var v complex128
	err = b.hostResult(op, st, guard(func(m ondevice.Memory) error {
		var err error
		v, err = compute(m)
		return err
	}))
	return v, err
}

func (b *BLAS) Dot(h uintptr, t backend.BLASType, conj bool, n int, x uintptr, incx int, y uintptr, incy int, result uintptr) (complex128, error) {
	base := "dot"
	if t.Complex() {
		base = "dotu"
		if conj {
			base = "dotc"
		}
	}
	op := name(base, t, "_v2")
	return b.reduce(op, h, t, n, result, false, func(m ondevice.Memory) (complex128, error) {
		xs, err := view(m, x, vecLen(n, incx), t.Size(), false)
		if err != nil {
			return 0, err
		}
		ys, err := view(m, y, vecLen(n, incy), t.Size(), false)
		if err != nil {
			return 0, err
		}
		switch {
		case t == backend.BLASFloat32:
			return complex(float64(impl.Sdot(n, f32s(xs), incx, f32s(ys), incy)), 0), nil
		case t == backend.BLASFloat64:
			return complex(impl.Ddot(n, f64s(xs), incx, f64s(ys), incy), 0), nil
		case t == backend.BLASComplex64 && conj:
			return complex128(impl.Cdotc(n, c64s(xs), incx, c64s(ys), incy)), nil
		case t == backend.BLASComplex64:
			return complex128(impl.Cdotu(n, c64s(xs), incx, c64s(ys), incy)), nil
		case conj:
			return impl.Zdotc(n, c128s(xs), incx, c128s(ys), incy), nil
		}
		return impl.Zdotu(n, c128s(xs), incx, c128s(ys), incy), nil
	})
}

// realName is the entry point of a reduction to a real number: cublasSnrm2,
// cublasScnrm2, cublasDznrm2 and the like.
func realName(base string, t backend.BLASType) string {
	switch t {
	case backend.BLASComplex64:
		return "cublasSc" + base + "_v2"
	case backend.BLASComplex128:
		return "cublasDz" + base + "_v2"
	}
	return name(base, t, "_v2")
}

func (b *BLAS) Nrm2(h uintptr, t backend.BLASType, n int, x uintptr, incx int, result uintptr) (float64, error) {
	v, err := b.reduce(realName("nrm2", t), h, t, n, result, true, func(m ondevice.Memory) (complex128, error) {
		xs, err := view(m, x, vecLen(n, incx), t.Size(), false)
		if err != nil || incx <= 0 {
			return 0, err
		}
		switch t {
		case backend.BLASFloat32:
			return complex(float64(impl.Snrm2(n, f32s(xs), incx)), 0), nil
		case backend.BLASFloat64:
			return complex(impl.Dnrm2(n, f64s(xs), incx), 0), nil
		case backend.BLASComplex64:
			return complex(float64(impl.Scnrm2(n, c64s(xs), incx)), 0), nil
		}
		return complex(impl.Dznrm2(n, c128s(xs), incx), 0), nil
	})
	return real(v), err
}

func (b *BLAS) Asum(h uintptr, t backend.BLASType, n int, x uintptr, incx int, result uintptr) (float64, error) {
	v, err := b.reduce(realName("asum", t), h, t, n, result, true, func(m ondevice.Memory) (complex128, error) {
		xs, err := view(m, x, vecLen(n, incx), t.Size(), false)
		if err != nil || incx <= 0 {
			return 0, err
		}
		switch t {
		case backend.BLASFloat32:
			return complex(float64(impl.Sasum(n, f32s(xs), incx)), 0), nil
		case backend.BLASFloat64:
			return complex(impl.Dasum(n, f64s(xs), incx), 0), nil
		case backend.BLASComplex64:
			return complex(float64(impl.Scasum(n, c64s(xs), incx)), 0), nil
		}
		return complex(impl.Dzasum(n, c128s(xs), incx), 0), nil
	})
	return real(v), err
}

func (b *BLAS) Iamax(h uintptr, t backend.BLASType, n int, x uintptr, incx int, result uintptr) (int, error) {
	op := "cublasI" + "sdcz"[max(0, min(int(t), 3)):][:1] + "amax_v2"
	// The result is a C int, written as such in device mode.
	st, err := b.level1(op, h, t)
	if err != nil {
		return 0, err
	}
	if (st.ptr == backend.BLASPointerDevice) != (result != 0) {
		return 0, invalid(op, "result %#x does not match the handle's pointer mode (%d)", result, st.ptr)
	}
	var idx int
	compute := guard(func(m ondevice.Memory) error {
		idx = 0
		if n > 0 && incx > 0 {
			xs, err := view(m, x, vecLen(n, incx), t.Size(), false)
			if err != nil {
				return err
			}
			switch t {
			case backend.BLASFloat32:
				idx = impl.Isamax(n, f32s(xs), incx) + 1
			case backend.BLASFloat64:
				idx = impl.Idamax(n, f64s(xs), incx) + 1
			case backend.BLASComplex64:
				idx = impl.Icamax(n, c64s(xs), incx) + 1
			default:
				idx = impl.Izamax(n, c128s(xs), incx) + 1
			}
		}
		if result == 0 {
			return nil
		}
		out, err := m.Write(result, 4)
		if err != nil {
			return err
		}
		v := int32(idx)
		out[0], out[1], out[2], out[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		return nil
	})
	if result != 0 {
		return 0, b.enqueue(op, st, compute)
	}
	err = b.hostResult(op, st, compute)
	return idx, err
}
