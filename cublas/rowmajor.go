package cublas

import "github.com/nocgo/cuda/memory"

// RowMajor returns the rows×cols matrix of Go's (and C's) row-major data
// packed at the start of buf: element (i, j) at i*cols + j (LD = cols,
// the distance between rows; NoTrans). A product of row-major matrices
// (Gemm, GemmEx and their strided-batched forms, with A, B and C all
// RowMajor; Mul) computes C = alpha*op(A)*op(B) + beta*C on them as
// they are, by the transpose identity Cᵀ = op(B)ᵀ·op(A)ᵀ, which is the
// column-major product of the same buffers: no copy, no transpose kernel.
// Every other routine takes column-major matrices (Mat) and refuses a
// RowMajor one, as does a product that mixes the two.
func RowMajor[T any](buf *memory.Buffer[T], rows, cols int) Matrix[T] {
	return Matrix[T]{Buf: buf, Rows: rows, Cols: cols, LD: cols, rowMajor: true}
}

// RowMajor reports whether m was made by RowMajor (its LD is the distance
// between rows).
func (m Matrix[T]) RowMajor() bool { return m.rowMajor }

// colMajor returns how cuBLAS reads the buffer of the row-major m: its
// transpose, column-major (Rows and Cols swapped; the same LD and Op,
// since op(m)ᵀ is op applied to mᵀ).
func (m Matrix[T]) colMajor() Matrix[T] {
	return Matrix[T]{Buf: m.Buf, Rows: m.Cols, Cols: m.Rows, LD: m.LD, Op: m.Op}
}

// rowMajorProduct turns the product C = op(A)·op(B) of row-major A, B and
// C into the column-major product cuBLAS computes, Cᵀ = op(B)ᵀ·op(A)ᵀ (B
// and A swapped, with their strides). Anything else is returned as given:
// column-major matrices as they are, a mix for matrix to refuse.
func rowMajorProduct[A, C any](a, b Matrix[A], c Matrix[C], st Strides) (Matrix[A], Matrix[A], Matrix[C], Strides) {
	if !a.rowMajor || !b.rowMajor || !c.rowMajor {
		return a, b, c, st
	}
	return b.colMajor(), a.colMajor(), c.colMajor(), Strides{A: st.B, B: st.A, C: st.C}
}
