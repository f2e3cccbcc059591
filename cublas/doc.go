// Package cublas runs dense linear algebra on the GPU with NVIDIA's cuBLAS
// (libcublas.so.13, .12 or .11), with no cgo: level 1 (Axpy, Scal, Dot,
// Nrm2, Asum, Iamax, Copy, Swap), Gemv, Geam and Gemm for float32, float64,
// complex64 and complex128, GemmEx with Half, BFloat16 and float32 inputs
// computed in float32, TF32 or Half, and their strided-batched and batched
// forms. libcublas is opened when first needed, found as package loader
// finds libcuda: NOCGO_CUDA_LIBCUBLAS, the system loader, the CUDA
// directories, and the nvidia/cublas/lib (nvidia/cu13/lib) directory of
// the pip wheels PyTorch installs. On the fake driver (package fake) the
// same code computes on the CPU with gonum, in stream order, so that it is
// tested with no GPU.
//
// # Handles and streams
//
// A Handle is bound to a stream (New, SetStream) and queues every routine's
// work there; owned, wrapped and special streams all work, and so do owned,
// borrowed and sliced buffers:
//
//	h, err := cublas.New(s)
//	defer h.Close()
//	err = cublas.Gemm(h, cublas.Host[float32](1), a, b, cublas.Host[float32](0), c)
//
// The handle's pointer mode says where scalars and results are: Host
// values (the default; the reductions wait for their result) or OnDevice
// buffers (SetPointerMode(DevicePointers); the To forms of the reductions
// write to the device and return at once). SetMathMode(TF32Math) lets
// float32 products use TF32 tensor cores; SetAtomics lets cuBLAS use
// faster, non-deterministic kernels; SetWorkspace gives cuBLAS its
// workspace.
//
// # cuBLASLt
//
// Lt is a cuBLASLt handle (libcublasLt, found as libcublas is). Matmul
// computes D = epilogue(alpha*op(A)*op(B) + beta*C) on a stream named per
// call, with an epilogue fused into the product (ReLU, GELU, and their
// bias forms: MatmulConfig) and a workspace the heuristics may use; the
// first product of each shape asks cuBLASLt's heuristics for its
// algorithm, and the handle keeps the descriptors and the answer for the
// products after it, which then cost one cublasLtMatmul:
//
//	lt, err := cublas.NewLt(ctx)
//	defer lt.Close()
//	err = cublas.Matmul(lt, s, 1, w, x, 0, y, y, cublas.MatmulConfig{
//		Epilogue: cublas.GELUBias, Bias: cublas.BiasOf(b), Workspace: ws})
//
// ExampleMatmul_denseLayer shows a layer of row-major data whole.
//
// # Column-major
//
// cuBLAS is column-major, as Fortran: a Matrix is Rows×Cols with element
// (i, j) at i + j*LD, and a Vector is N elements Inc apart. Routines check
// every shape, leading dimension and stride against the buffers before
// cuBLAS sees them (see the error rules in check.go's comment), and a
// refused call queues nothing.
//
// Go (and C) data is row-major. A row-major r×c matrix is, read
// column-major, its c×r transpose; so C = A·B of row-major A (m×k),
// B (k×n) and C (m×n) is computed as Cᵀ = Bᵀ·Aᵀ, which cuBLAS sees as
// the column-major product of the buffers as they are, with no copy:
//
//	// row-major: C (m×n) = A (m×k) · B (k×n)
//	err := cublas.Gemm(h, one,
//		cublas.Mat(b, n, k), // Bᵀ: n×k column-major
//		cublas.Mat(a, k, m), // Aᵀ: k×m column-major
//		zero, cublas.Mat(c, n, m)) // Cᵀ: n×m column-major
//
// ExampleGemm_rowMajor shows it whole. RowMajor views do that swap for
// the products (Gemm, GemmEx, their strided-batched forms, and Mul, which
// takes plain scalars as Matmul does), so the product is written as the
// math is:
//
//	err := cublas.Mul(h, 1, cublas.RowMajor(a, m, k), cublas.RowMajor(b, k, n), 0, cublas.RowMajor(c, m, n))
//
// Halves, BFloat16s and Float32s convert float32 slices to and from the
// half types, for the host side of GemmEx.
//
// # The fake
//
// The fake driver's cuBLAS computes every routine with gonum on the CPU when
// its stream reaches the work, with cuBLAS's argument checks and errors
// (CUBLAS_STATUS_INVALID_VALUE, CUBLAS_STATUS_NOT_SUPPORTED, as
// *backend.BLASError). Results agree with the H200's within the rounding of
// the precision (for TF32, Half and BFloat16: of the inputs' precision);
// fake/internal/cublas documents the tolerances.
package cublas
