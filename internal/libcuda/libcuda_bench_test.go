package libcuda_test

import (
	"runtime"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libcuda"
)

// benchSetup loads the real driver, skipping when there is none, and
// returns device 0's primary context and an idle stream in it.
func benchSetup(b *testing.B) (backend.API, *driver.Context, uintptr) {
	b.Helper()
	api, err := libcuda.Open()
	if err != nil {
		b.Skip(err)
	}
	drv, err := driver.New(api)
	if err != nil {
		b.Fatal(err)
	}
	dev, err := drv.Device(0)
	if err != nil {
		b.Fatal(err)
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ctx.Close() })
	bind, err := bindCtx(api, ctx)
	if err != nil {
		b.Fatal(err)
	}
	s, err := api.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
	bind.Unbind()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { api.StreamDestroy(s) })
	return api, ctx, s
}

// BenchmarkRealCtxGetCurrent is one raw cuCtxGetCurrent.
func BenchmarkRealCtxGetCurrent(b *testing.B) {
	api, _, _ := benchSetup(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := api.CtxGetCurrent(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRealStreamQueryIdle is cuStreamQuery on a stream with no work.
func BenchmarkRealStreamQueryIdle(b *testing.B) {
	api, _, s := benchSetup(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := api.StreamQuery(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRealPushPop is a cuCtxPushCurrent + cuCtxPopCurrent pair, what
// Bind costs when the context is not current.
func BenchmarkRealPushPop(b *testing.B) {
	api, ctx, _ := benchSetup(b)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	for b.Loop() {
		if err := api.CtxPushCurrent(ctx.Handle()); err != nil {
			b.Fatal(err)
		}
		if _, err := api.CtxPopCurrent(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRealEventRecord is cuEventRecord on an idle stream.
func BenchmarkRealEventRecord(b *testing.B) {
	api, ctx, s := benchSetup(b)
	bind, err := bindCtx(api, ctx)
	if err != nil {
		b.Fatal(err)
	}
	ev, err := api.EventCreate(backend.EventDisableTiming)
	bind.Unbind()
	if err != nil {
		b.Fatal(err)
	}
	defer api.EventDestroy(ev)
	b.ReportAllocs()
	for b.Loop() {
		if err := api.EventRecord(ev, s); err != nil {
			b.Fatal(err)
		}
	}
	api.StreamSynchronize(s)
}
