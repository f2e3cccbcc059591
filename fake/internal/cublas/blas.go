package cublas

import (
	"fmt"
	"sync"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ondevice"
)

// Driver is what the fake cuBLAS needs of the fake driver beyond the
// queue: the current context's device (cublasCreate binds a handle to it),
// and, for the reductions that return their result to the host, waiting
// for a stream and knowing whether it captures.
type Driver interface {
	CtxGetDevice() (int, error)
	StreamSynchronize(s uintptr) error
	StreamGetCaptureInfo(s uintptr) (backend.CaptureStatus, uint64, error)
}

// Version is the cuBLAS version the fake reports: 13.0.2.
const Version = 130002

// BLAS is the fake cuBLAS of one fake driver.
type BLAS struct {
	q   ondevice.Queue
	drv Driver

	mu      sync.Mutex
	handles map[uintptr]*handle
	next    uintptr
}

var _ backend.CUBLAS = (*BLAS)(nil)

// New returns the fake cuBLAS that queues its work on q.
func New(q ondevice.Queue, drv Driver) *BLAS {
	return &BLAS{q: q, drv: drv, handles: map[uintptr]*handle{}, next: 0x7b000000}
}

// handle is a cublasHandle_t's state.
type handle struct {
	dev     int
	stream  uintptr
	ptr     backend.BLASPointerMode
	math    backend.BLASMath
	atomics backend.BLASAtomics
	ws      uintptr
	wsSize  uintptr
}

func blasErr(op string, s backend.BLASStatus, detail string, args ...any) error {
	if len(args) > 0 {
		detail = fmt.Sprintf(detail, args...)
	}
	return &backend.BLASError{Status: s, Op: op, Text: backend.BLASStatusText[s], Detail: detail}
}

func invalid(op, detail string, args ...any) error {
	return blasErr(op, backend.BLASInvalidValue, detail, args...)
}

// get returns a copy of handle h's state.
func (b *BLAS) get(op string, h uintptr) (handle, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.handles[h]
	if st == nil {
		return handle{}, blasErr(op, backend.BLASNotInitialized, "handle %#x is not a live cuBLAS handle", h)
	}
	return *st, nil
}

func (b *BLAS) update(op string, h uintptr, f func(*handle) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.handles[h]
	if st == nil {
		return blasErr(op, backend.BLASNotInitialized, "handle %#x is not a live cuBLAS handle", h)
	}
	return f(st)
}

func (b *BLAS) Create() (uintptr, error) {
	dev, err := b.drv.CtxGetDevice()
	if err != nil {
		return 0, blasErr("cublasCreate_v2", backend.BLASNotInitialized, "no CUDA context current: %v", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next += 0x100
	b.handles[b.next] = &handle{dev: dev}
	return b.next, nil
}

func (b *BLAS) Destroy(h uintptr) error {
	const op = "cublasDestroy_v2"
	st, err := b.get(op, h)
	if err != nil {
		return err
	}
	// cublasDestroy synchronizes (cudaDeviceSynchronize on the handle's
	// device in cuBLAS 12): waiting on the handle's stream is what a
	// user can observe of it.
	_ = b.drv.StreamSynchronize(st.stream)
	b.mu.Lock()
	delete(b.handles, h)
	b.mu.Unlock()
	return nil
}

func (b *BLAS) Version(h uintptr) (int, error) {
	if _, err := b.get("cublasGetVersion_v2", h); err != nil {
		return 0, err
	}
	return Version, nil
}

func (b *BLAS) SetStream(h, s uintptr) error {
	return b.update("cublasSetStream_v2", h, func(st *handle) error {
		st.stream = s
		st.ws, st.wsSize = 0, 0 // cublasSetStream resets the workspace to the default one
		return nil
	})
}

func (b *BLAS) SetWorkspace(h, ptr, size uintptr) error {
	const op = "cublasSetWorkspace_v2"
	return b.update(op, h, func(st *handle) error {
		if (ptr == 0) != (size == 0) || ptr%256 != 0 {
			return invalid(op, "workspace %#x of %d bytes: NULL with a size, a size with NULL, or not 256-byte aligned", ptr, size)
		}
		st.ws, st.wsSize = ptr, size
		return nil
	})
}

func (b *BLAS) SetPointerMode(h uintptr, m backend.BLASPointerMode) error {
	const op = "cublasSetPointerMode_v2"
	return b.update(op, h, func(st *handle) error {
		if m != backend.BLASPointerHost && m != backend.BLASPointerDevice {
			return invalid(op, "pointer mode %d", m)
		}
		st.ptr = m
		return nil
	})
}

func (b *BLAS) SetMathMode(h uintptr, m backend.BLASMath) error {
	const op = "cublasSetMathMode"
	return b.update(op, h, func(st *handle) error {
		mode, flags := m&^backend.BLASDisallowReduction, m&backend.BLASDisallowReduction
		_ = flags
		switch mode {
		case backend.BLASDefaultMath, backend.BLASTensorOpMath, backend.BLASPedanticMath, backend.BLASTF32TensorOpMath:
		default:
			return invalid(op, "math mode %d", m)
		}
		st.math = m
		return nil
	})
}

func (b *BLAS) SetAtomicsMode(h uintptr, m backend.BLASAtomics) error {
	const op = "cublasSetAtomicsMode"
	return b.update(op, h, func(st *handle) error {
		if m != backend.BLASAtomicsNotAllowed && m != backend.BLASAtomicsAllowed {
			return invalid(op, "atomics mode %d", m)
		}
		st.atomics = m
		return nil
	})
}

// tf32 reports whether the handle's math mode lets float32 routines use
// TF32 tensor cores.
func (st *handle) tf32() bool {
	return st.math&^backend.BLASDisallowReduction == backend.BLASTF32TensorOpMath
}

// scalars checks that the scalars agree with the pointer mode.
func (st *handle) scalars(op string, ss ...backend.BLASScalar) error {
	for _, s := range ss {
		if (st.ptr == backend.BLASPointerDevice) != (s.Ptr != 0) {
			return invalid(op, "a scalar does not match the handle's pointer mode (%d)", st.ptr)
		}
	}
	return nil
}

// enqueue queues work on the handle's stream, on the handle's device.
func (b *BLAS) enqueue(op string, st handle, work func(m ondevice.Memory) error) error {
	dev, err := b.q.StreamDevice(st.stream)
	if err != nil {
		return blasErr(op, backend.BLASExecutionFailed, "stream %#x: %v", st.stream, err)
	}
	if dev != st.dev {
		return blasErr(op, backend.BLASExecutionFailed, "stream %#x is on device %d, the handle on device %d", st.stream, dev, st.dev)
	}
	if err := b.q.Enqueue(op, st.stream, work); err != nil {
		return blasErr(op, backend.BLASExecutionFailed, "%v", err)
	}
	return nil
}

// hostResult queues work that computes a reduction for the host, then
// waits for it, as cuBLAS does in host pointer mode.
func (b *BLAS) hostResult(op string, st handle, work func(m ondevice.Memory) error) error {
	status, _, err := b.drv.StreamGetCaptureInfo(st.stream)
	if err == nil && status != backend.CaptureStatusNone {
		return blasErr(op, backend.BLASExecutionFailed, "a result to host memory on a capturing stream (use device pointer mode)")
	}
	if err := b.enqueue(op, st, work); err != nil {
		return err
	}
	if err := b.drv.StreamSynchronize(st.stream); err != nil {
		return blasErr(op, backend.BLASExecutionFailed, "%v", err)
	}
	return nil
}
