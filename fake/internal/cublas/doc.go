// Package cublas is the fake's cuBLAS and cuBLASLt: backend.CUBLAS and
// backend.CUBLASLt over the fake driver's streams and memory (through
// package ondevice), computing on the CPU in stream order.
//
// The numerics are gonum's (gonum.org/v1/gonum/blas/gonum), a well-kept
// pure-Go BLAS: it is the reference the tests compare the H200 with, so
// the fake and the tests agree by construction and the fake stays small.
// cuBLAS is column-major and gonum row-major, so every matrix routine calls
// gonum on the transposes (a column-major m×n matrix with leading
// dimension ld is a row-major n×m one with the same stride): C = op(A)op(B)
// is computed as Cᵀ = op(B)ᵀop(A)ᵀ, and y = op(A)x as y = op'(Aᵀ)x.
//
// How close the results are to the H200's:
//   - float32, float64, complex64, complex128 (Gemm, Gemv, level 1): gonum
//     computes in the data's precision in another order than the GPU's
//     kernels; results agree within a few ULPs times the inner dimension.
//   - TF32 (GemmEx with CUBLAS_COMPUTE_32F_FAST_TF32, or float32 routines
//     when the math mode is CUBLAS_TF32_TENSOR_OP_MATH): the inputs are
//     rounded to TF32 (10 mantissa bits, to nearest with ties away from
//     zero, as cvt.rna.tf32.f32 does on the tensor cores) and the products
//     accumulated in float32. cuBLAS may pick a kernel that does not round
//     at all for some shapes; either way the relative error is within
//     about 2^-10 per input.
//   - f16 and bf16 inputs (GemmEx, cuBLASLt): converted exactly to float32
//     and accumulated in float32 (CUBLAS_COMPUTE_32F), then rounded to the
//     output type to nearest even. For CUBLAS_COMPUTE_16F the fake
//     accumulates in float32 and rounds once to f16, where the GPU may
//     round partial sums to f16: the GPU's error is larger, within f16's
//     2^-11 relative per accumulation step.
//   - GELU (cuBLASLt epilogues) is the tanh approximation, as cuBLASLt's.
//
// Errors follow cuBLAS: CUBLAS_STATUS_NOT_INITIALIZED for a handle that is
// not (or no longer) one, CUBLAS_STATUS_INVALID_VALUE for negative sizes,
// leading dimensions below the rows of the matrix, zero increments of
// gemv, unknown operations and modes and bad in-place forms of geam,
// CUBLAS_STATUS_NOT_SUPPORTED for type combinations cuBLAS does not offer,
// and CUBLAS_STATUS_EXECUTION_FAILED when the work cannot be queued (a
// destroyed stream, a poisoned process). Work that touches memory outside
// any allocation faults the stream as a kernel would
// (CUDA_ERROR_ILLEGAL_ADDRESS).
package cublas
