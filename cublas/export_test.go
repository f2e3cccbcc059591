package cublas

import "github.com/nocgo/cuda/driver/backend"

// quietBLAS is a backend.CUBLAS whose Axpy, Gemm and GemmEx do nothing:
// with it, a test measures what this package itself costs per call (the
// fake's CPU arithmetic, queued as closures on its streams, allocates by
// design, and would hide this package's allocations).
type quietBLAS struct{ backend.CUBLAS }

func (quietBLAS) Axpy(uintptr, backend.BLASType, int, backend.BLASScalar, uintptr, int, uintptr, int) error {
	return nil
}

func (quietBLAS) Gemm(uintptr, backend.BLASType, backend.BLASOp, backend.BLASOp, int, int, int, backend.BLASScalar,
	uintptr, int, uintptr, int, backend.BLASScalar, uintptr, int) error {
	return nil
}

func (quietBLAS) GemmEx(uintptr, backend.BLASOp, backend.BLASOp, int, int, int, backend.BLASScalar,
	uintptr, backend.DataType, int, uintptr, backend.DataType, int, backend.BLASScalar, uintptr, backend.DataType, int,
	backend.BLASComputeType, backend.BLASGemmAlgo) error {
	return nil
}

// QuietRoutines makes h's Axpy, Gemm and GemmEx reach a backend that does
// nothing, until the function returned restores h's own.
func QuietRoutines(h *Handle) (restore func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	own := h.blas
	h.blas = quietBLAS{own}
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.blas = own
	}
}

// quietLt is a backend.CUBLASLt whose Matmul does nothing (see quietBLAS).
type quietLt struct{ backend.CUBLASLt }

func (quietLt) Matmul(uintptr, uintptr, backend.DataType, backend.BLASScalar, uintptr, uintptr, uintptr, uintptr,
	backend.BLASScalar, uintptr, uintptr, uintptr, uintptr, *backend.LtAlgo, uintptr, uintptr, uintptr) error {
	return nil
}

// QuietLt makes l's Matmul reach a backend whose Matmul does nothing,
// until the function returned restores l's own.
func QuietLt(l *Lt) (restore func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	own := l.lt
	l.lt = quietLt{own}
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.lt = own
	}
}

// Plans returns how many plans l keeps.
func Plans(l *Lt) int {
	l.plans.mu.Lock()
	defer l.plans.mu.Unlock()
	return len(l.plans.plans)
}

// RawSgemm returns a call of the seam's cublasSgemm of the n×n matrices a
// (both operands) and c, with no checks: the binding's own cost.
func RawSgemm(h *Handle, a, c uintptr, n int) func() error {
	return func() error {
		return h.blas.Gemm(h.h, backend.BLASFloat32, backend.BLASOpN, backend.BLASOpN, n, n, n,
			backend.HostScalar(1), a, n, a, n, backend.HostScalar(0), c, n)
	}
}
