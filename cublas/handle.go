package cublas

import (
	"fmt"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// Handle is a cuBLAS handle (cublasHandle_t) bound to a stream: every
// routine called with it queues its work on that stream, in the stream's
// context, and returns (the reductions in HostPointers mode wait for their
// result). It is owned: Close destroys it (cublasDestroy); a second Close
// is nil, and every other method after it returns an error wrapping
// driver.ErrClosed. It holds its stream's context until Close (see
// driver.Context), but not the stream: the stream (and a workspace) must
// stay open while the handle uses it.
//
// A Handle is safe for concurrent use; its routines run concurrently with
// each other, while SetStream, SetWorkspace, the mode setters and Close
// wait for the calls in progress. Calls from several goroutines on one
// handle queue on the one stream, in no particular order.
type Handle struct {
	blas backend.CUBLAS
	hold *core.Hold
	ctx  uintptr // the CUcontext
	dev  *driver.Device
	h    uintptr

	mu      sync.RWMutex // write: configuration and Close; read: calls
	s       *stream.Stream
	q       *core.Queue
	mode    PointerMode
	ws      *memory.Buffer[byte]
	closed  bool
	version int
}

// PointerMode says where the scalars (alpha, beta) and the results of the
// reductions are (cublasPointerMode_t).
type PointerMode int32

// The pointer modes.
const (
	// HostPointers: scalars are Host values and reductions return their
	// result, waiting for it (the default).
	HostPointers PointerMode = PointerMode(backend.BLASPointerHost)
	// DevicePointers: scalars are OnDevice buffers, read when the work
	// runs, and reductions write their result to a device buffer without
	// waiting (the *To forms).
	DevicePointers PointerMode = PointerMode(backend.BLASPointerDevice)
)

// MathMode is a handle's math mode (cublasMath_t): whether float32
// routines may use reduced precision on tensor cores.
type MathMode int32

// The math modes.
const (
	// DefaultMath: float32 stays float32 (the default).
	DefaultMath MathMode = MathMode(backend.BLASDefaultMath)
	// TF32Math lets float32 routines (Gemm and its batched forms, GemmEx
	// with Compute32F) round their inputs to TF32 on the tensor cores:
	// several times faster, with about 3 decimal digits per input.
	TF32Math MathMode = MathMode(backend.BLASTF32TensorOpMath)
	// PedanticMath forces the exact precision of the compute type
	// everywhere (for tests).
	PedanticMath MathMode = MathMode(backend.BLASPedanticMath)
)

func (m MathMode) valid() bool { return m == DefaultMath || m == TF32Math || m == PedanticMath }

// blasOf returns the cuBLAS of ctx's backend.
func blasOf(op string, ctx *driver.Context) (backend.CUBLAS, error) {
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, err
	}
	return core.Provided(op, c, "cuBLAS", backend.BLASProvider.CUBLAS)
}

// New creates a cuBLAS handle bound to s, on s's device and in its
// context (cublasCreate, cublasSetStream): host pointer mode, the default
// math mode, cuBLAS's own workspace. The libcublas of the real driver is
// opened on first use (see package loader). s may be owned, wrapped or a
// special stream.
func New(s *stream.Stream) (*Handle, error) {
	const op = "cublas.New"
	q, err := core.OpenQueue(op, s)
	if err != nil {
		return nil, err
	}
	ctx := s.Context()
	b, err := blasOf(op, ctx)
	if err != nil {
		return nil, err
	}
	var version int
	hold, h, err := core.ContextOf(ctx).Create(b.Create, func(h uintptr) error {
		var err error
		if version, err = b.Version(h); err != nil {
			return err
		}
		return b.SetStream(h, s.Handle())
	}, b.Destroy)
	if err != nil {
		return nil, fmt.Errorf("%s: on %s: %w", op, s, err)
	}
	return &Handle{blas: b, hold: hold, ctx: ctx.Handle(), dev: ctx.Device(), h: h, s: s, q: q, version: version}, nil
}

// String describes the handle: "cuBLAS handle 0x... on stream ...".
func (h *Handle) String() string {
	if h == nil {
		return "cuBLAS handle <nil>"
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	return fmt.Sprintf("cuBLAS handle %#x on %s", h.h, h.s)
}

// Close destroys the handle (cublasDestroy, which waits for its work). A
// second Close is nil. A failed destroy leaves the handle open, to be
// closed again.
func (h *Handle) Close() error {
	const op = "cublas.Handle.Close"
	if h == nil || h.hold == nil {
		return fmt.Errorf("%s: nil or zero handle: %w", op, driver.ErrInvalidInput)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	err := h.hold.Close(func(backend.API) error { return h.blas.Destroy(h.h) })
	if h.hold.Closed() {
		h.closed = true
		h.ws = nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Version returns the version of the cuBLAS in use (cublasGetVersion),
// major*10000 + minor*100 + patch: 130002 for 13.0.2.
func (h *Handle) Version() (int, error) {
	if err := h.check("cublas.Handle.Version"); err != nil {
		return 0, err
	}
	return h.version, nil
}

// Stream returns the stream the handle queues its work on.
func (h *Handle) Stream() *stream.Stream {
	if h == nil {
		return nil
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.s
}

// check reports whether the handle can be used.
func (h *Handle) check(op string) error {
	if h == nil || h.hold == nil {
		return fmt.Errorf("%s: nil or zero handle: %w", op, driver.ErrInvalidInput)
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.closed {
		return fmt.Errorf("%s: cuBLAS handle %#x: %w", op, h.h, driver.ErrClosed)
	}
	return nil
}

// configure runs set, a configuration call, with the handle's context
// bound and no call in progress.
func (h *Handle) configure(op string, set func() error) error {
	if h == nil || h.hold == nil {
		return fmt.Errorf("%s: nil or zero handle: %w", op, driver.ErrInvalidInput)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return fmt.Errorf("%s: cuBLAS handle %#x: %w", op, h.h, driver.ErrClosed)
	}
	if err := h.hold.Do(func(backend.API) error { return set() }); err != nil {
		return fmt.Errorf("%s: cuBLAS handle %#x: %w", op, h.h, err)
	}
	return nil
}

// SetStream binds the handle to s (cublasSetStream), which must be in the
// handle's context; later calls queue their work on s. As in cuBLAS, it
// also returns the handle to cuBLAS's own workspace (SetWorkspace again to
// use another).
func (h *Handle) SetStream(s *stream.Stream) error {
	const op = "cublas.Handle.SetStream"
	q, err := core.OpenQueue(op, s)
	if err != nil {
		return err
	}
	if err := h.check(op); err != nil {
		return err
	}
	if s.Context().Handle() != h.ctx {
		return fmt.Errorf("%s: %s is not in the handle's context %#x: %w", op, s, h.ctx, driver.ErrWrongContext)
	}
	return h.configure(op, func() error {
		if err := h.blas.SetStream(h.h, s.Handle()); err != nil {
			return err
		}
		h.s, h.q, h.ws = s, q, nil
		return nil
	})
}

// SetWorkspace gives cuBLAS ws as its workspace (cublasSetWorkspace), in
// place of the one it allocates itself; nil returns to cuBLAS's own. ws
// must be on the handle's device, start 256-byte aligned (an Alloc buffer
// does) and stay open until the handle's work is done and the handle
// closed or given another workspace; NVIDIA recommends 32 MiB on Hopper.
// With a workspace of the user's, cuBLAS allocates nothing during calls,
// which stream capture needs.
func (h *Handle) SetWorkspace(ws *memory.Buffer[byte]) error {
	const op = "cublas.Handle.SetWorkspace"
	if err := h.check(op); err != nil {
		return err
	}
	var p, n uintptr
	if ws != nil {
		if err := onDevice(h.dev, op, "workspace", ws.Closed(), ws.Context(), ws); err != nil {
			return err
		}
		p, n = ws.Ptr(), uintptr(ws.Len())
		if p%256 != 0 {
			return fmt.Errorf("%s: %s starts at %#x, not 256-byte aligned: %w", op, ws, p, driver.ErrInvalidInput)
		}
		if n == 0 {
			p = 0
		}
	}
	return h.configure(op, func() error {
		if err := h.blas.SetWorkspace(h.h, p, n); err != nil {
			return err
		}
		h.ws = ws
		return nil
	})
}

// SetPointerMode sets where scalars and results are (cublasSetPointerMode).
func (h *Handle) SetPointerMode(m PointerMode) error {
	const op = "cublas.Handle.SetPointerMode"
	if m != HostPointers && m != DevicePointers {
		return fmt.Errorf("%s: pointer mode %d: %w", op, m, driver.ErrInvalidInput)
	}
	return h.configure(op, func() error {
		if err := h.blas.SetPointerMode(h.h, backend.BLASPointerMode(m)); err != nil {
			return err
		}
		h.mode = m
		return nil
	})
}

// PointerMode returns the handle's pointer mode.
func (h *Handle) PointerMode() PointerMode {
	if h == nil {
		return HostPointers
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.mode
}

// SetMathMode sets the handle's math mode (cublasSetMathMode).
func (h *Handle) SetMathMode(m MathMode) error {
	const op = "cublas.Handle.SetMathMode"
	if !m.valid() {
		return fmt.Errorf("%s: math mode %d: %w", op, m, driver.ErrInvalidInput)
	}
	return h.configure(op, func() error { return h.blas.SetMathMode(h.h, backend.BLASMath(m)) })
}

// SetAtomics allows or forbids cuBLAS routines that use atomics, which
// are faster but not bitwise reproducible from run to run
// (cublasSetAtomicsMode; forbidden by default).
func (h *Handle) SetAtomics(allowed bool) error {
	m := backend.BLASAtomicsNotAllowed
	if allowed {
		m = backend.BLASAtomicsAllowed
	}
	return h.configure("cublas.Handle.SetAtomics", func() error { return h.blas.SetAtomicsMode(h.h, m) })
}

func (h *Handle) device() *driver.Device { return h.dev }

// onDevice checks a buffer for a call: open and on dev, the device of the
// handle the call is made with. what names the buffer in an error; it is
// a Stringer, formatted only on the error path, so that a call that passes
// its checks allocates nothing (a Buffer's String formats with fmt).
func onDevice(dev *driver.Device, op, role string, closed bool, ctx *driver.Context, what fmt.Stringer) error {
	if ctx == nil {
		return fmt.Errorf("%s: %s: nil buffer: %w", op, role, driver.ErrInvalidInput)
	}
	if closed {
		return fmt.Errorf("%s: %s: %s: %w", op, role, what, driver.ErrClosed)
	}
	if ctx.Device() != dev {
		return fmt.Errorf("%s: %s: %s is not on the handle's device: %w", op, role, what, driver.ErrWrongContext)
	}
	return nil
}

// call is a routine call in progress: the handle's read lock and its
// context bound on the calling OS thread.
type call struct {
	h  *Handle
	bd core.Binding
}

// enter starts a routine call: the handle open, its stream open, the
// context bound. The caller must end it with leave.
func (h *Handle) enter(op string) (call, error) {
	if h == nil || h.hold == nil {
		return call{}, fmt.Errorf("%s: nil or zero handle: %w", op, driver.ErrInvalidInput)
	}
	h.mu.RLock()
	if h.closed {
		h.mu.RUnlock()
		return call{}, fmt.Errorf("%s: cuBLAS handle %#x: %w", op, h.h, driver.ErrClosed)
	}
	if h.q.Hold.Closed() {
		h.mu.RUnlock()
		return call{}, fmt.Errorf("%s: the handle's stream: %w", op, driver.ErrClosed)
	}
	bd, err := h.hold.Bind()
	if err != nil {
		h.mu.RUnlock()
		return call{}, fmt.Errorf("%s: %w", op, err)
	}
	return call{h: h, bd: bd}, nil
}

// leave ends a call, returning err (wrapped with op) or the unbinding's
// error.
func (c call) leave(op string, err error) error {
	uerr := c.bd.Unbind()
	c.h.mu.RUnlock()
	if err != nil {
		return wrapOnce(op, err, "cuBLAS handle %#x", c.h.h)
	}
	return uerr
}
