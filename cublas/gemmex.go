package cublas

import (
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
)

// Compute is how GemmEx (and Matmul) computes (cublasComputeType_t).
type Compute int32

// The compute types offered. Every one takes float32 scalars except
// Compute16F, whose Host scalars are rounded to Half.
const (
	// Compute32F accumulates in float32: Half, BFloat16 or float32 inputs
	// (float32 ones rounded to TF32 when the handle is in TF32Math).
	Compute32F Compute = Compute(backend.BLASCompute32F)
	// Compute32FPedantic is Compute32F with no reduced precision anywhere.
	Compute32FPedantic Compute = Compute(backend.BLASCompute32FPedantic)
	// Compute32FFastTF32 rounds float32 inputs to TF32 for the tensor
	// cores and accumulates in float32.
	Compute32FFastTF32 Compute = Compute(backend.BLASCompute32FFastTF32)
	// Compute32FFast16F rounds float32 inputs to Half.
	Compute32FFast16F Compute = Compute(backend.BLASCompute32FFast16F)
	// Compute32FFast16BF rounds float32 inputs to BFloat16.
	Compute32FFast16BF Compute = Compute(backend.BLASCompute32FFast16BF)
	// Compute16F computes in Half: Half inputs and output only.
	Compute16F Compute = Compute(backend.BLASCompute16F)
)

// String returns cuBLAS's name without the prefix: "32F_FAST_TF32".
func (c Compute) String() string {
	switch c {
	case Compute32F:
		return "32F"
	case Compute32FPedantic:
		return "32F_PEDANTIC"
	case Compute32FFastTF32:
		return "32F_FAST_TF32"
	case Compute32FFast16F:
		return "32F_FAST_16F"
	case Compute32FFast16BF:
		return "32F_FAST_16BF"
	case Compute16F:
		return "16F"
	}
	return fmt.Sprintf("Compute(%d)", int32(c))
}

// exTypes checks GemmEx's types: the combinations of cuBLAS's table
// (cublasGemmEx) for Half, BFloat16 and float32.
func exTypes(op string, at, ct backend.DataType, c Compute) error {
	ok := false
	switch c {
	case Compute32F, Compute32FPedantic:
		ok = ct == at || ct == backend.DataR32F
	case Compute32FFastTF32, Compute32FFast16F, Compute32FFast16BF:
		ok = at == backend.DataR32F && ct == backend.DataR32F
	case Compute16F:
		ok = at == backend.DataR16F && ct == backend.DataR16F
	default:
		return invalidf(op, "compute type %v", c)
	}
	if !ok {
		return invalidf(op, "cuBLAS has no product of %s inputs to %s output computed in %v", typeName(at), typeName(ct), c)
	}
	return nil
}

func typeName(t backend.DataType) string {
	switch t {
	case backend.DataR16F:
		return "Half"
	case backend.DataR16BF:
		return "BFloat16"
	case backend.DataR32F:
		return "float32"
	}
	return fmt.Sprintf("cudaDataType(%d)", int32(t))
}

func exScalars(h *Handle, op string, alpha, beta Scalar[float32], c Compute) (backend.BLASScalar, backend.BLASScalar, error) {
	if c == Compute16F && (alpha.buf != nil || beta.buf != nil) {
		return backend.BLASScalar{}, backend.BLASScalar{}, invalidf(op, "Compute16F takes Host scalars (cuBLAS would read Half ones from the device)")
	}
	return scalars(h, op, alpha, beta)
}

// GemmEx is C = alpha*op(A)*op(B) + beta*C with the element types and
// the compute type chosen (cublasGemmEx): A and B of one type (Half,
// BFloat16 or float32), C of that type or float32 (float32 only for
// float32 inputs, Half only with Compute16F), as cuBLAS's table allows.
// Shapes as for Gemm.
func GemmEx[A, C ExElem](h *Handle, alpha Scalar[float32], a, b Matrix[A], beta Scalar[float32], c Matrix[C], compute Compute) error {
	const op = "cublas.GemmEx"
	cl, err := h.enter(op)
	if err != nil {
		return err
	}
	at, ct := dataType[A](), dataType[C]()
	a, b, c, _ = rowMajorProduct(a, b, c, Strides{})
	m, n, k, err := gemmShape(h, op, a, b, c)
	if err == nil {
		err = exTypes(op, at, ct, compute)
	}
	if err == nil {
		var al, be backend.BLASScalar
		al, be, err = exScalars(h, op, alpha, beta, compute)
		if err == nil && m > 0 && n > 0 {
			err = h.blas.GemmEx(h.h, backend.BLASOp(a.Op), backend.BLASOp(b.Op), m, n, k, al,
				a.Buf.Ptr(), at, a.LD, b.Buf.Ptr(), at, b.LD, be, c.Buf.Ptr(), ct, c.LD,
				backend.BLASComputeType(compute), backend.BLASGemmDefault)
		}
	}
	return cl.leave(op, err)
}

// GemmStridedBatchedEx is GemmStridedBatched with GemmEx's types
// (cublasGemmStridedBatchedEx).
func GemmStridedBatchedEx[A, C ExElem](h *Handle, alpha Scalar[float32], a, b Matrix[A], beta Scalar[float32], c Matrix[C],
	st Strides, count int, compute Compute) error {
	const op = "cublas.GemmStridedBatchedEx"
	cl, err := h.enter(op)
	if err != nil {
		return err
	}
	err = func() error {
		at, ct := dataType[A](), dataType[C]()
		a, b, c, st := rowMajorProduct(a, b, c, st)
		m, n, k, err := gemmShape(h, op, a, b, c)
		if err != nil {
			return err
		}
		if err := exTypes(op, at, ct, compute); err != nil {
			return err
		}
		if err := stridedBatch(op, a, b, c, st, count); err != nil {
			return err
		}
		al, be, err := exScalars(h, op, alpha, beta, compute)
		if err != nil || m == 0 || n == 0 || count == 0 {
			return err
		}
		return h.blas.GemmStridedBatchedEx(h.h, backend.BLASOp(a.Op), backend.BLASOp(b.Op), m, n, k, al,
			a.Buf.Ptr(), at, a.LD, int64(st.A), b.Buf.Ptr(), at, b.LD, int64(st.B),
			be, c.Buf.Ptr(), ct, c.LD, int64(st.C), count, backend.BLASComputeType(compute), backend.BLASGemmDefault)
	}()
	return cl.leave(op, err)
}

// GemmBatchedEx is GemmBatched with GemmEx's types (cublasGemmBatchedEx).
func GemmBatchedEx[A, C ExElem](h *Handle, alpha Scalar[float32], a, b []Matrix[A], beta Scalar[float32], c []Matrix[C],
	ptrs *Pointers, compute Compute) error {
	const op = "cublas.GemmBatchedEx"
	cl, err := h.enter(op)
	if err != nil {
		return err
	}
	err = func() error {
		at, ct := dataType[A](), dataType[C]()
		if err := exTypes(op, at, ct, compute); err != nil {
			return err
		}
		m, n, k, arr, err := batched(h, op, a, b, c, ptrs)
		if err != nil {
			return err
		}
		al, be, err := exScalars(h, op, alpha, beta, compute)
		if err != nil || m == 0 || n == 0 || len(c) == 0 {
			return err
		}
		if err := fillPointers(h, ptrs, arr); err != nil {
			return err
		}
		count := len(c)
		return h.blas.GemmBatchedEx(h.h, backend.BLASOp(a[0].Op), backend.BLASOp(b[0].Op), m, n, k, al,
			ptrs.Ptr(), at, a[0].LD, ptrs.Ptr()+uintptr(8*count), at, b[0].LD,
			be, ptrs.Ptr()+uintptr(16*count), ct, c[0].LD, count, backend.BLASComputeType(compute), backend.BLASGemmDefault)
	}()
	return cl.leave(op, err)
}
