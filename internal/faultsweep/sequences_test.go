package faultsweep

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// A sequence is realistic user code, written with the public API: body makes
// objects, hands each to e.keep as soon as it exists (the harness closes
// them in reverse order), checks the results it computes, and returns its
// first error.
type sequence struct {
	name string
	body func(e *env) error
	opts func() []fake.Option // the fake's options beyond options(), if any
}

var sequences = []sequence{
	{"kernel", seqKernel, nil},
	{"events", seqEvents, nil},
	{"pool", seqPool, nil},
	{"ipc", seqIPC, nil},
	{"devices", seqDevices, twoDevices},
	{"reset", seqReset, nil},
	{"graphs", seqGraphs, nil},
	{"graph-nodes", seqGraphNodes, nil},
	{"pools", seqPools, twoDevices},
	{"managed", seqManaged, nil},
	{"pitched", seqPitched, nil},
	{"module-ext", seqModuleExt, nil},
	{"ipc-open", seqIPCOpen, nil},
	{"nccl", seqNCCL, twoDevices},
	{"nccl-ranks", seqNCCLRanks, twoDevices},
	{"props", seqProps, nil},
}

// fakeOptions are the options of seq's runs, with extra ones last.
func (seq sequence) fakeOptions(extra ...fake.Option) []fake.Option {
	var opts []fake.Option
	if seq.opts != nil {
		opts = seq.opts()
	}
	return append(opts, extra...)
}

// options are the fake's options every run uses: the Go body of the kernel
// of kernelSource.
func options() []fake.Option {
	// The pretend compiler: the sweep compiles thousands of times, which
	// NVIDIA's NVRTC (0.3 s a compile) would make minutes.
	return []fake.Option{fake.PretendNVRTC(), fake.Kernel("sweep_axpb", func(t fake.Thread, p fake.Ptr, a, b float32, n int32) {
		if i := t.X(); i < int(n) {
			fake.Store(t, p, i, a*fake.Load[float32](t, p, i)+b)
		}
	}), fake.Kernel("sweep_fill<float>", func(t fake.Thread, p fake.Ptr, v float32, n int32) {
		if i := t.X(); i < int(n) {
			fake.Store(t, p, i, v)
		}
	})}
}

const kernelSource = `
extern "C" __global__ void sweep_axpb(float* p, float a, float b, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) p[i] = a * p[i] + b;
}`

const n = 256

// seqKernel: the primary context, a stream, a buffer, an upload, a kernel
// compiled from source and launched, a download, a synchronize.
func seqKernel(e *env) error {
	ctx, err := e.primary()
	if err != nil {
		return err
	}
	s, err := stream.New(ctx, stream.Options{})
	if err != nil {
		return err
	}
	e.keep("stream", s)
	buf, err := memory.Alloc[float32](ctx, n)
	if err != nil {
		return err
	}
	e.keep("buffer", buf)
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)
	}
	if err := memory.CopyToDeviceAsync(s, buf, in); err != nil {
		return err
	}
	m, err := module.Compile(ctx, kernelSource, module.Options{Name: "sweep.cu", NoCache: true})
	if err != nil {
		return err
	}
	e.keep("module", m)
	f, err := m.Function("sweep_axpb")
	if err != nil {
		return err
	}
	cfg := module.Config{Grid: module.Cover(n, 64), Block: module.Dim(64)}
	if err := f.Launch(s, cfg, buf, float32(2), float32(1), int32(n)); err != nil {
		return err
	}
	out := make([]float32, n)
	if err := memory.CopyToHostAsync(s, out, buf); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	for i, v := range out {
		if v != 2*float32(i)+1 {
			return fmt.Errorf("%w: out[%d] = %v, want %v", errWrongResult, i, v, 2*float32(i)+1)
		}
	}
	return nil
}

// seqEvents: two streams, timed events, a fill between them, a stream
// waiting for the other, a host callback, the elapsed time, a context
// synchronize and a synchronous download.
func seqEvents(e *env) error {
	ctx, err := e.primary()
	if err != nil {
		return err
	}
	s1, err := stream.New(ctx, stream.Options{})
	if err != nil {
		return err
	}
	e.keep("stream 1", s1)
	s2, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	if err != nil {
		return err
	}
	e.keep("stream 2", s2)
	start, err := stream.NewEvent(ctx, stream.EventOptions{})
	if err != nil {
		return err
	}
	e.keep("start event", start)
	end, err := stream.NewEvent(ctx, stream.EventOptions{})
	if err != nil {
		return err
	}
	e.keep("end event", end)
	buf, err := memory.Alloc[uint32](ctx, n)
	if err != nil {
		return err
	}
	e.keep("buffer", buf)
	if err := start.Record(s1); err != nil {
		return err
	}
	if err := memory.Fill(s1, buf, uint32(0xC0FFEE)); err != nil {
		return err
	}
	if err := end.Record(s1); err != nil {
		return err
	}
	if err := s2.WaitStream(s1); err != nil {
		return err
	}
	var called atomic.Bool
	if err := s2.Callback(func() { called.Store(true) }); err != nil {
		return err
	}
	if err := s2.Synchronize(); err != nil {
		return err
	}
	if !called.Load() {
		return fmt.Errorf("%w: the callback did not run by the stream's Synchronize", errWrongResult)
	}
	if err := end.Synchronize(); err != nil {
		return err
	}
	done, err := end.Query()
	if err != nil {
		return err
	}
	if !done {
		return fmt.Errorf("%w: a synchronized event is not done", errWrongResult)
	}
	d, err := stream.Elapsed(start, end)
	if err != nil {
		return err
	}
	if d < 0 {
		return fmt.Errorf("%w: elapsed %v", errWrongResult, d)
	}
	if err := ctx.Synchronize(); err != nil {
		return err
	}
	out := make([]uint32, n)
	if err := memory.CopyToHost(out, buf); err != nil {
		return err
	}
	for i, v := range out {
		if v != 0xC0FFEE {
			return fmt.Errorf("%w: out[%d] = %#x", errWrongResult, i, v)
		}
	}
	return nil
}

// seqPool: stream-ordered memory (AllocAsync, FreeAsync, and Close of a
// pool buffer), a view (Slice), fills, a borrowed buffer, a device to device
// copy and pinned host memory.
func seqPool(e *env) error {
	ctx, err := e.primary()
	if err != nil {
		return err
	}
	s, err := stream.New(ctx, stream.Options{})
	if err != nil {
		return err
	}
	e.keep("stream", s)
	a, err := memory.AllocAsync[int32](s, n)
	if err != nil {
		return err
	}
	e.keep("pool buffer", a)
	if err := memory.Fill(s, a, int32(7)); err != nil {
		return err
	}
	view, err := a.Slice(10, 20)
	if err != nil {
		return err
	}
	e.keep("view", view)
	if err := memory.Fill(s, view, int32(9)); err != nil {
		return err
	}
	plain, err := memory.Alloc[int32](ctx, n)
	if err != nil {
		return err
	}
	e.keep("buffer", plain)
	borrowed, err := memory.Borrow[int32](ctx, plain.Ptr(), n, plain)
	if err != nil {
		return err
	}
	e.keep("borrowed buffer", borrowed)
	if err := s.Synchronize(); err != nil {
		return err
	}
	if err := memory.CopyDtoD(borrowed, a); err != nil {
		return err
	}
	tmp, err := memory.AllocAsync[int32](s, n)
	if err != nil {
		return err
	}
	e.keep("pool buffer freed in stream order", tmp)
	if err := memory.CopyDtoDAsync(s, tmp, plain); err != nil {
		return err
	}
	host, err := memory.AllocHost[int32](ctx, n)
	if err != nil {
		return err
	}
	e.keep("pinned host buffer", host)
	if err := memory.CopyToHostAsync(s, host.Slice(), tmp); err != nil {
		return err
	}
	if err := tmp.FreeAsync(s); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	for i, v := range host.Slice() {
		want := int32(7)
		if i >= 10 && i < 20 {
			want = 9
		}
		if v != want {
			return fmt.Errorf("%w: out[%d] = %d, want %d", errWrongResult, i, v, want)
		}
	}
	return nil
}

// seqIPC: an owned context, a stream another library created (raw driver
// calls) wrapped, an upload, memory and an event exported by IPC handles and
// opened in a peer process (a second fake backend), which waits for the
// event and reads the memory.
func seqIPC(e *env) error {
	drv, err := e.driver()
	if err != nil {
		return err
	}
	dev, err := drv.Device(0)
	if err != nil {
		return err
	}
	ctx, err := dev.NewContext(driver.ContextOptions{})
	if err != nil {
		return err
	}
	e.keep("owned context", ctx)
	raw, err := e.rawStream(ctx)
	if err != nil {
		return err
	}
	w, err := stream.Wrap(ctx, raw)
	if err != nil {
		return err
	}
	e.keep("wrapped stream", w)
	buf, err := memory.Alloc[float64](ctx, n)
	if err != nil {
		return err
	}
	e.keep("buffer", buf)
	in := make([]float64, n)
	for i := range in {
		in[i] = float64(i) / 4
	}
	if err := memory.CopyToDeviceAsync(w, buf, in); err != nil {
		return err
	}
	ev, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.DisableTiming | stream.Interprocess})
	if err != nil {
		return err
	}
	e.keep("interprocess event", ev)
	if err := ev.Record(w); err != nil {
		return err
	}
	hm, err := buf.IPCHandle()
	if err != nil {
		return err
	}
	he, err := ev.IPCHandle()
	if err != nil {
		return err
	}

	// The peer process.
	pdev, err := e.peer().Device(0)
	if err != nil {
		return fmt.Errorf("peer: %w", err)
	}
	pctx, err := pdev.PrimaryContext()
	if err != nil {
		return fmt.Errorf("peer: %w", err)
	}
	e.keep("peer primary context", pctx)
	pev, err := stream.OpenIPCEvent(pctx, he)
	if err != nil {
		return err
	}
	e.keep("peer event", pev)
	if err := pev.Synchronize(); err != nil {
		return err
	}
	pbuf, err := memory.OpenIPC[float64](pctx, hm, n)
	if err != nil {
		return err
	}
	e.keep("peer mapping", pbuf)
	out := make([]float64, n)
	if err := memory.CopyToHost(out, pbuf); err != nil {
		return err
	}
	if !slices.Equal(in, out) {
		return fmt.Errorf("%w: the peer read other values", errWrongResult)
	}
	return w.Synchronize()
}

// rawStream creates a stream in ctx the way another library would, with
// raw driver calls on the fake backend, and keeps its destruction.
func (e *env) rawStream(ctx *driver.Context) (uintptr, error) {
	var h uintptr
	err := e.rawCall(ctx, func() error {
		var err error
		h, err = e.b.StreamCreateWithPriority(0, 0)
		return err
	})
	if err != nil {
		if h != 0 {
			// Created, but the pop failed: the stream is ours to destroy.
			e.keepRaw(ctx, h)
		}
		return 0, fmt.Errorf("another library's cuStreamCreateWithPriority: %w", err)
	}
	e.keepRaw(ctx, h)
	return h, nil
}

// keepRaw keeps the destruction of the raw stream h: once cuStreamDestroy
// succeeded, a retry (after a failed pop) has nothing left to do.
func (e *env) keepRaw(ctx *driver.Context, h uintptr) {
	destroyed := false
	e.keepFunc("another library's stream", func() error {
		if destroyed {
			return nil
		}
		return e.rawCall(ctx, func() error {
			err := e.b.StreamDestroy(h)
			destroyed = err == nil
			return err
		})
	})
}

// rawCall runs fn with ctx pushed on the calling OS thread, and returns its
// error, or else the pop's. A pop that fails leaves the thread locked, as
// package driver does, so that the context left current there is never
// inherited by another goroutine.
func (e *env) rawCall(ctx *driver.Context, fn func() error) error {
	runtime.LockOSThread()
	if err := e.b.CtxPushCurrent(ctx.Handle()); err != nil {
		runtime.UnlockOSThread()
		return err
	}
	err := fn()
	if _, perr := e.b.CtxPopCurrent(); perr != nil {
		if err == nil {
			err = perr
		}
		return err
	}
	runtime.UnlockOSThread()
	return err
}

// primary retains device 0's primary context of the env's driver, kept for
// the sequence's cleanup.
func (e *env) primary() (*driver.Context, error) {
	drv, err := e.driver()
	if err != nil {
		return nil, err
	}
	dev, err := drv.Device(0)
	if err != nil {
		return nil, err
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		return nil, err
	}
	e.keep("primary context", ctx)
	return ctx, nil
}
