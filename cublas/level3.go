package cublas

import (
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// Gemv is y = alpha*op(A)*x + beta*y (cublas?gemv): op(A) is
// y.N × x.N.
func Gemv[T Elem](h *Handle, alpha Scalar[T], a Matrix[T], x Vector[T], beta Scalar[T], y Vector[T]) error {
	const op = "cublas.Gemv"
	c, err := h.enter(op)
	if err != nil {
		return err
	}
	err = func() error {
		if err := matrix(h, op, "A", a); err != nil {
			return err
		}
		if err := vector(h, op, "x", x); err != nil {
			return err
		}
		if err := vector(h, op, "y", y); err != nil {
			return err
		}
		if r, k := a.shape(); r != y.N || k != x.N {
			return invalidf(op, "op(A) is %d×%d; x has %d elements, y %d", r, k, x.N, y.N)
		}
		al, be, err := scalars(h, op, alpha, beta)
		if err != nil || a.Rows == 0 || a.Cols == 0 {
			return err
		}
		return h.blas.Gemv(h.h, blasType[T](), backend.BLASOp(a.Op), a.Rows, a.Cols, al, a.Buf.Ptr(), a.LD,
			x.Buf.Ptr(), x.Inc, be, y.Buf.Ptr(), y.Inc)
	}()
	return c.leave(op, err)
}

func scalars[T Elem](h *Handle, op string, alpha, beta Scalar[T]) (backend.BLASScalar, backend.BLASScalar, error) {
	al, err := scalar(h, op, "alpha", alpha)
	if err != nil {
		return al, al, err
	}
	be, err := scalar(h, op, "beta", beta)
	return al, be, err
}

// output checks C, the result of a matrix routine: used as stored.
func output[T any](h *Handle, op string, c Matrix[T]) error {
	if err := matrix(h, op, "C", c); err != nil {
		return err
	}
	if c.Op != NoTrans {
		return invalidf(op, "C is written as stored: its Op must be NoTrans, not %v", c.Op)
	}
	return nil
}

// Geam is C = alpha*op(A) + beta*op(B) (cublas?geam), all m×n: a
// transpose, a sum or a scaled copy of matrices. C may be A (or B) itself
// when that one is used as stored with C's LD (in place); otherwise the
// three must not overlap.
func Geam[T Elem](h *Handle, alpha Scalar[T], a Matrix[T], beta Scalar[T], b Matrix[T], c Matrix[T]) error {
	const op = "cublas.Geam"
	cl, err := h.enter(op)
	if err != nil {
		return err
	}
	err = func() error {
		if err := matrix(h, op, "A", a); err != nil {
			return err
		}
		if err := matrix(h, op, "B", b); err != nil {
			return err
		}
		if err := output(h, op, c); err != nil {
			return err
		}
		ar, ac := a.shape()
		br, bc := b.shape()
		if ar != c.Rows || ac != c.Cols || br != c.Rows || bc != c.Cols {
			return invalidf(op, "op(A) %d×%d, op(B) %d×%d, C %d×%d", ar, ac, br, bc, c.Rows, c.Cols)
		}
		if c.Buf.Ptr() == a.Buf.Ptr() && (a.Op != NoTrans || a.LD != c.LD) {
			return invalidf(op, "C is A: in place needs A as stored (NoTrans) with C's LD")
		}
		if c.Buf.Ptr() == b.Buf.Ptr() && (b.Op != NoTrans || b.LD != c.LD) {
			return invalidf(op, "C is B: in place needs B as stored (NoTrans) with C's LD")
		}
		al, be, err := scalars(h, op, alpha, beta)
		if err != nil || c.Rows == 0 || c.Cols == 0 {
			return err
		}
		return h.blas.Geam(h.h, blasType[T](), backend.BLASOp(a.Op), backend.BLASOp(b.Op), c.Rows, c.Cols,
			al, a.Buf.Ptr(), a.LD, be, b.Buf.Ptr(), b.LD, c.Buf.Ptr(), c.LD)
	}()
	return cl.leave(op, err)
}

// gemmShape checks A, B and C of a product and returns m, n, k.
func gemmShape[A, C any](h *Handle, op string, a, b Matrix[A], c Matrix[C]) (m, n, k int, err error) {
	if err := matrix(h, op, "A", a); err != nil {
		return 0, 0, 0, err
	}
	if err := matrix(h, op, "B", b); err != nil {
		return 0, 0, 0, err
	}
	if err := output(h, op, c); err != nil {
		return 0, 0, 0, err
	}
	m, k = a.shape()
	bk, bn := b.shape()
	if m != c.Rows || bk != k || bn != c.Cols {
		return 0, 0, 0, invalidf(op, "op(A) %d×%d times op(B) %d×%d does not make C %d×%d", m, k, bk, bn, c.Rows, c.Cols)
	}
	return m, c.Cols, k, nil
}

// Gemm is C = alpha*op(A)*op(B) + beta*C (cublas?gemm): op(A) m×k,
// op(B) k×n, C m×n, all column-major (Mat) or all row-major (RowMajor,
// Go's layout), and then computed by the transpose identity. With beta 0,
// C is not read. Mul is Gemm with plain host scalars.
func Gemm[T Elem](h *Handle, alpha Scalar[T], a, b Matrix[T], beta Scalar[T], c Matrix[T]) error {
	return gemm("cublas.Gemm", h, alpha, a, b, beta, c)
}

// Mul is C = alpha*op(A)*op(B) + beta*C with host scalars, as Matmul
// takes them: Gemm(h, Host(alpha), a, b, Host(beta), c), for a handle in
// HostPointers mode (the default). On Go's row-major data:
//
//	err := cublas.Mul(h, 1, cublas.RowMajor(a, m, k), cublas.RowMajor(b, k, n), 0, cublas.RowMajor(c, m, n))
func Mul[T Elem](h *Handle, alpha T, a, b Matrix[T], beta T, c Matrix[T]) error {
	return gemm("cublas.Mul", h, Host(alpha), a, b, Host(beta), c)
}

func gemm[T Elem](op string, h *Handle, alpha Scalar[T], a, b Matrix[T], beta Scalar[T], c Matrix[T]) error {
	cl, err := h.enter(op)
	if err != nil {
		return err
	}
	a, b, c, _ = rowMajorProduct(a, b, c, Strides{})
	m, n, k, err := gemmShape(h, op, a, b, c)
	if err == nil {
		var al, be backend.BLASScalar
		al, be, err = scalars(h, op, alpha, beta)
		if err == nil && m > 0 && n > 0 {
			err = h.blas.Gemm(h.h, blasType[T](), backend.BLASOp(a.Op), backend.BLASOp(b.Op), m, n, k,
				al, a.Buf.Ptr(), a.LD, b.Buf.Ptr(), b.LD, be, c.Buf.Ptr(), c.LD)
		}
	}
	return cl.leave(op, err)
}

// Strides are the distances, in elements, between the starts of the
// matrices of a strided batch: matrix i of A is at element i*A of A's
// buffer, and so on. A stride of 0 uses one matrix for the whole batch
// (not for C).
type Strides struct{ A, B, C int }

func stridedBatch[A, C any](op string, a, b Matrix[A], c Matrix[C], st Strides, count int) error {
	if count < 0 || count > maxInt {
		return invalidf(op, "batch of %d", count)
	}
	if st.A > maxInt || st.B > maxInt || st.C > maxInt {
		return invalidf(op, "strides %+v", st)
	}
	if err := batch(op, "A", a, st.A, count); err != nil {
		return err
	}
	if err := batch(op, "B", b, st.B, count); err != nil {
		return err
	}
	if err := batch(op, "C", c, st.C, count); err != nil {
		return err
	}
	if count > 1 && c.Rows > 0 && c.Cols > 0 && st.C < (c.Cols-1)*c.LD+c.Rows {
		return invalidf(op, "C's stride %d is less than one matrix (%d elements): the results would overlap", st.C, (c.Cols-1)*c.LD+c.Rows)
	}
	return nil
}

// GemmStridedBatched is count products C_i = alpha*op(A_i)*op(B_i) +
// beta*C_i (cublas?gemmStridedBatched), the i-th matrices st.A, st.B and
// st.C elements after the (i-1)-th, all the shape of a, b and c.
func GemmStridedBatched[T Elem](h *Handle, alpha Scalar[T], a, b Matrix[T], beta Scalar[T], c Matrix[T], st Strides, count int) error {
	const op = "cublas.GemmStridedBatched"
	cl, err := h.enter(op)
	if err != nil {
		return err
	}
	err = func() error {
		a, b, c, st := rowMajorProduct(a, b, c, st)
		m, n, k, err := gemmShape(h, op, a, b, c)
		if err != nil {
			return err
		}
		if err := stridedBatch(op, a, b, c, st, count); err != nil {
			return err
		}
		al, be, err := scalars(h, op, alpha, beta)
		if err != nil || m == 0 || n == 0 || count == 0 {
			return err
		}
		return h.blas.GemmStridedBatched(h.h, blasType[T](), backend.BLASOp(a.Op), backend.BLASOp(b.Op), m, n, k,
			al, a.Buf.Ptr(), a.LD, int64(st.A), b.Buf.Ptr(), b.LD, int64(st.B), be, c.Buf.Ptr(), c.LD, int64(st.C), count)
	}()
	return cl.leave(op, err)
}

// Pointers is the device memory a batched product (GemmBatched,
// GemmBatchedEx) puts its arrays of matrix addresses in: 3 per product.
// The call fills it on the handle's stream; it must stay open until the
// stream has run the product, and not be used by another batched call in
// the meantime that is not on the same stream.
type Pointers = memory.Buffer[uint64]

// GemmBatched is len(c) products C_i = alpha*op(A_i)*op(B_i) + beta*C_i
// (cublas?gemmBatched) of matrices anywhere in memory, all of one shape
// and Op; ptrs holds at least 3*len(c) elements (see Pointers).
func GemmBatched[T Elem](h *Handle, alpha Scalar[T], a, b []Matrix[T], beta Scalar[T], c []Matrix[T], ptrs *Pointers) error {
	const op = "cublas.GemmBatched"
	cl, err := h.enter(op)
	if err != nil {
		return err
	}
	err = func() error {
		m, n, k, arr, err := batched(h, op, a, b, c, ptrs)
		if err != nil {
			return err
		}
		al, be, err := scalars(h, op, alpha, beta)
		if err != nil || m == 0 || n == 0 || len(c) == 0 {
			return err
		}
		if err := fillPointers(h, ptrs, arr); err != nil {
			return err
		}
		count := len(c)
		return h.blas.GemmBatched(h.h, blasType[T](), backend.BLASOp(a[0].Op), backend.BLASOp(b[0].Op), m, n, k,
			al, ptrs.Ptr(), a[0].LD, ptrs.Ptr()+uintptr(8*count), b[0].LD, be, ptrs.Ptr()+uintptr(16*count), c[0].LD, count)
	}()
	return cl.leave(op, err)
}

// batched checks a pointer-array batch and returns its shape and the
// addresses: all of A, then all of B, then all of C.
func batched[A, C any](h *Handle, op string, a, b []Matrix[A], c []Matrix[C], ptrs *Pointers) (m, n, k int, arr []uint64, err error) {
	count := len(c)
	if len(a) != count || len(b) != count || count > maxInt/3 {
		return 0, 0, 0, nil, invalidf(op, "%d A, %d B and %d C matrices", len(a), len(b), count)
	}
	if count == 0 {
		return 0, 0, 0, nil, nil
	}
	if err := buffer(h, op, "pointers", ptrs); err != nil {
		return 0, 0, 0, nil, err
	}
	if ptrs.Len() < 3*count {
		return 0, 0, 0, nil, invalidf(op, "pointers: %s holds %d addresses; %d products need %d", ptrs, ptrs.Len(), count, 3*count)
	}
	arr = make([]uint64, 3*count)
	for i := range count {
		mi, ni, ki, err := gemmShape(h, op, a[i], b[i], c[i])
		if err != nil {
			return 0, 0, 0, nil, err
		}
		if i == 0 {
			m, n, k = mi, ni, ki
		} else if mi != m || ni != n || ki != k || a[i].Op != a[0].Op || b[i].Op != b[0].Op ||
			a[i].LD != a[0].LD || b[i].LD != b[0].LD || c[i].LD != c[0].LD {
			return 0, 0, 0, nil, invalidf(op, "product %d differs from product 0 in shape, Op or LD", i)
		}
		arr[i], arr[count+i], arr[2*count+i] = uint64(a[i].Buf.Ptr()), uint64(b[i].Buf.Ptr()), uint64(c[i].Buf.Ptr())
	}
	return m, n, k, arr, nil
}

// fillPointers copies the addresses into ptrs on the handle's stream (the
// driver stages pageable memory before returning).
func fillPointers(h *Handle, ptrs *Pointers, arr []uint64) error {
	return memory.CopyToDeviceAsync(h.s, ptrs, arr)
}
