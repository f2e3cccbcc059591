package memory_test

import (
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// setup returns a fake driver with one device, its primary context and a
// stream; when the test ends they are released and the fake must report no
// leaked allocation.
func setup(t *testing.T, opts ...fake.Option) (*driver.Driver, *driver.Context, *stream.Stream) {
	t.Helper()
	drv := fake.New(opts...)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, s.Close())
		assertNoLeaks(t, drv)
		require.NoError(t, ctx.Close())
		assert.Empty(t, fake.Of(drv).Leaks())
	})
	return drv, ctx, s
}

func iota32(n int, start float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = start + float32(i)
	}
	return v
}

func read[T any](t *testing.T, b *memory.Buffer[T]) []T {
	t.Helper()
	out := make([]T, b.Len())
	require.NoError(t, memory.CopyToHost(out, b))
	return out
}

func TestBorrowKeepsOwnerReachable(t *testing.T) {
	_, ctx, _ := setup(t)
	raw, err := memory.Alloc[float32](ctx, 64)
	require.NoError(t, err)
	defer raw.Close()

	collected := make(chan struct{})
	var b *memory.Buffer[float32]
	func() {
		// Larger than the tiny allocator's blocks, so it is collected alone.
		owner := &struct{ buf [64]byte }{}
		runtime.AddCleanup(owner, func(ch chan struct{}) { close(ch) }, collected)
		b, err = memory.Borrow[float32](ctx, raw.Ptr(), 64, owner)
	}()
	require.NoError(t, err)
	for range 5 {
		runtime.GC()
	}
	select {
	case <-collected:
		t.Fatal("the owner was collected while the buffer was in use")
	case <-time.After(20 * time.Millisecond):
	}
	require.NoError(t, b.Close())
	deadline := time.Now().Add(5 * time.Second)
	done := false
	for !done && time.Now().Before(deadline) {
		runtime.GC()
		select {
		case <-collected:
			done = true
		case <-time.After(10 * time.Millisecond):
		}
	}
	assert.True(t, done, "Free lets the owner go")
	runtime.KeepAlive(b)
	// The memory itself was never freed by the borrow.
	require.NoError(t, memory.CopyToDevice(raw, iota32(64, 0)))
}

func TestFreeFailureLeavesBufferUsable(t *testing.T) {
	_, ctx, _ := setup(t, fake.FailNth("cuMemFree", 1, driver.ErrUnknown))
	b, err := memory.Alloc[int32](ctx, 8)
	require.NoError(t, err)
	v, err := b.Slice(0, 4)
	require.NoError(t, err)
	err = b.Close()
	assert.ErrorIs(t, err, driver.ErrUnknown)
	assert.ErrorContains(t, err, "cuMemFree")
	assert.NotZero(t, b.Ptr(), "a failed Free changes nothing")
	assert.NotZero(t, v.Ptr())
	require.NoError(t, memory.CopyToDevice(b, []int32{1, 2, 3, 4, 5, 6, 7, 8}))
	assert.Equal(t, []int32{1, 2, 3, 4}, read(t, v))
	require.NoError(t, b.Close(), "Free can be retried")
	assert.Zero(t, v.Ptr())
}

func TestDriverErrorsAreWrapped(t *testing.T) {
	_, ctx, s := setup(t,
		fake.FailNth("cuMemAlloc", 1, driver.ErrOutOfMemory),
		fake.FailNth("cuMemcpyHtoDAsync", 1, driver.ErrIllegalAddress),
		fake.FailNth("cuMemsetD32Async", 1, driver.ErrLaunchFailed),
		fake.FailNth("cuMemAllocAsync", 1, driver.ErrOutOfMemory),
		fake.FailNth("cuMemHostAlloc", 1, driver.ErrOutOfMemory),
	)
	_, err := memory.Alloc[float32](ctx, 16)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	assert.ErrorContains(t, err, "memory.Alloc[float32]: n=16 (64 bytes)")
	b, err := memory.Alloc[float32](ctx, 16)
	require.NoError(t, err)
	defer b.Close()
	err = memory.CopyToDeviceAsync(s, b, iota32(16, 0))
	assert.ErrorIs(t, err, driver.ErrIllegalAddress)
	assert.ErrorContains(t, err, "cuMemcpyHtoDAsync")
	err = memory.Fill(s, b, 1)
	assert.ErrorIs(t, err, driver.ErrLaunchFailed)
	assert.ErrorContains(t, err, "cuMemsetD32Async")
	_, err = memory.AllocAsync[float32](s, 16)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	assert.ErrorContains(t, err, "cuMemAllocAsync")
	_, err = memory.AllocHost[float32](ctx, 16)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	assert.ErrorContains(t, err, "cuMemHostAlloc")
}

func TestHostFreeFailureLeavesBufferUsable(t *testing.T) {
	_, ctx, _ := setup(t, fake.FailNth("cuMemFreeHost", 1, driver.ErrUnknown))
	h, err := memory.AllocHost[uint16](ctx, 4)
	require.NoError(t, err)
	assert.ErrorIs(t, h.Close(), driver.ErrUnknown)
	require.Len(t, h.Slice(), 4)
	h.Slice()[3] = 7
	require.NoError(t, h.Close())
	assert.Nil(t, h.Slice())
}

func TestConcurrentFreeFreesOnce(t *testing.T) {
	_, ctx, _ := setup(t)
	for range 20 {
		b, err := memory.Alloc[byte](ctx, 4096)
		require.NoError(t, err)
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = b.Close()
			}()
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err, "every concurrent Free succeeds; one frees")
		}
		assert.Zero(t, b.Ptr())
	}
}

func TestStreamOrderedFreeUsesAllocationStream(t *testing.T) {
	_, _, s := setup(t)
	b, err := memory.AllocAsync[float32](s, 1024)
	require.NoError(t, err)
	out := make([]float32, 1024)
	require.NoError(t, memory.Fill(s, b, 0.5))
	require.NoError(t, memory.CopyToHostAsync(s, out, b))
	// Freed in stream order: the copy queued before it still reads valid
	// memory.
	require.NoError(t, b.Close())
	require.NoError(t, s.Synchronize())
	for i, v := range out {
		require.Equal(t, float32(0.5), v, "element %d", i)
	}
}

func TestFailedCopyWritesNothing(t *testing.T) {
	_, ctx, s := setup(t)
	b, err := memory.Alloc[uint8](ctx, 16)
	require.NoError(t, err)
	defer b.Close()
	// Fresh fake memory is poisoned (0xA5): a refused copy leaves it so.
	assert.ErrorIs(t, memory.CopyToDevice(b, make([]uint8, 17)), driver.ErrInvalidValue)
	assert.ErrorIs(t, memory.CopyToDeviceAsync(s, b, make([]uint8, 18)), driver.ErrInvalidValue)
	require.NoError(t, s.Synchronize())
	got := read(t, b)
	for i, v := range got {
		require.Equal(t, uint8(0xA5), v, "byte %d", i)
	}
}

func TestBufferString(t *testing.T) {
	_, ctx, _ := setup(t)
	b, err := memory.Alloc[float64](ctx, 3)
	require.NoError(t, err)
	v, err := b.Slice(1, 2)
	require.NoError(t, err)
	assert.Regexp(t, `^owned buffer 0x[0-9a-f]+ \(3 x 8 bytes\)$`, b.String())
	assert.Regexp(t, `^view of owned buffer 0x[0-9a-f]+ \(1 x 8 bytes\)$`, v.String())
	require.NoError(t, b.Close())
	assert.Regexp(t, `^freed owned buffer`, b.String())
	var nb *memory.Buffer[int8]
	assert.Equal(t, "nil buffer", nb.String())
}

func TestErrorsName(t *testing.T) {
	_, ctx, s := setup(t)
	b, err := memory.Alloc[int16](ctx, 4)
	require.NoError(t, err)
	defer b.Close()
	err = memory.CopyToDeviceAsync(s, b, make([]int16, 5))
	assert.EqualError(t, err, "memory.CopyToDeviceAsync: src holds 5 elements, dst only 4: the copy does not fit: "+
		driver.ErrInvalidInput.Error())
	var closed *memory.Buffer[int16]
	assert.True(t, errors.Is(memory.CopyToHost(make([]int16, 4), closed), driver.ErrInvalidValue))
	_, err = memory.Borrow[int16](ctx, 0, 4, nil)
	assert.EqualError(t, err, "memory.Borrow[int16]: ptr 0x0: a NULL device pointer cannot be borrowed: "+
		driver.ErrInvalidInput.Error())
}

func TestFreeAfterContextRelease(t *testing.T) {
	drv, _, _ := setup(t)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ref, err := dev.PrimaryContext() // a second reference to the primary context
	require.NoError(t, err)
	b, err := memory.Alloc[float32](ref, 16)
	require.NoError(t, err)
	h, err := memory.AllocHost[float32](ref, 16)
	require.NoError(t, err)
	require.NoError(t, ref.Close())
	// The buffers hold ref's context reference: they are freed through their
	// Hold, the last Close releasing the reference (setup holds another).
	require.NoError(t, memory.CopyToDevice(b, iota32(16, 0)))
	require.NoError(t, b.Close())
	require.NoError(t, h.Close())
	assert.Zero(t, b.Ptr())
	assert.Nil(t, h.Slice())
}
