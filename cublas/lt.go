package cublas

import (
	"fmt"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Lt is a cuBLASLt handle (cublasLtHandle_t), the matrix-multiply library
// that ships with cuBLAS: Matmul with heuristics that pick the algorithm
// for each shape and epilogues fused into the product (bias, ReLU, GELU).
// Unlike a Handle it is bound to no stream: each Matmul names its stream.
//
// It is owned: Close destroys it and what it prepared (cublasLtDestroy,
// after the descriptors of the products it planned); a second Close is nil,
// and every other method after it returns an error wrapping
// driver.ErrClosed. It holds its context until Close (see driver.Context).
// An Lt is safe for concurrent use: its Matmul calls run concurrently,
// Close waits for them.
type Lt struct {
	lt   backend.CUBLASLt
	hold *core.Hold
	ctx  uintptr // the CUcontext
	dev  *driver.Device
	h    uintptr

	mu      sync.RWMutex // write: Close; read: calls
	closed  bool
	version int
	plans   planCache
}

// ltOf returns the cuBLASLt of ctx's backend.
func ltOf(op string, ctx *driver.Context) (backend.CUBLASLt, error) {
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, err
	}
	return core.Provided(op, c, "cuBLASLt", backend.BLASLtProvider.CUBLASLt)
}

// NewLt creates a cuBLASLt handle in ctx (cublasLtCreate), for products on
// ctx's device. The libcublasLt of the real driver is opened on first use,
// found as libcublas is (NOCGO_CUDA_LIBCUBLASLT overrides).
func NewLt(ctx *driver.Context) (*Lt, error) {
	const op = "cublas.NewLt"
	if ctx == nil {
		return nil, fmt.Errorf("%s: nil context: %w", op, driver.ErrInvalidInput)
	}
	l, err := ltOf(op, ctx)
	if err != nil {
		return nil, err
	}
	hold, h, err := core.ContextOf(ctx).Create(l.Create, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: in %s: %w", op, ctx, err)
	}
	return &Lt{lt: l, hold: hold, ctx: ctx.Handle(), dev: ctx.Device(), h: h, version: l.Version()}, nil
}

func (l *Lt) device() *driver.Device { return l.dev }

// String describes the handle: "cuBLASLt handle 0x... in context 0x...".
func (l *Lt) String() string {
	if l == nil {
		return "cuBLASLt handle <nil>"
	}
	return fmt.Sprintf("cuBLASLt handle %#x in context %#x", l.h, l.ctx)
}

// Version returns the version of the cuBLASLt in use
// (cublasLtGetVersion), major*10000 + minor*100 + patch.
func (l *Lt) Version() (int, error) {
	const op = "cublas.Lt.Version"
	if l == nil || l.hold == nil {
		return 0, fmt.Errorf("%s: nil or zero handle: %w", op, driver.ErrInvalidInput)
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return 0, fmt.Errorf("%s: %s: %w", op, l, driver.ErrClosed)
	}
	return l.version, nil
}

// Close destroys the descriptors of every product the handle planned, then
// the handle (cublasLtDestroy). A second Close is nil; a failed one leaves
// what it could not destroy, to be closed again.
func (l *Lt) Close() error {
	const op = "cublas.Lt.Close"
	if l == nil || l.hold == nil {
		return fmt.Errorf("%s: nil or zero handle: %w", op, driver.ErrInvalidInput)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	err := l.hold.Close(func(backend.API) error {
		if err := l.plans.destroy(l.lt); err != nil {
			return err
		}
		return l.lt.Destroy(l.h)
	})
	if l.hold.Closed() {
		l.closed = true
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
