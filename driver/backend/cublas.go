package backend

import "strconv"

// BLASProvider is implemented by backends that come with dense linear
// algebra (cuBLAS). The real backend opens libcublas on the first call; the
// fake answers with its own cuBLAS, which computes on the CPU in stream
// order.
type BLASProvider interface {
	CUBLAS() (CUBLAS, error)
}

// CUBLAS is the seam to cuBLAS (libcublas), beside API: one method per
// cuBLAS routine, its precision (S, D, C, Z) chosen by a BLASType argument,
// handles (cublasHandle_t), streams (cudaStream_t, which is a CUstream) and
// device pointers as uintptr, counts, increments and leading dimensions in
// elements, matrices column-major as in cuBLAS.
//
// Scalars (alpha, beta) are BLASScalar values: a device pointer for a
// handle in BLASPointerDevice mode, or the value itself for one in
// BLASPointerHost mode, which the implementation passes by address. Results
// of the reductions (Dot, Nrm2, Asum, Iamax) go to the device pointer
// result in device mode; with result 0 (host mode) the call waits for the
// result and returns it.
//
// Create works on the calling OS thread's current context (cuBLAS binds a
// handle to the current device); callers bind the context first, and bind
// it for the other calls too, since cuBLAS uses the CUDA runtime, which
// reads the current context.
//
// Failed calls return a *BLASError (errors.Is with a BLASStatus).
type CUBLAS interface {
	// Create is cublasCreate: a handle on the current context's device,
	// on the NULL stream, in host pointer mode, with the default math mode.
	Create() (uintptr, error)
	// Destroy is cublasDestroy; it waits for the handle's work.
	Destroy(h uintptr) error
	// Version is cublasGetVersion: major*10000 + minor*100 + patch
	// (major*1000 + minor*100 + patch before cuBLAS 10.1).
	Version(h uintptr) (int, error)
	// SetStream is cublasSetStream; it also resets the workspace to
	// cuBLAS's default one, as cuBLAS does.
	SetStream(h, s uintptr) error
	// SetWorkspace is cublasSetWorkspace: size bytes of device memory at
	// ptr (0, 0 for cuBLAS's own). The memory must outlive the work that
	// uses it.
	SetWorkspace(h, ptr, size uintptr) error
	SetPointerMode(h uintptr, m BLASPointerMode) error
	SetMathMode(h uintptr, m BLASMath) error
	SetAtomicsMode(h uintptr, m BLASAtomics) error

	// Axpy is cublas?axpy: y = alpha*x + y.
	Axpy(h uintptr, t BLASType, n int, alpha BLASScalar, x uintptr, incx int, y uintptr, incy int) error
	// Scal is cublas?scal: x = alpha*x.
	Scal(h uintptr, t BLASType, n int, alpha BLASScalar, x uintptr, incx int) error
	// Copy is cublas?copy: y = x.
	Copy(h uintptr, t BLASType, n int, x uintptr, incx int, y uintptr, incy int) error
	// Swap is cublas?swap.
	Swap(h uintptr, t BLASType, n int, x uintptr, incx int, y uintptr, incy int) error
	// Dot is cublas?dot (real), cublas?dotu (complex, conj false) or
	// cublas?dotc (complex, conj true: the conjugate of x).
	Dot(h uintptr, t BLASType, conj bool, n int, x uintptr, incx int, y uintptr, incy int, result uintptr) (complex128, error)
	// Nrm2 is cublas?nrm2 (cublasScnrm2, cublasDznrm2 for complex): the
	// Euclidean norm, a real number.
	Nrm2(h uintptr, t BLASType, n int, x uintptr, incx int, result uintptr) (float64, error)
	// Asum is cublas?asum (cublasScasum, cublasDzasum): the sum of
	// |re|+|im|, a real number.
	Asum(h uintptr, t BLASType, n int, x uintptr, incx int, result uintptr) (float64, error)
	// Iamax is cublasI?amax: the 1-based index (a C int) of the first
	// element of largest |re|+|im|, 0 for n <= 0.
	Iamax(h uintptr, t BLASType, n int, x uintptr, incx int, result uintptr) (int, error)

	// Gemv is cublas?gemv: y = alpha*op(A)*x + beta*y, A m×n.
	Gemv(h uintptr, t BLASType, trans BLASOp, m, n int, alpha BLASScalar, a uintptr, lda int,
		x uintptr, incx int, beta BLASScalar, y uintptr, incy int) error
	// Geam is cublas?geam: C = alpha*op(A) + beta*op(B), C m×n.
	Geam(h uintptr, t BLASType, ta, tb BLASOp, m, n int, alpha BLASScalar, a uintptr, lda int,
		beta BLASScalar, b uintptr, ldb int, c uintptr, ldc int) error
	// Gemm is cublas?gemm: C = alpha*op(A)*op(B) + beta*C, C m×n, k the
	// inner dimension.
	Gemm(h uintptr, t BLASType, ta, tb BLASOp, m, n, k int, alpha BLASScalar, a uintptr, lda int,
		b uintptr, ldb int, beta BLASScalar, c uintptr, ldc int) error
	// GemmStridedBatched is cublas?gemmStridedBatched: batch products,
	// the i-th matrices at a + i*strideA elements (and so on).
	GemmStridedBatched(h uintptr, t BLASType, ta, tb BLASOp, m, n, k int, alpha BLASScalar,
		a uintptr, lda int, strideA int64, b uintptr, ldb int, strideB int64,
		beta BLASScalar, c uintptr, ldc int, strideC int64, batch int) error
	// GemmBatched is cublas?gemmBatched: aArray, bArray and cArray are
	// device arrays of batch device pointers.
	GemmBatched(h uintptr, t BLASType, ta, tb BLASOp, m, n, k int, alpha BLASScalar,
		aArray uintptr, lda int, bArray uintptr, ldb int, beta BLASScalar, cArray uintptr, ldc int, batch int) error

	// GemmEx is cublasGemmEx: Gemm with the element types of A, B and C
	// and the compute type given. Scalars are of the compute type's scale
	// type (BLASComputeType.ScaleType).
	GemmEx(h uintptr, ta, tb BLASOp, m, n, k int, alpha BLASScalar,
		a uintptr, at DataType, lda int, b uintptr, bt DataType, ldb int,
		beta BLASScalar, c uintptr, ct DataType, ldc int, compute BLASComputeType, algo BLASGemmAlgo) error
	// GemmStridedBatchedEx is cublasGemmStridedBatchedEx.
	GemmStridedBatchedEx(h uintptr, ta, tb BLASOp, m, n, k int, alpha BLASScalar,
		a uintptr, at DataType, lda int, strideA int64, b uintptr, bt DataType, ldb int, strideB int64,
		beta BLASScalar, c uintptr, ct DataType, ldc int, strideC int64, batch int,
		compute BLASComputeType, algo BLASGemmAlgo) error
	// GemmBatchedEx is cublasGemmBatchedEx.
	GemmBatchedEx(h uintptr, ta, tb BLASOp, m, n, k int, alpha BLASScalar,
		aArray uintptr, at DataType, lda int, bArray uintptr, bt DataType, ldb int,
		beta BLASScalar, cArray uintptr, ct DataType, ldc int, batch int,
		compute BLASComputeType, algo BLASGemmAlgo) error
}

// BLASScalar is a cuBLAS scalar argument: Ptr, a device pointer, for a
// handle in device pointer mode; else the value Re + i*Im (Im unused for
// real types), which the implementation converts to the routine's type and
// passes by address.
type BLASScalar struct {
	Ptr    uintptr
	Re, Im float64
}

// HostScalar returns the host-mode scalar v.
func HostScalar(v complex128) BLASScalar { return BLASScalar{Re: real(v), Im: imag(v)} }

// DeviceScalar returns the device-mode scalar at device pointer p.
func DeviceScalar(p uintptr) BLASScalar { return BLASScalar{Ptr: p} }

// BLASType is the precision of a typed cuBLAS routine: the S, D, C or Z of
// its name.
type BLASType int32

// The precisions.
const (
	BLASFloat32    BLASType = iota // S: float
	BLASFloat64                    // D: double
	BLASComplex64                  // C: cuComplex
	BLASComplex128                 // Z: cuDoubleComplex
	NumBLASTypes
)

// Size returns the size of one element in bytes, 0 for an unknown type.
func (t BLASType) Size() int {
	switch t {
	case BLASFloat32:
		return 4
	case BLASFloat64, BLASComplex64:
		return 8
	case BLASComplex128:
		return 16
	}
	return 0
}

// Complex reports whether t is a complex type.
func (t BLASType) Complex() bool { return t == BLASComplex64 || t == BLASComplex128 }

// Valid reports whether t is one of the four precisions.
func (t BLASType) Valid() bool { return t >= 0 && t < NumBLASTypes }

// BLASOp is a cublasOperation_t.
type BLASOp int32

// The cublasOperation_t values.
const (
	BLASOpN BLASOp = 0 // CUBLAS_OP_N: the matrix itself
	BLASOpT BLASOp = 1 // CUBLAS_OP_T: its transpose
	BLASOpC BLASOp = 2 // CUBLAS_OP_C: its conjugate transpose
)

// BLASPointerMode is a cublasPointerMode_t.
type BLASPointerMode int32

// The cublasPointerMode_t values.
const (
	BLASPointerHost   BLASPointerMode = 0
	BLASPointerDevice BLASPointerMode = 1
)

// BLASMath is a cublasMath_t (flags may be or-ed with one mode).
type BLASMath int32

// The cublasMath_t values.
const (
	BLASDefaultMath       BLASMath = 0
	BLASTensorOpMath      BLASMath = 1 // deprecated by cuBLAS 11
	BLASPedanticMath      BLASMath = 2
	BLASTF32TensorOpMath  BLASMath = 3
	BLASDisallowReduction BLASMath = 16 // CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION
)

// BLASAtomics is a cublasAtomicsMode_t.
type BLASAtomics int32

// The cublasAtomicsMode_t values.
const (
	BLASAtomicsNotAllowed BLASAtomics = 0
	BLASAtomicsAllowed    BLASAtomics = 1
)

// DataType is a cudaDataType_t (library_types.h).
type DataType int32

// The cudaDataType_t values the math libraries use.
const (
	DataR32F    DataType = 0
	DataR64F    DataType = 1
	DataR16F    DataType = 2
	DataR8I     DataType = 3
	DataC32F    DataType = 4
	DataC64F    DataType = 5
	DataR32I    DataType = 10
	DataR16BF   DataType = 14
	DataR8FE4M3 DataType = 28
	DataR8FE5M2 DataType = 29
)

// Size returns the size of one element in bytes, 0 for an unknown type.
func (t DataType) Size() int {
	switch t {
	case DataR8I, DataR8FE4M3, DataR8FE5M2:
		return 1
	case DataR16F, DataR16BF:
		return 2
	case DataR32F, DataR32I:
		return 4
	case DataR64F, DataC32F:
		return 8
	case DataC64F:
		return 16
	}
	return 0
}

// BLASComputeType is a cublasComputeType_t.
type BLASComputeType int32

// The cublasComputeType_t values.
const (
	BLASCompute16F         BLASComputeType = 64
	BLASCompute16FPedantic BLASComputeType = 65
	BLASCompute32F         BLASComputeType = 68
	BLASCompute32FPedantic BLASComputeType = 69
	BLASCompute64F         BLASComputeType = 70
	BLASCompute64FPedantic BLASComputeType = 71
	BLASCompute32I         BLASComputeType = 72
	BLASCompute32IPedantic BLASComputeType = 73
	BLASCompute32FFast16F  BLASComputeType = 74
	BLASCompute32FFast16BF BLASComputeType = 75
	BLASCompute32FFastTF32 BLASComputeType = 77
)

// ScaleType returns the type of alpha and beta for real data computed in
// c: R_16F, R_32F, R_64F or R_32I; -1 for an unknown compute type.
func (c BLASComputeType) ScaleType() DataType {
	switch c {
	case BLASCompute16F, BLASCompute16FPedantic:
		return DataR16F
	case BLASCompute32F, BLASCompute32FPedantic, BLASCompute32FFast16F, BLASCompute32FFast16BF, BLASCompute32FFastTF32:
		return DataR32F
	case BLASCompute64F, BLASCompute64FPedantic:
		return DataR64F
	case BLASCompute32I, BLASCompute32IPedantic:
		return DataR32I
	}
	return -1
}

// BLASGemmAlgo is a cublasGemmAlgo_t.
type BLASGemmAlgo int32

// The cublasGemmAlgo_t values that cuBLAS 12 and later honour (the
// numbered algorithms are ignored by cuBLAS on Ampere and later).
const (
	BLASGemmDefault         BLASGemmAlgo = -1
	BLASGemmDefaultTensorOp BLASGemmAlgo = 99
)

// BLASStatus is a cublasStatus_t other than CUBLAS_STATUS_SUCCESS. It is
// an error; cuBLAS failures are *BLASError values that match their
// BLASStatus with errors.Is.
type BLASStatus int32

// The cublasStatus_t codes.
const (
	BLASNotInitialized  BLASStatus = 1
	BLASAllocFailed     BLASStatus = 3
	BLASInvalidValue    BLASStatus = 7
	BLASArchMismatch    BLASStatus = 8
	BLASMappingError    BLASStatus = 11
	BLASExecutionFailed BLASStatus = 13
	BLASInternalError   BLASStatus = 14
	BLASNotSupported    BLASStatus = 15
	BLASLicenseError    BLASStatus = 16
)

var blasNames = map[BLASStatus]string{
	BLASNotInitialized:  "CUBLAS_STATUS_NOT_INITIALIZED",
	BLASAllocFailed:     "CUBLAS_STATUS_ALLOC_FAILED",
	BLASInvalidValue:    "CUBLAS_STATUS_INVALID_VALUE",
	BLASArchMismatch:    "CUBLAS_STATUS_ARCH_MISMATCH",
	BLASMappingError:    "CUBLAS_STATUS_MAPPING_ERROR",
	BLASExecutionFailed: "CUBLAS_STATUS_EXECUTION_FAILED",
	BLASInternalError:   "CUBLAS_STATUS_INTERNAL_ERROR",
	BLASNotSupported:    "CUBLAS_STATUS_NOT_SUPPORTED",
	BLASLicenseError:    "CUBLAS_STATUS_LICENSE_ERROR",
}

// BLASStatusText is what cublasGetStatusString says for each status
// (cuBLAS 12 and 13).
var BLASStatusText = map[BLASStatus]string{
	BLASNotInitialized:  "the library was not initialized",
	BLASAllocFailed:     "the resource allocation failed",
	BLASInvalidValue:    "an invalid numeric value was used as an argument",
	BLASArchMismatch:    "an absent device architectural feature is required",
	BLASMappingError:    "an access to GPU memory space failed",
	BLASExecutionFailed: "the GPU program failed to execute",
	BLASInternalError:   "an internal operation failed",
	BLASNotSupported:    "the functionality requested is not supported",
	BLASLicenseError:    "error detected trying to check the license",
}

// Name returns the enumerator's name, "CUBLAS_STATUS_INVALID_VALUE" and the
// like.
func (s BLASStatus) Name() string {
	if n, ok := blasNames[s]; ok {
		return n
	}
	return "cublasStatus(" + strconv.Itoa(int(s)) + ")"
}

// Error returns the name.
func (s BLASStatus) Error() string { return s.Name() }

// BLASError is a failed cuBLAS or cuBLASLt call: the status, the entry
// point, cuBLAS's text for the status and, where the implementation knows
// one, what was wrong.
type BLASError struct {
	Status BLASStatus
	Op     string // "cublasSgemm_v2"
	Text   string // "an invalid numeric value was used as an argument"
	Detail string // "lda 3 < max(1, m) = 4", "" for none
}

// Error returns "cublasSgemm_v2: CUBLAS_STATUS_INVALID_VALUE: text: detail".
func (e *BLASError) Error() string {
	s := e.Op + ": " + e.Status.Name()
	if e.Text != "" {
		s += ": " + e.Text
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the BLASStatus.
func (e *BLASError) Unwrap() error { return e.Status }
