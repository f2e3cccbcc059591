package cublas

import (
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// The level-1 routines work on vectors (see Vector). Those with two
// vectors need the same N in both. They queue their work on the handle's
// stream and return; the reductions (Dot, Nrm2, Asum, Iamax) in
// HostPointers mode wait for the stream to reach them and return the
// result, and their To forms, in DevicePointers mode, write it to a
// device buffer without waiting (and may be captured into a graph).

func pair[T Elem](h *Handle, op string, x, y Vector[T]) error {
	if err := vector(h, op, "x", x); err != nil {
		return err
	}
	if err := vector(h, op, "y", y); err != nil {
		return err
	}
	if x.N != y.N {
		return invalidf(op, "x has %d elements, y %d", x.N, y.N)
	}
	return nil
}

// Axpy is y = alpha*x + y (cublas?axpy).
func Axpy[T Elem](h *Handle, alpha Scalar[T], x, y Vector[T]) error {
	const op = "cublas.Axpy"
	c, err := h.enter(op)
	if err != nil {
		return err
	}
	if err = pair(h, op, x, y); err == nil {
		a, serr := scalar(h, op, "alpha", alpha)
		if err = serr; err == nil && x.N > 0 {
			err = h.blas.Axpy(h.h, blasType[T](), x.N, a, x.Buf.Ptr(), x.Inc, y.Buf.Ptr(), y.Inc)
		}
	}
	return c.leave(op, err)
}

// Scal is x = alpha*x (cublas?scal).
func Scal[T Elem](h *Handle, alpha Scalar[T], x Vector[T]) error {
	const op = "cublas.Scal"
	c, err := h.enter(op)
	if err != nil {
		return err
	}
	if err = vector(h, op, "x", x); err == nil {
		a, serr := scalar(h, op, "alpha", alpha)
		if err = serr; err == nil && x.N > 0 {
			err = h.blas.Scal(h.h, blasType[T](), x.N, a, x.Buf.Ptr(), x.Inc)
		}
	}
	return c.leave(op, err)
}

// Copy is y = x (cublas?copy).
func Copy[T Elem](h *Handle, x, y Vector[T]) error {
	const op = "cublas.Copy"
	c, err := h.enter(op)
	if err != nil {
		return err
	}
	if err = pair(h, op, x, y); err == nil && x.N > 0 {
		err = h.blas.Copy(h.h, blasType[T](), x.N, x.Buf.Ptr(), x.Inc, y.Buf.Ptr(), y.Inc)
	}
	return c.leave(op, err)
}

// Swap exchanges x and y (cublas?swap).
func Swap[T Elem](h *Handle, x, y Vector[T]) error {
	const op = "cublas.Swap"
	c, err := h.enter(op)
	if err != nil {
		return err
	}
	if err = pair(h, op, x, y); err == nil && x.N > 0 {
		err = h.blas.Swap(h.h, blasType[T](), x.N, x.Buf.Ptr(), x.Inc, y.Buf.Ptr(), y.Inc)
	}
	return c.leave(op, err)
}

// Dot returns x·y, Σ x[i]*y[i] (cublas?dot; cublas?dotu for complex),
// waiting for it; the handle is in HostPointers mode.
func Dot[T Elem](h *Handle, x, y Vector[T]) (T, error) { return dot(h, "cublas.Dot", false, x, y) }

// Dotc returns Σ conj(x[i])*y[i] (cublas?dotc; Dot for real types).
func Dotc[T Elem](h *Handle, x, y Vector[T]) (T, error) { return dot(h, "cublas.Dotc", true, x, y) }

func dot[T Elem](h *Handle, op string, conj bool, x, y Vector[T]) (T, error) {
	c, err := h.enter(op)
	if err != nil {
		return 0, err
	}
	var v complex128
	if err = pair(h, op, x, y); err == nil {
		if err = hostMode(h, op); err == nil {
			v, err = h.blas.Dot(h.h, blasType[T](), conj, x.N, x.Buf.Ptr(), x.Inc, y.Buf.Ptr(), y.Inc, 0)
		}
	}
	return fromComplex[T](v), c.leave(op, err)
}

// DotTo writes x·y to result's first element without waiting; the handle
// is in DevicePointers mode.
func DotTo[T Elem](h *Handle, x, y Vector[T], result *memory.Buffer[T]) error {
	return dotTo(h, "cublas.DotTo", false, x, y, result)
}

// DotcTo writes Σ conj(x[i])*y[i] to result's first element.
func DotcTo[T Elem](h *Handle, x, y Vector[T], result *memory.Buffer[T]) error {
	return dotTo(h, "cublas.DotcTo", true, x, y, result)
}

func dotTo[T Elem](h *Handle, op string, conj bool, x, y Vector[T], result *memory.Buffer[T]) error {
	c, err := h.enter(op)
	if err != nil {
		return err
	}
	if err = pair(h, op, x, y); err == nil {
		if err = resultBuf(h, op, result); err == nil {
			_, err = h.blas.Dot(h.h, blasType[T](), conj, x.N, x.Buf.Ptr(), x.Inc, y.Buf.Ptr(), y.Inc, result.Ptr())
		}
	}
	return c.leave(op, err)
}

func fromComplex[T Elem](v complex128) T {
	var out T
	switch p := any(&out).(type) {
	case *float32:
		*p = float32(real(v))
	case *float64:
		*p = real(v)
	case *complex64:
		*p = complex64(v)
	case *complex128:
		*p = v
	}
	return out
}

// Nrm2 returns the Euclidean norm of x, √Σ|x[i]|² (cublas?nrm2,
// cublasScnrm2, cublasDznrm2), waiting for it.
func Nrm2[T Elem](h *Handle, x Vector[T]) (float64, error) {
	return realReduce(h, "cublas.Nrm2", x, nil, false)
}

// Nrm2To writes the norm of x to result's first element without waiting;
// for complex T to its real part, the imaginary part left as it was (as
// cuBLAS writes a real number there).
func Nrm2To[T Elem](h *Handle, x Vector[T], result *memory.Buffer[T]) error {
	_, err := realReduce(h, "cublas.Nrm2To", x, result, false)
	return err
}

// Asum returns Σ |Re x[i]| + |Im x[i]| (cublas?asum, cublasScasum,
// cublasDzasum), waiting for it.
func Asum[T Elem](h *Handle, x Vector[T]) (float64, error) {
	return realReduce(h, "cublas.Asum", x, nil, true)
}

// AsumTo writes the sum to result's first element (its real part for
// complex T) without waiting.
func AsumTo[T Elem](h *Handle, x Vector[T], result *memory.Buffer[T]) error {
	_, err := realReduce(h, "cublas.AsumTo", x, result, true)
	return err
}

// reduce is Nrm2 (asum false) or Asum into r (0: to the host).
func (h *Handle) reduce(asum bool, t backend.BLASType, n int, x uintptr, inc int, r uintptr) (float64, error) {
	if asum {
		return h.blas.Asum(h.h, t, n, x, inc, r)
	}
	return h.blas.Nrm2(h.h, t, n, x, inc, r)
}

func realReduce[T Elem](h *Handle, op string, x Vector[T], result *memory.Buffer[T], asum bool) (float64, error) {
	c, err := h.enter(op)
	if err != nil {
		return 0, err
	}
	var v float64
	if err = vector(h, op, "x", x); err == nil {
		if result == nil {
			if err = hostMode(h, op); err == nil {
				v, err = h.reduce(asum, blasType[T](), x.N, x.Buf.Ptr(), x.Inc, 0)
			}
		} else if err = resultBuf(h, op, result); err == nil {
			_, err = h.reduce(asum, blasType[T](), x.N, x.Buf.Ptr(), x.Inc, result.Ptr())
		}
	}
	return v, c.leave(op, err)
}

// Iamax returns the index (from 0) of the first element of x of largest
// |Re x[i]| + |Im x[i]| (cublasI?amax, which counts from 1), -1 for an
// empty x, waiting for it.
func Iamax[T Elem](h *Handle, x Vector[T]) (int, error) {
	const op = "cublas.Iamax"
	c, err := h.enter(op)
	if err != nil {
		return 0, err
	}
	var i int
	if err = vector(h, op, "x", x); err == nil {
		if err = hostMode(h, op); err == nil {
			i, err = h.blas.Iamax(h.h, blasType[T](), x.N, x.Buf.Ptr(), x.Inc, 0)
		}
	}
	return i - 1, c.leave(op, err)
}

// IamaxTo writes cuBLAS's index of the largest element of x, counting from
// 1 (0 for an empty x), to result's first element without waiting.
func IamaxTo[T Elem](h *Handle, x Vector[T], result *memory.Buffer[int32]) error {
	const op = "cublas.IamaxTo"
	c, err := h.enter(op)
	if err != nil {
		return err
	}
	if err = vector(h, op, "x", x); err == nil {
		if err = resultBuf(h, op, result); err == nil {
			_, err = h.blas.Iamax(h.h, blasType[T](), x.N, x.Buf.Ptr(), x.Inc, result.Ptr())
		}
	}
	return c.leave(op, err)
}
