package segscale

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// Result reports a Run.
type Result struct {
	N       int              // elements checked
	Device  string           // the device's name
	Arch    string           // what NVRTC compiled for ("sm_90")
	Kind    module.ImageKind // CUBIN or PTX
	Cached  bool             // the compile came from the on-disk cache
	Compile time.Duration    // module.Compile, cache lookup included
	Run     time.Duration    // launch and stream synchronisation
}

// String is the one-line report of a successful Run.
func (r Result) String() string {
	src := "compiled"
	if r.Cached {
		src = "from cache"
	}
	return fmt.Sprintf("segment_scale: %d elements on %s match the Go reference exactly (%s %s, %s in %v; kernel %v)",
		r.N, r.Device, r.Kind, r.Arch, src, r.Compile.Round(time.Microsecond), r.Run.Round(time.Microsecond))
}

// Run is the self-test of the run-time workflow, as a Go program embedded
// next to a foreign CUDA user (PyTorch, a C library) would run it, on device
// 0 of drv, whose backend is api (the one drv was made with by
// [driver.New]: Run makes the foreign library's calls on it):
//
//  1. memory and a stream are created by raw driver calls on api, as the
//     foreign library would (cuMemAlloc, cuStreamCreate);
//  2. the memory is borrowed (memory.Borrow) and the stream wrapped
//     (stream.Wrap): nothing here owns them;
//  3. segment_scale is compiled at run time (module.Compile with opts; the
//     Name defaults to "segment_scale.cu") and launched on the wrapped
//     stream over n elements;
//  4. the result is copied back and compared with Reference bit for bit.
//
// Everything is released before Run returns, the raw memory and stream by
// raw driver calls again. A mismatch is an error naming the first wrong
// element.
func Run(drv *driver.Driver, api backend.API, n int, opts module.Options) (Result, error) {
	res := Result{N: n}
	if drv == nil {
		return res, fmt.Errorf("segscale: nil driver: %w", driver.ErrInvalidValue)
	}
	if api == nil {
		return res, fmt.Errorf("segscale: nil backend: %w", driver.ErrInvalidValue)
	}
	if n <= 0 || n > math.MaxInt32 {
		return res, fmt.Errorf("segscale: n = %d: want 1..%d elements: %w", n, math.MaxInt32, driver.ErrInvalidValue)
	}
	if opts.Name == "" {
		opts.Name = Name + ".cu"
	}
	dev, err := drv.Device(0)
	if err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	if res.Device, err = dev.Name(); err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	defer ctx.Close()

	// 1. The foreign side: raw allocations and a raw stream.
	raw, err := newForeign(api, ctx, n)
	if err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	defer raw.release()

	// 2. Borrow and wrap them.
	in, err := memory.Borrow[float32](ctx, raw.in, n, raw)
	if err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	defer in.Close()
	out, err := memory.Borrow[float32](ctx, raw.out, n, raw)
	if err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	defer out.Close()
	s, err := stream.Wrap(ctx, raw.stream)
	if err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	defer s.Close()

	host := Input(n)
	if err := memory.CopyToDeviceAsync(s, in, host); err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	// Poison the output, so that an element the kernel skips is seen.
	if err := memory.Fill(s, out, float32(math.NaN())); err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}

	// 3. Compile and launch.
	t0 := time.Now()
	m, err := module.Compile(ctx, Source, opts)
	if err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	defer m.Close()
	res.Compile = time.Since(t0)
	res.Arch, res.Kind, res.Cached = m.Arch(), m.Kind(), m.Cached()
	f, err := m.Function(Name)
	if err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	const block = 256
	t1 := time.Now()
	cfg := module.Config{Grid: module.Cover(n, block), Block: module.Dim(block)}
	if err := f.Launch(s, cfg, out, in, int32(n)); err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	got := make([]float32, n)
	if err := memory.CopyToHostAsync(s, got, out); err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	if err := s.Synchronize(); err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	res.Run = time.Since(t1)

	// 4. Check.
	want := make([]float32, n)
	Reference(want, host)
	if err := Compare(got, want); err != nil {
		return res, fmt.Errorf("segscale: %w", err)
	}
	return res, nil
}

// Compare checks got against want bit for bit and describes the first
// difference and how many there are.
func Compare(got, want []float32) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d results for %d expected", len(got), len(want))
	}
	bad, first := 0, -1
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d elements differ from the Go reference; the first is out[%d] = %v, want %v",
			bad, len(want), first, got[first], want[first])
	}
	return nil
}

// foreign is memory and a stream made by raw driver calls, standing for
// another library's.
type foreign struct {
	api     backend.API
	ctx     *driver.Context
	in, out uintptr
	stream  uintptr
}

func newForeign(api backend.API, ctx *driver.Context, n int) (*foreign, error) {
	f := &foreign{api: api, ctx: ctx}
	unbind, err := bind(api, ctx)
	if err != nil {
		return nil, err
	}
	defer unbind()
	size := uintptr(n) * 4
	if f.in, err = api.MemAlloc(size); err != nil {
		return nil, fmt.Errorf("raw cuMemAlloc: %w", err)
	}
	if f.out, err = api.MemAlloc(size); err != nil {
		api.MemFree(f.in)
		return nil, fmt.Errorf("raw cuMemAlloc: %w", err)
	}
	if f.stream, err = api.StreamCreateWithPriority(backend.StreamNonBlocking, 0); err != nil {
		api.MemFree(f.in)
		api.MemFree(f.out)
		return nil, fmt.Errorf("raw cuStreamCreate: %w", err)
	}
	return f, nil
}

// release frees what newForeign made, as its owner would.
func (f *foreign) release() {
	unbind, err := bind(f.api, f.ctx)
	if err != nil {
		return
	}
	defer unbind()
	f.api.StreamSynchronize(f.stream)
	f.api.StreamDestroy(f.stream)
	f.api.MemFree(f.in)
	f.api.MemFree(f.out)
}

// bind makes ctx current on the calling OS thread with raw calls, as a
// foreign library would before its own calls: it locks the thread and
// pushes ctx unless it is current already. The function it returns pops
// what it pushed and unlocks the thread.
func bind(api backend.API, ctx *driver.Context) (func(), error) {
	runtime.LockOSThread()
	cur, err := api.CtxGetCurrent()
	if err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("raw cuCtxGetCurrent: %w", err)
	}
	if cur == ctx.Handle() {
		return runtime.UnlockOSThread, nil
	}
	if err := api.CtxPushCurrent(ctx.Handle()); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("raw cuCtxPushCurrent: %w", err)
	}
	return func() {
		api.CtxPopCurrent()
		runtime.UnlockOSThread()
	}, nil
}
