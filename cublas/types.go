package cublas

import (
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// Elem is an element type of the typed routines (Axpy ... Gemm): cuBLAS's
// S, D, C and Z precisions.
type Elem interface {
	float32 | float64 | complex64 | complex128
}

// ExElem is an input or output element type of GemmEx and Matmul: IEEE
// half precision (Half), bfloat16 (BFloat16) and float32.
type ExElem interface {
	Half | BFloat16 | float32
}

// blasType returns T's precision.
func blasType[T Elem]() backend.BLASType {
	switch any((*T)(nil)).(type) {
	case *float32:
		return backend.BLASFloat32
	case *float64:
		return backend.BLASFloat64
	case *complex64:
		return backend.BLASComplex64
	}
	return backend.BLASComplex128
}

// dataType returns T's cudaDataType.
func dataType[T ExElem]() backend.DataType {
	switch any((*T)(nil)).(type) {
	case *Half:
		return backend.DataR16F
	case *BFloat16:
		return backend.DataR16BF
	}
	return backend.DataR32F
}

// Op is what a routine does with a stored matrix before using it
// (cublasOperation_t).
type Op int32

// The operations.
const (
	NoTrans   Op = Op(backend.BLASOpN) // the matrix as stored
	Trans     Op = Op(backend.BLASOpT) // its transpose
	ConjTrans Op = Op(backend.BLASOpC) // its conjugate transpose (the transpose for real types)
)

func (o Op) valid() bool { return o == NoTrans || o == Trans || o == ConjTrans }

// String returns "N", "T" or "C".
func (o Op) String() string {
	switch o {
	case NoTrans:
		return "N"
	case Trans:
		return "T"
	case ConjTrans:
		return "C"
	}
	return fmt.Sprintf("Op(%d)", int32(o))
}

// Matrix is a column-major matrix in device memory, as cuBLAS reads it:
// element (i, j), 0 <= i < Rows, 0 <= j < Cols, is Buf element i + j*LD.
// Rows and Cols are those of the stored matrix; Op says what a routine
// uses: the matrix itself, its transpose or its conjugate transpose, whose
// shape is Cols×Rows. LD (the leading dimension, at least Rows) is the
// distance between the starts of two columns; LD > Rows leaves a gap
// (a sub-matrix of a larger one, padding). The matrix spans
// (Cols-1)*LD + Rows elements of Buf, which must hold them.
//
// Go's [][]float32 and C's arrays are row-major: a row-major r×c matrix
// in a buffer is, to cuBLAS, the column-major c×r matrix that is its
// transpose (see the package documentation for the product of row-major
// matrices).
//
// A Matrix is a view: it owns nothing, and its buffer may be owned,
// borrowed or a slice of another.
type Matrix[T any] struct {
	Buf        *memory.Buffer[T]
	Rows, Cols int
	LD         int
	Op         Op

	rowMajor bool // made by RowMajor: LD is the distance between rows (rowmajor.go)
}

// Mat returns the rows×cols column-major matrix packed at the start of
// buf (LD = rows, NoTrans). Go's [][]T and flattened row-major data are
// not column-major: use RowMajor for them.
func Mat[T any](buf *memory.Buffer[T], rows, cols int) Matrix[T] {
	return Matrix[T]{Buf: buf, Rows: rows, Cols: cols, LD: rows}
}

// T returns m used transposed.
func (m Matrix[T]) T() Matrix[T] { m.Op = Trans; return m }

// H returns m used conjugate-transposed.
func (m Matrix[T]) H() Matrix[T] { m.Op = ConjTrans; return m }

// shape returns the rows and columns of op(m).
func (m Matrix[T]) shape() (int, int) {
	if m.Op == NoTrans {
		return m.Rows, m.Cols
	}
	return m.Cols, m.Rows
}

// Vector is a strided vector in device memory: element i is Buf element
// i*Inc, for 0 <= i < N. Inc is at least 1. It spans (N-1)*Inc + 1
// elements of Buf, which must hold them.
type Vector[T any] struct {
	Buf *memory.Buffer[T]
	N   int
	Inc int
}

// Vec returns the vector of every element of buf.
func Vec[T any](buf *memory.Buffer[T]) Vector[T] {
	return Vector[T]{Buf: buf, N: buf.Len(), Inc: 1}
}

// Scalar is a scalar argument (alpha, beta): a value on the host, for a
// handle in HostPointers mode, or the first element of a device buffer,
// read when the work runs, for one in DevicePointers mode.
type Scalar[T any] struct {
	value T
	buf   *memory.Buffer[T]
}

// Host returns the host scalar v.
func Host[T any](v T) Scalar[T] { return Scalar[T]{value: v} }

// OnDevice returns the scalar in buf's first element, for a handle in
// DevicePointers mode; buf must stay open until the stream has run the
// work.
func OnDevice[T any](buf *memory.Buffer[T]) Scalar[T] { return Scalar[T]{buf: buf} }
