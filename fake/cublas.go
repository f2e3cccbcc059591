package fake

import (
	"errors"
	"runtime"
	"sync"
	"weak"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/cublas"
	"github.com/nocgo/cuda/fake/internal/ondevice"
)

// The fake's cuBLAS and cuBLASLt (package fake/internal/cublas) compute on
// the CPU, with gonum, in stream order on the fake's devices. Each Backend
// has one of each, made on first use and kept in blasLibs under a weak
// pointer, so that a Backend no longer used is collected with them.

type blasLibs struct {
	blas *cublas.BLAS
	lt   *cublas.Lt
}

var fakeBLAS struct {
	sync.Mutex
	of map[weak.Pointer[Backend]]*blasLibs
}

func (b *Backend) blasLibs() *blasLibs {
	wp := weak.Make(b)
	fakeBLAS.Lock()
	defer fakeBLAS.Unlock()
	if fakeBLAS.of == nil {
		fakeBLAS.of = map[weak.Pointer[Backend]]*blasLibs{}
	}
	if l := fakeBLAS.of[wp]; l != nil {
		return l
	}
	q := weakQueue{wp}
	l := &blasLibs{blas: cublas.New(q, q), lt: cublas.NewLt(q)}
	fakeBLAS.of[wp] = l
	runtime.AddCleanup(b, func(wp weak.Pointer[Backend]) {
		fakeBLAS.Lock()
		delete(fakeBLAS.of, wp)
		fakeBLAS.Unlock()
	}, wp)
	return l
}

// CUBLAS returns the fake's cuBLAS (backend.BLASProvider).
func (b *Backend) CUBLAS() (backend.CUBLAS, error) { return b.blasLibs().blas, nil }

// CUBLASLt returns the fake's cuBLASLt (backend.BLASLtProvider).
func (b *Backend) CUBLASLt() (backend.CUBLASLt, error) { return b.blasLibs().lt, nil }

var (
	_ backend.BLASProvider   = (*Backend)(nil)
	_ backend.BLASLtProvider = (*Backend)(nil)
)

// weakQueue is libQueue, and the driver calls the fake cuBLAS needs,
// through a weak pointer to the Backend.
type weakQueue struct{ wp weak.Pointer[Backend] }

var errBackendGone = errors.New("fake: the Backend was collected")

func (q weakQueue) Enqueue(op string, s uintptr, work func(ondevice.Memory) error) error {
	b := q.wp.Value()
	if b == nil {
		return errBackendGone
	}
	return libQueue{b}.Enqueue(op, s, work)
}

func (q weakQueue) StreamDevice(s uintptr) (int, error) {
	b := q.wp.Value()
	if b == nil {
		return 0, errBackendGone
	}
	return libQueue{b}.StreamDevice(s)
}

func (q weakQueue) CtxGetDevice() (int, error) {
	b := q.wp.Value()
	if b == nil {
		return 0, errBackendGone
	}
	return b.CtxGetDevice()
}

func (q weakQueue) StreamSynchronize(s uintptr) error {
	b := q.wp.Value()
	if b == nil {
		return errBackendGone
	}
	return b.StreamSynchronize(s)
}

func (q weakQueue) StreamGetCaptureInfo(s uintptr) (backend.CaptureStatus, uint64, error) {
	b := q.wp.Value()
	if b == nil {
		return 0, 0, errBackendGone
	}
	return b.StreamGetCaptureInfo(s)
}
