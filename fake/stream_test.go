package fake

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

func TestQueueIsLazyAndOrdered(t *testing.T) {
	b := bound(t)
	s, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
	require.NoError(t, err)
	defer b.StreamDestroy(s)
	ran := make(chan int, 3)
	for i := 0; i < 3; i++ {
		require.NoError(t, b.LaunchHostFunc(s, func() { ran <- i }))
	}
	assert.Empty(t, ran, "nothing runs at enqueue")
	assert.ErrorIs(t, b.StreamQuery(s), driver.ErrNotReady)
	// A query starts exactly one item; a host callback runs on a thread of
	// its own, and the query does not wait for it (as cuStreamQuery never
	// blocks).
	assert.Equal(t, 0, <-ran, "a query runs exactly one item")
	for b.StreamQuery(s) == driver.ErrNotReady {
	}
	assert.Equal(t, 1, <-ran, "polling finishes the stream, in order")
	assert.Equal(t, 2, <-ran)
	assert.NoError(t, b.StreamQuery(s))
}

func TestAsyncCopyRunsWhenForced(t *testing.T) {
	b := bound(t)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	defer b.StreamDestroy(s)
	p, err := b.MemAlloc(4)
	require.NoError(t, err)
	defer b.MemFree(p)
	require.NoError(t, b.MemsetD32Async(p, 7, 1, s))
	var got uint32
	require.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&got), p, 4, s))
	assert.Zero(t, got, "the copy has not run yet")
	require.NoError(t, b.StreamSynchronize(s))
	assert.Equal(t, uint32(7), got)
}

func TestLegacyStreamSynchronisesWithBlockingStreams(t *testing.T) {
	b := bound(t)
	blocking, err := b.StreamCreateWithPriority(backend.StreamDefault, 0)
	require.NoError(t, err)
	defer b.StreamDestroy(blocking)
	nonBlocking, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
	require.NoError(t, err)
	defer b.StreamDestroy(nonBlocking)

	var order []string
	note := func(s string) func() { return func() { order = append(order, s) } }
	require.NoError(t, b.LaunchHostFunc(blocking, note("blocking-1")))
	require.NoError(t, b.LaunchHostFunc(nonBlocking, note("nonblocking-1")))
	require.NoError(t, b.LaunchHostFunc(backend.StreamLegacy, note("legacy")))
	require.NoError(t, b.LaunchHostFunc(blocking, note("blocking-2")))

	require.NoError(t, b.StreamSynchronize(backend.StreamLegacy))
	assert.Equal(t, []string{"blocking-1", "legacy"}, order,
		"the legacy item waits for earlier blocking work only")
	require.NoError(t, b.StreamSynchronize(blocking))
	assert.Equal(t, []string{"blocking-1", "legacy", "blocking-2"}, order)

	// A blocking stream's item waits for earlier legacy items.
	order = nil
	require.NoError(t, b.LaunchHostFunc(backend.StreamNull, note("null")))
	require.NoError(t, b.LaunchHostFunc(blocking, note("blocking-3")))
	require.NoError(t, b.StreamSynchronize(blocking))
	assert.Equal(t, []string{"null", "blocking-3"}, order)

	// The per-thread stream does not synchronise with the others.
	order = nil
	require.NoError(t, b.LaunchHostFunc(blocking, note("blocking-4")))
	require.NoError(t, b.LaunchHostFunc(backend.StreamPerThread, note("per-thread")))
	require.NoError(t, b.StreamSynchronize(backend.StreamPerThread))
	assert.Equal(t, []string{"per-thread"}, order)
	require.NoError(t, b.CtxSynchronize())
	assert.Equal(t, []string{"per-thread", "nonblocking-1", "blocking-4"}, order)
}

func TestStreamWaitEventRunsTheOtherStreamFirst(t *testing.T) {
	b := bound(t)
	s1, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
	require.NoError(t, err)
	defer b.StreamDestroy(s1)
	s2, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
	require.NoError(t, err)
	defer b.StreamDestroy(s2)
	ev, err := b.EventCreate(0)
	require.NoError(t, err)
	defer b.EventDestroy(ev)

	// after-record and consumer are not ordered: they may run at once.
	var mu sync.Mutex
	var order []string
	note := func(what string) func() {
		return func() { mu.Lock(); order = append(order, what); mu.Unlock() }
	}
	require.NoError(t, b.LaunchHostFunc(s1, note("producer")))
	require.NoError(t, b.EventRecord(ev, s1))
	require.NoError(t, b.LaunchHostFunc(s1, note("after-record")))
	require.NoError(t, b.StreamWaitEvent(s2, ev, 0))
	require.NoError(t, b.LaunchHostFunc(s2, note("consumer")))

	assert.ErrorIs(t, b.EventQuery(ev), driver.ErrNotReady)
	require.NoError(t, b.StreamSynchronize(s2))
	require.NoError(t, b.StreamSynchronize(s1))
	mu.Lock()
	defer mu.Unlock()
	// The wait ran s1 up to the record before the consumer; what s1 holds
	// after the record may run before or after (the event's query may
	// have started s1 in the background, as a GPU runs it).
	require.Len(t, order, 3)
	assert.Equal(t, "producer", order[0])
	assert.Less(t, slices.Index(order, "producer"), slices.Index(order, "consumer"))
	assert.NoError(t, b.EventQuery(ev))
}

func TestEventsTimingAndErrors(t *testing.T) {
	b := bound(t)
	start, err := b.EventCreate(0)
	require.NoError(t, err)
	end, err := b.EventCreate(0)
	require.NoError(t, err)
	_, err = b.EventElapsedTime(start, end)
	assert.ErrorIs(t, err, driver.ErrInvalidHandle, "never recorded")
	assert.NoError(t, b.EventQuery(start), "a never-recorded event is complete")
	assert.NoError(t, b.EventSynchronize(start))

	require.NoError(t, b.EventRecord(start, 0))
	require.NoError(t, b.EventRecord(end, 0))
	_, err = b.EventElapsedTime(start, end)
	assert.ErrorIs(t, err, driver.ErrNotReady, "recorded but pending")
	require.NoError(t, b.EventSynchronize(end))
	ms, err := b.EventElapsedTime(start, end)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, ms, float32(0))

	_, err = b.EventCreate(backend.EventInterprocess)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "interprocess needs disable-timing")
	noTiming, err := b.EventCreate(backend.EventDisableTiming)
	require.NoError(t, err)
	require.NoError(t, b.EventRecord(noTiming, 0))
	require.NoError(t, b.EventSynchronize(noTiming))
	_, err = b.EventElapsedTime(start, noTiming)
	assert.ErrorIs(t, err, driver.ErrInvalidHandle)
	for _, e := range []uintptr{start, end, noTiming} {
		require.NoError(t, b.EventDestroy(e))
	}
	assert.ErrorIs(t, b.EventQuery(start), driver.ErrInvalidHandle, "use after destroy")
	leaks := b.Leaks()
	require.Len(t, leaks, 1, "only the test's primary context reference is left")
	assert.Equal(t, backend.LeakPrimaryContext, leaks[0].Kind)
}

func TestStreamPropertiesAndPriorities(t *testing.T) {
	b := bound(t)
	least, greatest, err := b.CtxGetStreamPriorityRange()
	require.NoError(t, err)
	assert.Equal(t, []int{0, -5}, []int{least, greatest})
	hi, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, -100)
	require.NoError(t, err)
	lo, err := b.StreamCreateWithPriority(0, 7)
	require.NoError(t, err)
	p, err := b.StreamGetPriority(hi)
	require.NoError(t, err)
	assert.Equal(t, -5, p, "clamped to the greatest priority")
	p, err = b.StreamGetPriority(lo)
	require.NoError(t, err)
	assert.Equal(t, 0, p, "clamped to the least priority")
	f, err := b.StreamGetFlags(hi)
	require.NoError(t, err)
	assert.Equal(t, backend.StreamNonBlocking, f)
	cur, err := b.CtxGetCurrent()
	require.NoError(t, err)
	for _, h := range []uintptr{hi, 0, 1, 2} {
		c, err := b.StreamGetCtx(h)
		require.NoError(t, err)
		assert.Equal(t, cur, c)
	}
	_, err = b.StreamCreateWithPriority(7, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	for _, h := range []uintptr{hi, lo} {
		require.NoError(t, b.StreamDestroy(h))
		assert.ErrorIs(t, b.StreamQuery(h), driver.ErrInvalidHandle)
	}
	assert.ErrorIs(t, b.StreamDestroy(0), driver.ErrInvalidHandle)
}

func TestStreamDestroyCompletesPendingWork(t *testing.T) {
	b := bound(t)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	ran := false
	require.NoError(t, b.LaunchHostFunc(s, func() { ran = true }))
	require.NoError(t, b.StreamDestroy(s))
	assert.True(t, ran)
}

func TestHostFuncMayNotCallTheDriver(t *testing.T) {
	b := bound(t)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	defer b.StreamDestroy(s)
	var inner error
	require.NoError(t, b.LaunchHostFunc(s, func() { inner = b.StreamSynchronize(s) }))
	require.NoError(t, b.StreamSynchronize(s))
	assert.ErrorIs(t, inner, driver.ErrNotPermitted)
}

// A panic or runtime.Goexit in a host function ends only that function, as
// with the real backend's trampoline: the stream and later work go on.
func TestHostFuncPanicIsContained(t *testing.T) {
	b := bound(t)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	defer b.StreamDestroy(s)
	var after bool
	require.NoError(t, b.LaunchHostFunc(s, func() { panic("boom") }))
	require.NoError(t, b.LaunchHostFunc(s, func() { runtime.Goexit() }))
	require.NoError(t, b.LaunchHostFunc(s, func() { after = true }))
	assert.NoError(t, b.StreamSynchronize(s))
	assert.True(t, after)
	assert.NoError(t, b.StreamQuery(s))
}

func TestFullQueueRunsOldestWork(t *testing.T) {
	b := bound(t)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	defer b.StreamDestroy(s)
	n := 0
	for i := 0; i <= maxPending; i++ {
		require.NoError(t, b.LaunchHostFunc(s, func() { n++ }))
	}
	assert.Equal(t, maxPending/2+1, n, "enqueueing past the queue depth ran the oldest half")
	require.NoError(t, b.StreamSynchronize(s))
	assert.Equal(t, maxPending+1, n)
}

// TestConcurrentStreams enqueues, polls and synchronises from many
// goroutines at once (run with -race): every callback runs exactly once,
// in order per stream.
func TestConcurrentStreams(t *testing.T) {
	b := newBackend()
	require.NoError(t, b.Init(0))
	prim, err := b.DevicePrimaryCtxRetain(0)
	require.NoError(t, err)
	defer b.DevicePrimaryCtxRelease(0)
	const workers, items = 8, 200
	done := make(chan []int, workers)
	for w := 0; w < workers; w++ {
		go func() {
			lockAndPush := func() error {
				runtimeLock()
				return b.CtxPushCurrent(prim)
			}
			if err := lockAndPush(); err != nil {
				t.Error(err)
				done <- nil
				return
			}
			defer runtimeUnlock()
			defer b.CtxPopCurrent()
			s, err := b.StreamCreateWithPriority(uint32(w%2), 0)
			if err != nil {
				t.Error(err)
				done <- nil
				return
			}
			var seen []int
			ev, _ := b.EventCreate(backend.EventDisableTiming)
			p, _ := b.MemAlloc(64)
			for i := 0; i < items; i++ {
				b.LaunchHostFunc(s, func() { seen = append(seen, i) })
				b.MemsetD8Async(p, byte(i), 64, s)
				b.EventRecord(ev, s)
				switch i % 3 {
				case 0:
					b.StreamQuery(s)
				case 1:
					b.EventQuery(ev)
				}
			}
			if err := b.StreamSynchronize(s); err != nil {
				t.Error(err)
			}
			b.MemFree(p)
			b.EventDestroy(ev)
			b.StreamDestroy(s)
			done <- seen
		}()
	}
	for w := 0; w < workers; w++ {
		seen := <-done
		require.Len(t, seen, items)
		for i, v := range seen {
			require.Equal(t, i, v)
		}
	}
	assert.Len(t, b.Leaks(), 1, "only the primary context reference")
}
