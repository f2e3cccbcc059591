package cublas

import (
	"gonum.org/v1/gonum/blas"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ondevice"
)

// gonumOp is op for gonum, which is row-major: the same operation applies
// to the transposes (see the package documentation).
func gonumOp(op backend.BLASOp) blas.Transpose {
	switch op {
	case backend.BLASOpT:
		return blas.Trans
	case backend.BLASOpC:
		return blas.ConjTrans
	}
	return blas.NoTrans
}

func validOp(op backend.BLASOp) bool {
	return op == backend.BLASOpN || op == backend.BLASOpT || op == backend.BLASOpC
}

// dims returns the rows and columns of a matrix stored for op to give a
// rows×cols operand.
func dims(op backend.BLASOp, rows, cols int) (int, int) {
	if op == backend.BLASOpN {
		return rows, cols
	}
	return cols, rows
}

func (b *BLAS) Gemv(h uintptr, t backend.BLASType, trans backend.BLASOp, m, n int, alpha backend.BLASScalar, a uintptr, lda int,
	x uintptr, incx int, beta backend.BLASScalar, y uintptr, incy int) error {
	op := name("gemv", t, "_v2")
	st, err := b.level1(op, h, t, alpha, beta)
	if err != nil {
		return err
	}
	switch {
	case !validOp(trans):
		return invalid(op, "trans %d", trans)
	case m < 0 || n < 0:
		return invalid(op, "m %d, n %d", m, n)
	case lda < max(1, m):
		return invalid(op, "lda %d < max(1, m) = %d", lda, max(1, m))
	case incx == 0 || incy == 0:
		return invalid(op, "incx %d, incy %d", incx, incy)
	}
	if m == 0 || n == 0 {
		return nil
	}
	xn, yn := n, m // y = op(A) x: x has op(A)'s columns
	if trans != backend.BLASOpN {
		xn, yn = m, n
	}
	return b.enqueue(op, st, guard(func(mem ondevice.Memory) error {
		al, err := scalar(mem, alpha, t)
		if err != nil {
			return err
		}
		be, err := scalar(mem, beta, t)
		if err != nil {
			return err
		}
		as, err := view(mem, a, matLen(m, n, lda), t.Size(), false)
		if err != nil {
			return err
		}
		xs, err := view(mem, x, vecLen(xn, incx), t.Size(), false)
		if err != nil {
			return err
		}
		ys, err := view(mem, y, vecLen(yn, incy), t.Size(), true)
		if err != nil {
			return err
		}
		// A (m×n, column-major) is Aᵀ (n×m) to gonum: y = A x is
		// gonum's Trans, y = Aᵀx its NoTrans.
		gt := blas.Trans
		if trans != backend.BLASOpN {
			gt = blas.NoTrans
		}
		switch t {
		case backend.BLASFloat32:
			impl.Sgemv(gt, n, m, float32(real(al)), f32s(as), lda, f32s(xs), incx, float32(real(be)), f32s(ys), incy)
		case backend.BLASFloat64:
			impl.Dgemv(gt, n, m, real(al), f64s(as), lda, f64s(xs), incx, real(be), f64s(ys), incy)
		case backend.BLASComplex64:
			if trans == backend.BLASOpC {
				conjGemv(m, n, complex64(al), c64s(as), lda, c64s(xs), incx, complex64(be), c64s(ys), incy)
			} else {
				impl.Cgemv(gt, n, m, complex64(al), c64s(as), lda, c64s(xs), incx, complex64(be), c64s(ys), incy)
			}
		default:
			if trans == backend.BLASOpC {
				conjGemv(m, n, al, c128s(as), lda, c128s(xs), incx, be, c128s(ys), incy)
			} else {
				impl.Zgemv(gt, n, m, al, c128s(as), lda, c128s(xs), incx, be, c128s(ys), incy)
			}
		}
		return nil
	}))
}

// conjGemv is y = alpha*Aᴴx + beta*y for a column-major m×n A, which
// gonum's row-major Gemv cannot express (it would be the conjugate of its
// matrix, untransposed).
func conjGemv[E complex64 | complex128](m, n int, alpha E, a []E, lda int, x []E, incx int, beta E, y []E, incy int) {
	kx, ky := 0, 0
	if incx < 0 {
		kx = (m - 1) * -incx
	}
	if incy < 0 {
		ky = (n - 1) * -incy
	}
	for i := range n {
		var s E
		for j := range m {
			v := a[j+i*lda]
			s += conjOf(v) * x[kx+j*incx]
		}
		yi := &y[ky+i*incy]
		if beta == 0 {
			*yi = alpha * s
		} else {
			*yi = alpha*s + beta**yi
		}
	}
}

func conjOf[E complex64 | complex128](v E) E {
	switch w := any(v).(type) {
	case complex64:
		return any(complex(real(w), -imag(w))).(E)
	case complex128:
		return any(complex(real(w), -imag(w))).(E)
	}
	return v
}

func (b *BLAS) Geam(h uintptr, t backend.BLASType, ta, tb backend.BLASOp, m, n int, alpha backend.BLASScalar, a uintptr, lda int,
	beta backend.BLASScalar, bp uintptr, ldb int, c uintptr, ldc int) error {
	op := name("geam", t, "")
	st, err := b.level1(op, h, t, alpha, beta)
	if err != nil {
		return err
	}
	ar, ac := dims(ta, m, n)
	br, bc := dims(tb, m, n)
	switch {
	case !validOp(ta) || !validOp(tb):
		return invalid(op, "transa %d, transb %d", ta, tb)
	case m < 0 || n < 0:
		return invalid(op, "m %d, n %d", m, n)
	case lda < max(1, ar):
		return invalid(op, "lda %d < max(1, %d)", lda, ar)
	case ldb < max(1, br):
		return invalid(op, "ldb %d < max(1, %d)", ldb, br)
	case ldc < max(1, m):
		return invalid(op, "ldc %d < max(1, m) = %d", ldc, max(1, m))
	case c == a && (ta != backend.BLASOpN || lda != ldc):
		return invalid(op, "in place (C = A) needs transa N and lda = ldc")
	case c == bp && (tb != backend.BLASOpN || ldb != ldc):
		return invalid(op, "in place (C = B) needs transb N and ldb = ldc")
	}
	if m == 0 || n == 0 {
		return nil
	}
	return b.enqueue(op, st, guard(func(mem ondevice.Memory) error {
		al, err := scalar(mem, alpha, t)
		if err != nil {
			return err
		}
		be, err := scalar(mem, beta, t)
		if err != nil {
			return err
		}
		var as, bs []byte // a zero scalar's matrix is not read (it may be NULL)
		if al != 0 {
			if as, err = view(mem, a, matLen(ar, ac, lda), t.Size(), false); err != nil {
				return err
			}
		}
		if be != 0 {
			if bs, err = view(mem, bp, matLen(br, bc, ldb), t.Size(), false); err != nil {
				return err
			}
		}
		cs, err := view(mem, c, matLen(m, n, ldc), t.Size(), true)
		if err != nil {
			return err
		}
		switch t {
		case backend.BLASFloat32:
			geam(ta, tb, m, n, float32(real(al)), f32s(as), lda, float32(real(be)), f32s(bs), ldb, f32s(cs), ldc)
		case backend.BLASFloat64:
			geam(ta, tb, m, n, real(al), f64s(as), lda, real(be), f64s(bs), ldb, f64s(cs), ldc)
		case backend.BLASComplex64:
			geam(ta, tb, m, n, complex64(al), c64s(as), lda, complex64(be), c64s(bs), ldb, c64s(cs), ldc)
		default:
			geam(ta, tb, m, n, al, c128s(as), lda, be, c128s(bs), ldb, c128s(cs), ldc)
		}
		return nil
	}))
}

// elem reads element (i, j) of op(X) for a column-major X with leading
// dimension ld.
func elem[E float32 | float64 | complex64 | complex128](op backend.BLASOp, x []E, ld, i, j int) E {
	switch op {
	case backend.BLASOpN:
		return x[i+j*ld]
	case backend.BLASOpT:
		return x[j+i*ld]
	}
	v := x[j+i*ld]
	switch w := any(v).(type) {
	case complex64:
		return any(complex(real(w), -imag(w))).(E)
	case complex128:
		return any(complex(real(w), -imag(w))).(E)
	}
	return v
}

// geam is C = alpha*op(A) + beta*op(B), column by column; a scalar of zero
// does not read its matrix (as cuBLAS, which lets it be NULL). In place
// (C = A or C = B with op N) every element is read before it is written.
func geam[E float32 | float64 | complex64 | complex128](ta, tb backend.BLASOp, m, n int, alpha E, a []E, lda int, beta E, bs []E, ldb int, c []E, ldc int) {
	for j := range n {
		for i := range m {
			var v E
			if alpha != 0 {
				v = alpha * elem(ta, a, lda, i, j)
			}
			if beta != 0 {
				v += beta * elem(tb, bs, ldb, i, j)
			}
			c[i+j*ldc] = v
		}
	}
}
