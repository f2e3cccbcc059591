package conformance

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

func testMemCopySync(t *testing.T, drv *driver.Driver) {
	ctx, _ := memSetup(t, drv)
	const n = 1 << 16
	a := memAlloc[float32](t, ctx, n)
	b := memAlloc[float32](t, ctx, n)
	src := memIota(n, 0.5)
	must(t, memory.CopyToDevice(a, src))
	must(t, memory.CopyDtoD(b, a))
	src[0] = -1 // the copies are complete: changing src changes nothing
	got := memRead(t, b)
	memSame(t, memIota(n, 0.5), got)

	// Copies work from any goroutine, whatever context is current on its
	// thread, and leave that context current.
	dev := ctx.Device()
	other, err := dev.NewContext(driver.ContextOptions{})
	must(t, err)
	defer func() { must(t, other.Close()) }()
	api := raw(t, drv)
	runtime.LockOSThread()
	must(t, api.CtxPushCurrent(other.Handle()))
	err = memory.CopyToDevice(a, memIota(n, 3))
	cur, cerr := api.CtxGetCurrent()
	_, perr := api.CtxPopCurrent()
	runtime.UnlockOSThread()
	must(t, err)
	must(t, cerr)
	must(t, perr)
	equal(t, cur, other.Handle(), "the caller's context is current again")
	memSame(t, memIota(n, 3), memRead(t, a))

	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := a.Slice(g*1024, (g+1)*1024)
			if err != nil {
				errs[g] = err
				return
			}
			if err := memory.CopyToDevice(v, memIota(1024, float32(g*1000))); err != nil {
				errs[g] = err
				return
			}
			out := make([]float32, 1024)
			if err := memory.CopyToHost(out, v); err != nil {
				errs[g] = err
				return
			}
			if out[1023] != float32(g*1000+1023) {
				errs[g] = fmt.Errorf("element 1023 is %v, want %v", out[1023], float32(g*1000+1023))
			}
		}()
	}
	wg.Wait()
	for g, err := range errs {
		noError(t, err, "goroutine %d", g)
	}
}

func testMemCopyAsync(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	const n = 1 << 16
	a := memAlloc[float32](t, ctx, n)
	b := memAlloc[float32](t, ctx, n)
	src := memIota(n, 1)
	must(t, memory.CopyToDeviceAsync(s, a, src))
	must(t, memory.CopyDtoDAsync(s, b, a))
	must(t, memory.Fill(s, a, float32(0)))
	out := make([]float32, n)
	must(t, memory.CopyToHostAsync(s, out, b))
	must(t, s.Synchronize())
	memSame(t, memIota(n, 1), out, "stream order: the fill of a came after the copy out of a")
	memSame(t, make([]float32, n), memRead(t, a))

	// From pinned memory, both ways.
	h, err := memory.AllocHost[float32](ctx, n)
	must(t, err)
	defer func() { must(t, h.Close()) }()
	copy(h.Slice(), memIota(n, 7))
	must(t, memory.CopyToDeviceAsync(s, b, h.Slice()))
	must(t, memory.CopyDtoDAsync(s, a, b))
	// Pinned memory is read when the stream runs the copy: only touch it
	// once the stream is done.
	must(t, s.Synchronize())
	clear(h.Slice())
	must(t, memory.CopyToHostAsync(s, h.Slice(), a))
	must(t, s.Synchronize())
	memSame(t, memIota(n, 7), h.Slice())
}

func testMemCopyChecks(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	d8 := memAlloc[int32](t, ctx, 8)
	d4 := memAlloc[int32](t, ctx, 4)
	pattern := []int32{1, 2, 3, 4, 5, 6, 7, 8}
	must(t, memory.CopyToDevice(d8, pattern))
	must(t, memory.CopyToDevice(d4, pattern[:4]))
	sentinel := func(n int) []int32 { return memFilled(n, int32(-7)) }

	checkFit := func(err error, what string) {
		t.Helper()
		errorIs(t, err, driver.ErrInvalidValue, what)
		errorContains(t, err, "does not fit", what)
	}
	// A source longer than its destination does not fit: nothing is copied.
	checkFit(memory.CopyToDevice(d8, sentinel(9)), "CopyToDevice")
	checkFit(memory.CopyToDeviceAsync(s, d8, sentinel(9)), "CopyToDeviceAsync")
	h7 := sentinel(7)
	checkFit(memory.CopyToHost(h7, d8), "CopyToHost")
	checkFit(memory.CopyToHostAsync(s, h7, d8), "CopyToHostAsync")
	equal(t, h7, sentinel(7), "the host side is untouched")
	checkFit(memory.CopyDtoD(d4, d8), "CopyDtoD longer src")
	checkFit(memory.CopyDtoDAsync(s, d4, d8), "CopyDtoDAsync longer src")
	must(t, s.Synchronize())
	equal(t, memRead(t, d8), pattern)
	equal(t, memRead(t, d4), pattern[:4])

	// A source that fits fills the front of the destination; the rest of
	// it is untouched. An empty host slice copies nothing.
	must(t, memory.CopyToDevice(d8, []int32{-1, -2}))
	must(t, memory.CopyToDevice(d8, nil))
	must(t, memory.CopyToDeviceAsync(s, d8, []int32{-3}))
	must(t, s.Synchronize())
	equal(t, memRead(t, d8), []int32{-3, -2, 3, 4, 5, 6, 7, 8})
	h10 := sentinel(10)
	must(t, memory.CopyToHost(h10, d4))
	equal(t, h10, []int32{1, 2, 3, 4, -7, -7, -7, -7, -7, -7})
	must(t, memory.CopyDtoD(d8, d4))
	equal(t, memRead(t, d8), []int32{1, 2, 3, 4, 5, 6, 7, 8})
	must(t, memory.CopyToDevice(d8, []int32{9, 9, 9, 9, 9, 9, 9, 9}))
	must(t, memory.CopyDtoDAsync(s, d8, d4))
	must(t, s.Synchronize())
	equal(t, memRead(t, d8), []int32{1, 2, 3, 4, 9, 9, 9, 9})
	must(t, memory.CopyToDevice(d8, pattern))

	// Overlapping views of one buffer are refused; disjoint ones copy.
	lo, err := d8.Slice(0, 4)
	must(t, err)
	mid, err := d8.Slice(2, 6)
	must(t, err)
	hi, err := d8.Slice(4, 8)
	must(t, err)
	errorContains(t, memory.CopyDtoD(mid, lo), "overlap")
	errorIs(t, memory.CopyDtoDAsync(s, lo, mid), driver.ErrInvalidValue)
	errorIs(t, memory.CopyDtoD(lo, lo), driver.ErrInvalidValue)
	must(t, s.Synchronize())
	equal(t, memRead(t, d8), pattern)
	must(t, memory.CopyDtoD(hi, lo))
	equal(t, memRead(t, d8), []int32{1, 2, 3, 4, 1, 2, 3, 4})

	// A closed or nil stream queues nothing.
	closed, err := stream.New(ctx, stream.Options{})
	must(t, err)
	must(t, closed.Close())
	errorIs(t, memory.CopyToDeviceAsync(closed, d4, sentinel(4)), driver.ErrClosed)
	errorIs(t, memory.CopyDtoDAsync(closed, lo, d4), driver.ErrClosed)
	errorIs(t, memory.Fill(closed, d4, 0), driver.ErrClosed)
	errorIs(t, memory.CopyToDeviceAsync(nil, d4, sentinel(4)), driver.ErrInvalidValue)
	errorIs(t, memory.Fill(nil, d4, 0), driver.ErrInvalidValue)
	h := sentinel(4)
	errorIs(t, memory.CopyToHostAsync(closed, h, d4), driver.ErrClosed)
	equal(t, h, sentinel(4))
	equal(t, memRead(t, d4), pattern[:4])
}

func testMemCopyContexts(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	other, err := ctx.Device().NewContext(driver.ContextOptions{})
	must(t, err)
	defer func() { must(t, other.Close()) }()
	const n = 4096
	a := memAlloc[float32](t, ctx, n)
	b, err := memory.Alloc[float32](other, n)
	must(t, err)
	defer func() { must(t, b.Close()) }()
	isSame(t, b.Context(), other)

	// Between contexts: peer copies, synchronous and on a stream of either.
	must(t, memory.CopyToDevice(a, memIota(n, 1)))
	must(t, memory.CopyDtoD(b, a))
	memSame(t, memIota(n, 1), memRead(t, b))
	must(t, memory.Fill(s, a, float32(0)))
	must(t, memory.CopyDtoDAsync(s, a, b))
	out := make([]float32, n)
	must(t, memory.CopyToHostAsync(s, out, a))
	must(t, s.Synchronize())
	memSame(t, memIota(n, 1), out)

	// A stream of another context of the same device reaches the buffer.
	must(t, memory.CopyToDeviceAsync(s, b, memIota(n, 9)))
	must(t, memory.CopyToHostAsync(s, out, b))
	must(t, s.Synchronize())
	memSame(t, memIota(n, 9), out)

	// A memset runs in its stream's context: another context's memory is
	// refused, and left as it was.
	errorIs(t, memory.Fill(s, b, float32(3)), driver.ErrWrongContext)
	must(t, s.Synchronize())
	memSame(t, memIota(n, 9), memRead(t, b))
	s2, err := stream.New(other, stream.Options{})
	must(t, err)
	defer func() { must(t, s2.Close()) }()
	must(t, memory.Fill(s2, b, float32(3)))
	must(t, s2.Synchronize())
	memSame(t, memFilled(n, float32(3)), memRead(t, b))
}

func testMemSpecialStreams(t *testing.T, drv *driver.Driver) {
	ctx, _ := memSetup(t, drv)
	const n = 1024
	api := raw(t, drv)
	for _, sp := range []struct {
		name string
		s    *stream.Stream
	}{{"default", special(t, stream.Default, ctx)}, {"legacy", special(t, stream.Legacy, ctx)}, {"per-thread", special(t, stream.PerThread, ctx)}} {
		t.Run(sp.name, func(t *testing.T) {
			a := memAlloc[uint16](t, ctx, n)
			b := memAlloc[uint16](t, ctx, n)
			out := make([]uint16, n)
			// The special streams bind ctx for the call and unbind: the
			// thread's context stack is as it was.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			before, err := api.CtxGetCurrent()
			must(t, err)
			must(t, memory.Fill(sp.s, a, uint16(0xbeef)))
			must(t, memory.CopyDtoDAsync(sp.s, b, a))
			must(t, memory.CopyToHostAsync(sp.s, out, b))
			must(t, sp.s.Synchronize())
			after, err := api.CtxGetCurrent()
			must(t, err)
			equal(t, after, before)
			memSame(t, memFilled(n, uint16(0xbeef)), out)
		})
	}
}

func testMemFill(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	const n = 333
	u8 := memAlloc[uint8](t, ctx, n)
	must(t, memory.Fill(s, u8, 0xab))
	i16 := memAlloc[int16](t, ctx, n)
	must(t, memory.Fill(s, i16, -2))
	f32 := memAlloc[float32](t, ctx, n)
	must(t, memory.Fill(s, f32, 1.25))
	pair := memAlloc[[2]uint16](t, ctx, n)
	must(t, memory.Fill(s, pair, [2]uint16{1, 2}))
	f64 := memAlloc[float64](t, ctx, n)
	must(t, memory.Fill(s, f64, 0))
	c64 := memAlloc[complex64](t, ctx, n)
	must(t, memory.Fill(s, c64, complex(1.5, 1.5)))
	u64 := memAlloc[uint64](t, ctx, n)
	must(t, memory.Fill(s, u64, 0x0000_0007_0000_0007))
	must(t, s.Synchronize())
	memSame(t, memFilled(n, uint8(0xab)), memRead(t, u8))
	memSame(t, memFilled(n, int16(-2)), memRead(t, i16))
	memSame(t, memFilled(n, float32(1.25)), memRead(t, f32))
	memSame(t, memFilled(n, [2]uint16{1, 2}), memRead(t, pair))
	memSame(t, memFilled(n, float64(0)), memRead(t, f64))
	memSame(t, memFilled(n, complex64(complex(1.5, 1.5))), memRead(t, c64))
	memSame(t, memFilled(n, uint64(0x0000_0007_0000_0007)), memRead(t, u64))

	// Values that no memset can write are refused and write nothing.
	err := memory.Fill(s, f64, 1.0)
	errorIs(t, err, driver.ErrInvalidValue)
	errorContains(t, err, "equal halves")
	type rgb [3]uint8
	c := memAlloc[rgb](t, ctx, n)
	errorIs(t, memory.Fill(s, c, rgb{1, 2, 3}), driver.ErrInvalidValue)
	type wide [4]float32
	w := memAlloc[wide](t, ctx, 2)
	errorIs(t, memory.Fill(s, w, wide{}), driver.ErrInvalidValue)
	must(t, s.Synchronize())
	memSame(t, memFilled(n, float64(0)), memRead(t, f64))

	// A byte pattern over any buffer through its Bytes view.
	bv, err := f32.Bytes()
	must(t, err)
	must(t, memory.Fill(s, bv, 0))
	must(t, s.Synchronize())
	memSame(t, make([]float32, n), memRead(t, f32))
}
