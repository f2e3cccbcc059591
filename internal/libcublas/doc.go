// Package libcublas is the real cuBLAS and cuBLASLt behind backend.CUBLAS
// and backend.CUBLASLt: libcublas and libcublasLt (.so.13, .12 or .11),
// opened at run time through package loader (no cgo), their entry points
// resolved on first use and called through internal/dl's trampolines, with
// no allocation on the call path.
//
// ABI notes (cublas_api.h and cublasLt.h of CUDA 11.8, 12.x and 13.0):
//   - The handle API's routines are exported under their _v2 names
//     (cublasSgemm_v2, cublasCreate_v2; cublas_v2.h maps the plain names to
//     them), except those born after cuBLAS 2: cublasSgeam,
//     cublasSgemmBatched, cublasSgemmStridedBatched, cublasGemmEx and its
//     batched forms, cublasSetMathMode, cublasSetAtomicsMode. The plain
//     cublasSaxpy and the like are the legacy API (no handle) and are never
//     used. The 64-bit forms (cublasSgemm_v2_64, CUDA 12 and later) are not
//     used either: sizes above 2^31-1 are refused before the call.
//   - cublasStatus_t and the enums are C enums of int size, int and enum
//     arguments are passed in full registers whose upper 32 bits the callee
//     ignores, and results come back in the low 32 bits of the return
//     register. Strides of the strided-batched routines are long long.
//   - Scalars are passed by address: in host pointer mode, the address of
//     a value on the goroutine stack, of the routine's type (float,
//     double, cuComplex, cuDoubleComplex; __half for CUBLAS_COMPUTE_16F),
//     computed in the call expression (see package dl); in device pointer
//     mode, the device address given.
//   - cuBLAS routines take up to 23 arguments (cublasGemmStridedBatchedEx),
//     cublasLtMatmul 16: dl's calls carry up to 24.
//   - cublasLtMatmulHeuristicResult_t is 96 bytes (backend.LtHeuristicResult
//     has its layout), cublasLtMatmulAlgo_t 64.
package libcublas

//go:generate go run github.com/nocgo/cuda/internal/bindgen -iface CUBLAS -prefix cublas -open Open:CUBLAS
//go:generate go run github.com/nocgo/cuda/internal/bindgen -iface CUBLASLt -type LtLib -sym ltSym -prefix cublasLt -open OpenLt:CUBLASLt -table entrypoints_lt.txt -o zz_generated_lt.go
