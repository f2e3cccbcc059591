package stream_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/stream"
)

// slowEvents is the fake with every call on an existing event slowed down
// after the library's checks, and a record of the events destroyed: a call
// on one of those is a use after free, which on a GPU hands the driver a
// handle that may already name another event.
type slowEvents struct {
	fake.Backend
	mu        sync.Mutex
	destroyed map[uintptr]bool
	uses      []string // use-after-free calls seen
}

func (b *slowEvents) enter(call string, evs ...uintptr) {
	time.Sleep(200 * time.Microsecond) // a Close racing the call runs meanwhile
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ev := range evs {
		if b.destroyed[ev] {
			b.uses = append(b.uses, call)
		}
	}
}

func (b *slowEvents) EventCreate(flags uint32) (uintptr, error) {
	ev, err := b.Backend.EventCreate(flags)
	if err == nil {
		b.mu.Lock()
		delete(b.destroyed, ev) // the fake may hand out a handle again
		b.mu.Unlock()
	}
	return ev, err
}

func (b *slowEvents) EventDestroy(ev uintptr) error {
	err := b.Backend.EventDestroy(ev)
	if err == nil {
		b.mu.Lock()
		b.destroyed[ev] = true
		b.mu.Unlock()
	}
	return err
}

func (b *slowEvents) EventRecord(ev, s uintptr) error {
	b.enter("cuEventRecord", ev)
	return b.Backend.EventRecord(ev, s)
}

func (b *slowEvents) EventSynchronize(ev uintptr) error {
	b.enter("cuEventSynchronize", ev)
	return b.Backend.EventSynchronize(ev)
}

func (b *slowEvents) EventQuery(ev uintptr) error {
	b.enter("cuEventQuery", ev)
	return b.Backend.EventQuery(ev)
}

func (b *slowEvents) EventElapsedTime(start, end uintptr) (float32, error) {
	b.enter("cuEventElapsedTime", start, end)
	return b.Backend.EventElapsedTime(start, end)
}

func (b *slowEvents) StreamWaitEvent(s, ev uintptr, flags uint32) error {
	b.enter("cuStreamWaitEvent", ev)
	return b.Backend.StreamWaitEvent(s, ev, flags)
}

// A Close racing calls on the same Events waits for them: no call hands
// the driver a destroyed event (Elapsed's end and Stream.Wait's event
// included), and every call either works or fails with driver.ErrClosed.
func TestEventCloseRacingCalls(t *testing.T) {
	api := &slowEvents{Backend: fake.NewBackend(fake.Devices(1)), destroyed: map[uintptr]bool{}}
	t.Cleanup(func() { assert.Empty(t, api.Leaks(), "leaks") })
	ctx := primary(t, newDriver(t, api))
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	w, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, w.Close()) })
	deadline, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)

	for range 10 {
		start, err := stream.NewEvent(ctx, stream.EventOptions{})
		require.NoError(t, err)
		end, err := stream.NewEvent(ctx, stream.EventOptions{})
		require.NoError(t, err)
		require.NoError(t, start.Record(s))
		require.NoError(t, end.Record(s))

		calls := map[string]func() error{
			"Record":              func() error { return end.Record(s) },
			"Synchronize":         func() error { return end.Synchronize() },
			"Query":               func() error { _, err := end.Query(); return err },
			"SynchronizeContext":  func() error { return end.SynchronizeContext(deadline) },
			"Elapsed":             func() error { return elapsedRacingRecord(start, end) },
			"Elapsed (start)":     func() error { return elapsedRacingRecord(end, start) },
			"Stream.Wait":         func() error { return w.Wait(end) },
			"Stream.Wait (start)": func() error { return w.Wait(start) },
		}
		var wg sync.WaitGroup
		begin := make(chan struct{})
		for name, call := range calls {
			wg.Go(func() {
				<-begin
				if err := call(); err != nil {
					assert.ErrorIs(t, err, driver.ErrClosed, "%s racing Close", name)
				}
			})
		}
		wg.Go(func() {
			<-begin
			time.Sleep(50 * time.Microsecond)
			assert.NoError(t, end.Close())
			assert.NoError(t, start.Close())
		})
		close(begin)
		wg.Wait()
		require.NoError(t, s.Synchronize())
		require.NoError(t, w.Synchronize())
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	assert.Empty(t, api.uses, "calls given destroyed events")
}

// elapsedRacingRecord is stream.Elapsed of start and end while Record
// queues end again: the driver may then find end not complete
// (driver.ErrNotReady), which is no use of a destroyed event.
func elapsedRacingRecord(start, end *stream.Event) error {
	_, err := stream.Elapsed(start, end)
	if errors.Is(err, driver.ErrNotReady) {
		return nil
	}
	return err
}
