package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// testMemory checks package memory over the backend: owned, stream-ordered
// and borrowed buffers, views, copies and fills, pinned host memory and IPC
// export, empty buffers and views, and buffers outliving their Context
// reference. Each case also checks that a failed check changes nothing.
func testMemory(t *testing.T, drv *driver.Driver) {
	t.Run("alloc", func(t *testing.T) { testMemAlloc(t, drv) })
	t.Run("alloc-errors", func(t *testing.T) { testMemAllocErrors(t, drv) })
	t.Run("free", func(t *testing.T) { testMemFree(t, drv) })
	t.Run("views", func(t *testing.T) { testMemViews(t, drv) })
	t.Run("alloc-async", func(t *testing.T) { testMemAllocAsync(t, drv) })
	t.Run("copy-sync", func(t *testing.T) { testMemCopySync(t, drv) })
	t.Run("copy-async", func(t *testing.T) { testMemCopyAsync(t, drv) })
	t.Run("copy-checks", func(t *testing.T) { testMemCopyChecks(t, drv) })
	t.Run("copy-contexts", func(t *testing.T) { testMemCopyContexts(t, drv) })
	t.Run("copy-special-streams", func(t *testing.T) { testMemSpecialStreams(t, drv) })
	t.Run("fill", func(t *testing.T) { testMemFill(t, drv) })
	t.Run("host", func(t *testing.T) { testMemHost(t, drv) })
	t.Run("borrow", func(t *testing.T) { testMemBorrow(t, drv) })
	t.Run("borrow-checks", func(t *testing.T) { testMemBorrowChecks(t, drv) })
	t.Run("borrow-pool", func(t *testing.T) { testMemBorrowPool(t, drv) })
	t.Run("ipc-export", func(t *testing.T) { testMemIPCExport(t, drv) })
	t.Run("two-devices", func(t *testing.T) { testMemTwoDevices(t, drv) })
	t.Run("hold", func(t *testing.T) { testMemHold(t, drv) })
	t.Run("empty-views", func(t *testing.T) { testMemEmptyViews(t, drv) })
	t.Run("empty-buffers", func(t *testing.T) { testMemEmptyBuffers(t, drv) })
	t.Run("empty-checks", func(t *testing.T) { testMemEmptyChecks(t, drv) })
	t.Run("empty-hold", func(t *testing.T) { testMemEmptyHold(t, drv) })
}

// memSetup retains device 0's primary context and creates a non-blocking
// stream in it; both are released when the test ends.
func memSetup(t *testing.T, drv *driver.Driver) (*driver.Context, *stream.Stream) {
	t.Helper()
	dev, err := drv.Device(0)
	must(t, err)
	ctx, err := dev.PrimaryContext()
	must(t, err)
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	if err != nil {
		ctx.Close()
		must(t, err)
	}
	t.Cleanup(func() {
		must(t, s.Close())
		memNoLeaks(t, drv)
		must(t, ctx.Close())
	})
	return ctx, s
}

// memNoLeaks checks, on the fake, that the case freed all the device and
// pinned memory it allocated. (It runs before the primary context's last
// release, which frees the context's memory, as on the driver.)
func memNoLeaks(t *testing.T, drv *driver.Driver) {
	t.Helper()
	all, ok := leaks(drv)
	if !ok {
		return
	}
	var left []backend.Leak
	for _, l := range all {
		if isMemory(l.Kind) {
			left = append(left, l)
		}
	}
	isEmpty(t, left, "memory left allocated at the end of the case")
}

// memAlloc allocates a buffer freed when the test ends.
func memAlloc[T any](t *testing.T, ctx *driver.Context, n int) *memory.Buffer[T] {
	t.Helper()
	b, err := memory.Alloc[T](ctx, n)
	must(t, err)
	t.Cleanup(func() { must(t, b.Close()) })
	return b
}

// memRead copies a buffer back to the host (synchronously).
func memRead[T any](t *testing.T, b *memory.Buffer[T]) []T {
	t.Helper()
	out := make([]T, b.Len())
	must(t, memory.CopyToHost(out, b))
	return out
}

// memIota returns n values start, start+1, ...
func memIota(n int, start float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = start + float32(i)
	}
	return v
}

// memFilled returns n copies of v.
func memFilled[T any](n int, v T) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// memSame checks that got equals want, reporting the first difference only
// (the slices can be large).
func memSame[T comparable](t *testing.T, want, got []T, msgAndArgs ...any) bool {
	t.Helper()
	if len(want) != len(got) {
		fail(t, false, msgAndArgs, "length %d, want %d", len(got), len(want))
		return false
	}
	for i := range want {
		if want[i] != got[i] {
			fail(t, false, msgAndArgs, "element %d is %v, want %v", i, got[i], want[i])
			return false
		}
	}
	return true
}

// isMemory reports whether a leak of kind k is memory this backend allocated
// (an IPC mapping is not: it is closed, not freed).
func isMemory(k backend.LeakKind) bool {
	switch k {
	case backend.LeakDeviceMemory, backend.LeakAsyncMemory, backend.LeakHostMemory:
		return true
	}
	return false
}
