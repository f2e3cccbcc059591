//go:build linux && (amd64 || arm64)

package libcublas

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
)

// Every call below computes its arguments before the dl.CallN statement
// and makes no function call inside it: host scalars and results are
// locals (16-byte aligned slots of a scalars array, see there) whose
// addresses are converted in the call expression (see package dl),
// selected against the device pointers with the masks of scalars.set, and
// kept alive with runtime.KeepAlive after the call.

// Axpy is cublas?axpy_v2(h, int n, const T* alpha, const T* x, int incx, T* y, int incy).
func (l *Lib) Axpy(h uintptr, t backend.BLASType, n int, alpha backend.BLASScalar, x uintptr, incx int, y uintptr, incy int) error {
	p, s, err := l.typed(famAxpy, t)
	if err != nil {
		return err
	}
	if !ints(n, incx, incy) {
		return l.tooBig(s)
	}
	var sc scalars
	o := sc.base()
	am := sc.set(0, t, alpha)
	r := dl.Call7(p, h, uintptr(n), alpha.Ptr|am&uintptr(unsafe.Pointer(&sc[o])), x, uintptr(incx), y, uintptr(incy))
	runtime.KeepAlive(&sc)
	return l.check(s, r)
}

// Scal is cublas?scal_v2(h, int n, const T* alpha, T* x, int incx).
func (l *Lib) Scal(h uintptr, t backend.BLASType, n int, alpha backend.BLASScalar, x uintptr, incx int) error {
	p, s, err := l.typed(famScal, t)
	if err != nil {
		return err
	}
	if !ints(n, incx) {
		return l.tooBig(s)
	}
	var sc scalars
	o := sc.base()
	am := sc.set(0, t, alpha)
	r := dl.Call5(p, h, uintptr(n), alpha.Ptr|am&uintptr(unsafe.Pointer(&sc[o])), x, uintptr(incx))
	runtime.KeepAlive(&sc)
	return l.check(s, r)
}

func (l *Lib) xy(f family, h uintptr, t backend.BLASType, n int, x uintptr, incx int, y uintptr, incy int) error {
	p, s, err := l.typed(f, t)
	if err != nil {
		return err
	}
	if !ints(n, incx, incy) {
		return l.tooBig(s)
	}
	return l.check(s, dl.Call6(p, h, uintptr(n), x, uintptr(incx), y, uintptr(incy)))
}

// Copy is cublas?copy_v2(h, int n, const T* x, int incx, T* y, int incy).
func (l *Lib) Copy(h uintptr, t backend.BLASType, n int, x uintptr, incx int, y uintptr, incy int) error {
	return l.xy(famCopy, h, t, n, x, incx, y, incy)
}

// Swap is cublas?swap_v2(h, int n, T* x, int incx, T* y, int incy).
func (l *Lib) Swap(h uintptr, t backend.BLASType, n int, x uintptr, incx int, y uintptr, incy int) error {
	return l.xy(famSwap, h, t, n, x, incx, y, incy)
}

// resultMask is all ones for a host result (result 0), 0 for a device one.
func resultMask(result uintptr) uintptr {
	if result == 0 {
		return ^uintptr(0)
	}
	return 0
}

// Dot is cublas?dot[u|c]_v2(h, int n, const T* x, int incx, const T* y, int incy, T* result).
func (l *Lib) Dot(h uintptr, t backend.BLASType, conj bool, n int, x uintptr, incx int, y uintptr, incy int, result uintptr) (complex128, error) {
	f := famDot
	if conj {
		f = famDotc
	}
	p, s, err := l.typed(f, t)
	if err != nil {
		return 0, err
	}
	if !ints(n, incx, incy) {
		return 0, l.tooBig(s)
	}
	var out scalars
	o := out.base()
	rm := resultMask(result)
	r := dl.Call7(p, h, uintptr(n), x, uintptr(incx), y, uintptr(incy), result|rm&uintptr(unsafe.Pointer(&out[o])))
	runtime.KeepAlive(&out)
	if err := l.check(s, r); err != nil {
		return 0, err
	}
	return out.value(t), nil
}

// value reads scalar 0 as type t.
func (sc *scalars) value(t backend.BLASType) complex128 {
	p := unsafe.Pointer(&sc[sc.base()])
	switch t {
	case backend.BLASFloat32:
		return complex(float64(*(*float32)(p)), 0)
	case backend.BLASFloat64:
		return complex(*(*float64)(p), 0)
	case backend.BLASComplex64:
		return complex128(*(*complex64)(p))
	}
	return *(*complex128)(p)
}

// realOf is the real type of t's reductions (Scnrm2 returns a float).
func realOf(t backend.BLASType) backend.BLASType {
	if t == backend.BLASComplex64 {
		return backend.BLASFloat32
	}
	if t == backend.BLASComplex128 {
		return backend.BLASFloat64
	}
	return t
}

func (l *Lib) realReduce(f family, h uintptr, t backend.BLASType, n int, x uintptr, incx int, result uintptr) (float64, error) {
	p, s, err := l.typed(f, t)
	if err != nil {
		return 0, err
	}
	if !ints(n, incx) {
		return 0, l.tooBig(s)
	}
	var out scalars
	o := out.base()
	rm := resultMask(result)
	r := dl.Call5(p, h, uintptr(n), x, uintptr(incx), result|rm&uintptr(unsafe.Pointer(&out[o])))
	runtime.KeepAlive(&out)
	if err := l.check(s, r); err != nil {
		return 0, err
	}
	return real(out.value(realOf(t))), nil
}

// Nrm2 is cublas?nrm2_v2(h, int n, const T* x, int incx, R* result).
func (l *Lib) Nrm2(h uintptr, t backend.BLASType, n int, x uintptr, incx int, result uintptr) (float64, error) {
	return l.realReduce(famNrm2, h, t, n, x, incx, result)
}

// Asum is cublas?asum_v2(h, int n, const T* x, int incx, R* result).
func (l *Lib) Asum(h uintptr, t backend.BLASType, n int, x uintptr, incx int, result uintptr) (float64, error) {
	return l.realReduce(famAsum, h, t, n, x, incx, result)
}

// Iamax is cublasI?amax_v2(h, int n, const T* x, int incx, int* result).
func (l *Lib) Iamax(h uintptr, t backend.BLASType, n int, x uintptr, incx int, result uintptr) (int, error) {
	p, s, err := l.typed(famAmax, t)
	if err != nil {
		return 0, err
	}
	if !ints(n, incx) {
		return 0, l.tooBig(s)
	}
	var out int32
	rm := resultMask(result)
	r := dl.Call5(p, h, uintptr(n), x, uintptr(incx), result|rm&uintptr(unsafe.Pointer(&out)))
	runtime.KeepAlive(&out)
	return int(out), l.check(s, r)
}

// Gemv is cublas?gemv_v2(h, trans, int m, int n, const T* alpha, const T* A,
// int lda, const T* x, int incx, const T* beta, T* y, int incy).
func (l *Lib) Gemv(h uintptr, t backend.BLASType, trans backend.BLASOp, m, n int, alpha backend.BLASScalar, a uintptr, lda int,
	x uintptr, incx int, beta backend.BLASScalar, y uintptr, incy int) error {
	p, s, err := l.typed(famGemv, t)
	if err != nil {
		return err
	}
	if !ints(m, n, lda, incx, incy) {
		return l.tooBig(s)
	}
	var sc scalars
	o := sc.base()
	am, bm := sc.set(0, t, alpha), sc.set(1, t, beta)
	r := dl.Call12(p, h, uintptr(trans), uintptr(m), uintptr(n), alpha.Ptr|am&uintptr(unsafe.Pointer(&sc[o])), a, uintptr(lda),
		x, uintptr(incx), beta.Ptr|bm&uintptr(unsafe.Pointer(&sc[o+2])), y, uintptr(incy))
	runtime.KeepAlive(&sc)
	return l.check(s, r)
}

// Geam is cublas?geam(h, transa, transb, int m, int n, const T* alpha,
// const T* A, int lda, const T* beta, const T* B, int ldb, T* C, int ldc).
func (l *Lib) Geam(h uintptr, t backend.BLASType, ta, tb backend.BLASOp, m, n int, alpha backend.BLASScalar, a uintptr, lda int,
	beta backend.BLASScalar, b uintptr, ldb int, c uintptr, ldc int) error {
	p, s, err := l.typed(famGeam, t)
	if err != nil {
		return err
	}
	if !ints(m, n, lda, ldb, ldc) {
		return l.tooBig(s)
	}
	var sc scalars
	o := sc.base()
	am, bm := sc.set(0, t, alpha), sc.set(1, t, beta)
	r := dl.Call13(p, h, uintptr(ta), uintptr(tb), uintptr(m), uintptr(n), alpha.Ptr|am&uintptr(unsafe.Pointer(&sc[o])), a, uintptr(lda),
		beta.Ptr|bm&uintptr(unsafe.Pointer(&sc[o+2])), b, uintptr(ldb), c, uintptr(ldc))
	runtime.KeepAlive(&sc)
	return l.check(s, r)
}

// Gemm is cublas?gemm_v2(h, transa, transb, int m, int n, int k, const T*
// alpha, const T* A, int lda, const T* B, int ldb, const T* beta, T* C, int ldc).
func (l *Lib) Gemm(h uintptr, t backend.BLASType, ta, tb backend.BLASOp, m, n, k int, alpha backend.BLASScalar, a uintptr, lda int,
	b uintptr, ldb int, beta backend.BLASScalar, c uintptr, ldc int) error {
	p, s, err := l.typed(famGemm, t)
	if err != nil {
		return err
	}
	if !ints(m, n, k, lda, ldb, ldc) {
		return l.tooBig(s)
	}
	var sc scalars
	o := sc.base()
	am, bm := sc.set(0, t, alpha), sc.set(1, t, beta)
	r := dl.Call14(p, h, uintptr(ta), uintptr(tb), uintptr(m), uintptr(n), uintptr(k), alpha.Ptr|am&uintptr(unsafe.Pointer(&sc[o])),
		a, uintptr(lda), b, uintptr(ldb), beta.Ptr|bm&uintptr(unsafe.Pointer(&sc[o+2])), c, uintptr(ldc))
	runtime.KeepAlive(&sc)
	return l.check(s, r)
}

// GemmStridedBatched is cublas?gemmStridedBatched(h, transa, transb, int m,
// int n, int k, const T* alpha, const T* A, int lda, long long strideA,
// const T* B, int ldb, long long strideB, const T* beta, T* C, int ldc,
// long long strideC, int batchCount).
func (l *Lib) GemmStridedBatched(h uintptr, t backend.BLASType, ta, tb backend.BLASOp, m, n, k int, alpha backend.BLASScalar,
	a uintptr, lda int, strideA int64, b uintptr, ldb int, strideB int64,
	beta backend.BLASScalar, c uintptr, ldc int, strideC int64, batch int) error {
	p, s, err := l.typed(famGemmStridedBatched, t)
	if err != nil {
		return err
	}
	if !ints(m, n, k, lda, ldb, ldc, batch) {
		return l.tooBig(s)
	}
	var sc scalars
	o := sc.base()
	am, bm := sc.set(0, t, alpha), sc.set(1, t, beta)
	r := dl.Call18(p, h, uintptr(ta), uintptr(tb), uintptr(m), uintptr(n), uintptr(k), alpha.Ptr|am&uintptr(unsafe.Pointer(&sc[o])),
		a, uintptr(lda), uintptr(strideA), b, uintptr(ldb), uintptr(strideB),
		beta.Ptr|bm&uintptr(unsafe.Pointer(&sc[o+2])), c, uintptr(ldc), uintptr(strideC), uintptr(batch))
	runtime.KeepAlive(&sc)
	return l.check(s, r)
}

// GemmBatched is cublas?gemmBatched(h, transa, transb, int m, int n, int k,
// const T* alpha, const T* const Aarray[], int lda, const T* const
// Barray[], int ldb, const T* beta, T* const Carray[], int ldc, int batchCount).
func (l *Lib) GemmBatched(h uintptr, t backend.BLASType, ta, tb backend.BLASOp, m, n, k int, alpha backend.BLASScalar,
	aArray uintptr, lda int, bArray uintptr, ldb int, beta backend.BLASScalar, cArray uintptr, ldc int, batch int) error {
	p, s, err := l.typed(famGemmBatched, t)
	if err != nil {
		return err
	}
	if !ints(m, n, k, lda, ldb, ldc, batch) {
		return l.tooBig(s)
	}
	var sc scalars
	o := sc.base()
	am, bm := sc.set(0, t, alpha), sc.set(1, t, beta)
	r := dl.Call15(p, h, uintptr(ta), uintptr(tb), uintptr(m), uintptr(n), uintptr(k), alpha.Ptr|am&uintptr(unsafe.Pointer(&sc[o])),
		aArray, uintptr(lda), bArray, uintptr(ldb), beta.Ptr|bm&uintptr(unsafe.Pointer(&sc[o+2])), cArray, uintptr(ldc), uintptr(batch))
	runtime.KeepAlive(&sc)
	return l.check(s, r)
}

// GemmEx is cublasGemmEx(h, transa, transb, int m, int n, int k, const void*
// alpha, const void* A, cudaDataType Atype, int lda, const void* B,
// cudaDataType Btype, int ldb, const void* beta, void* C, cudaDataType
// Ctype, int ldc, cublasComputeType_t computeType, cublasGemmAlgo_t algo).
func (l *Lib) GemmEx(h uintptr, ta, tb backend.BLASOp, m, n, k int, alpha backend.BLASScalar,
	a uintptr, at backend.DataType, lda int, b uintptr, bt backend.DataType, ldb int,
	beta backend.BLASScalar, c uintptr, ct backend.DataType, ldc int, compute backend.BLASComputeType, algo backend.BLASGemmAlgo) error {
	const s = symGemmEx
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	if !ints(m, n, k, lda, ldb, ldc) {
		return l.tooBig(s)
	}
	st := compute.ScaleType()
	var sc scalars
	o := sc.base()
	am, bm := sc.setData(0, st, alpha), sc.setData(1, st, beta)
	r := dl.Call19(p, h, uintptr(ta), uintptr(tb), uintptr(m), uintptr(n), uintptr(k), alpha.Ptr|am&uintptr(unsafe.Pointer(&sc[o])),
		a, uintptr(at), uintptr(lda), b, uintptr(bt), uintptr(ldb), beta.Ptr|bm&uintptr(unsafe.Pointer(&sc[o+2])),
		c, uintptr(ct), uintptr(ldc), uintptr(compute), uintptr(int64(algo)))
	runtime.KeepAlive(&sc)
	return l.check(s, r)
}

// GemmStridedBatchedEx is cublasGemmStridedBatchedEx(h, transa, transb, m,
// n, k, alpha, A, Atype, lda, long long strideA, B, Btype, ldb, long long
// strideB, beta, C, Ctype, ldc, long long strideC, int batchCount,
// computeType, algo).
func (l *Lib) GemmStridedBatchedEx(h uintptr, ta, tb backend.BLASOp, m, n, k int, alpha backend.BLASScalar,
	a uintptr, at backend.DataType, lda int, strideA int64, b uintptr, bt backend.DataType, ldb int, strideB int64,
	beta backend.BLASScalar, c uintptr, ct backend.DataType, ldc int, strideC int64, batch int,
	compute backend.BLASComputeType, algo backend.BLASGemmAlgo) error {
	const s = symGemmStridedBatchedEx
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	if !ints(m, n, k, lda, ldb, ldc, batch) {
		return l.tooBig(s)
	}
	st := compute.ScaleType()
	var sc scalars
	o := sc.base()
	am, bm := sc.setData(0, st, alpha), sc.setData(1, st, beta)
	r := dl.Call23(p, h, uintptr(ta), uintptr(tb), uintptr(m), uintptr(n), uintptr(k), alpha.Ptr|am&uintptr(unsafe.Pointer(&sc[o])),
		a, uintptr(at), uintptr(lda), uintptr(strideA), b, uintptr(bt), uintptr(ldb), uintptr(strideB),
		beta.Ptr|bm&uintptr(unsafe.Pointer(&sc[o+2])), c, uintptr(ct), uintptr(ldc), uintptr(strideC), uintptr(batch),
		uintptr(compute), uintptr(int64(algo)))
	runtime.KeepAlive(&sc)
	return l.check(s, r)
}

// GemmBatchedEx is cublasGemmBatchedEx(h, transa, transb, m, n, k, alpha,
// const void* const Aarray[], Atype, lda, Barray[], Btype, ldb, beta,
// void* const Carray[], Ctype, ldc, int batchCount, computeType, algo).
func (l *Lib) GemmBatchedEx(h uintptr, ta, tb backend.BLASOp, m, n, k int, alpha backend.BLASScalar,
	aArray uintptr, at backend.DataType, lda int, bArray uintptr, bt backend.DataType, ldb int,
	beta backend.BLASScalar, cArray uintptr, ct backend.DataType, ldc int, batch int,
	compute backend.BLASComputeType, algo backend.BLASGemmAlgo) error {
	const s = symGemmBatchedEx
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	if !ints(m, n, k, lda, ldb, ldc, batch) {
		return l.tooBig(s)
	}
	st := compute.ScaleType()
	var sc scalars
	o := sc.base()
	am, bm := sc.setData(0, st, alpha), sc.setData(1, st, beta)
	r := dl.Call20(p, h, uintptr(ta), uintptr(tb), uintptr(m), uintptr(n), uintptr(k), alpha.Ptr|am&uintptr(unsafe.Pointer(&sc[o])),
		aArray, uintptr(at), uintptr(lda), bArray, uintptr(bt), uintptr(ldb), beta.Ptr|bm&uintptr(unsafe.Pointer(&sc[o+2])),
		cArray, uintptr(ct), uintptr(ldc), uintptr(batch), uintptr(compute), uintptr(int64(algo)))
	runtime.KeepAlive(&sc)
	return l.check(s, r)
}
