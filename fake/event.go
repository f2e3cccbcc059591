package fake

import (
	"sync"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

type event struct {
	h     uintptr
	ctx   *context
	flags uint32
	st    *evState // shared with the backends that opened it by IPC
	ipcID uint64   // exported under this id, 0 if not

	site callSite // who made it, for Leaks (leak_site.go)
}

// evState is what an event's latest record is. IPC shares it between
// backends, so it has its own lock (taken after any Backend.mu).
type evState struct {
	mu   sync.Mutex
	b    *fakeBackend // backend of the recording stream; nil when never recorded
	s    *stream
	seq  uint64 // the record's item
	done bool   // the latest record has run
	t    time.Time
}

// snapshot returns the latest record, and whether it is still pending.
func (st *evState) snapshot() (b *fakeBackend, s *stream, seq uint64, pending bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.b, st.s, st.seq, st.b != nil && !st.done
}

const eventFlags = backend.EventBlockingSync | backend.EventDisableTiming | backend.EventInterprocess

// EventCreate is cuEventCreate in the current context. An interprocess
// event must also disable timing.
func (b *fakeBackend) EventCreate(flags uint32) (uintptr, error) {
	if err := b.enter(abi.CuEventCreate); err != nil {
		return 0, err
	}
	if flags&^eventFlags != 0 {
		return 0, driver.ErrInvalidValue
	}
	if flags&backend.EventInterprocess != 0 && flags&backend.EventDisableTiming == 0 {
		return 0, driver.ErrInvalidValue
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.currentLocked(tid)
	if err != nil {
		return 0, err
	}
	e := &event{h: newHandle(), ctx: c, flags: flags, st: &evState{}, site: here()}
	b.events[e.h] = e
	return e.h, nil
}

// EventDestroy is cuEventDestroy. A pending record still runs.
func (b *fakeBackend) EventDestroy(h uintptr) error {
	if err := b.enter(abi.CuEventDestroy); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.events[h]
	if e == nil {
		return b.goneLocked(h)
	}
	b.unexportEventLocked(e)
	delete(b.events, h)
	return nil
}

// EventRecord is cuEventRecord: the event completes when the stream reaches
// it, and takes the time then. Event and stream must share a context.
func (b *fakeBackend) EventRecord(h, s uintptr) error {
	if err := b.enter(abi.CuEventRecord); err != nil {
		return err
	}
	it := &item{}
	return capturedOK(b.enqueue(s, it, func(str *stream) error {
		e := b.events[h]
		if e == nil {
			return b.goneLocked(h)
		}
		if e.ctx != str.ctx {
			return driver.ErrInvalidHandle
		}
		if handled, err := b.graphRoom.CaptureEventRecord(e.h, &str.capture); handled {
			return errCaptured{err}
		}
		st := e.st
		it.run = func() error {
			st.mu.Lock()
			if st.b == b && st.seq == it.seq {
				st.done = true
				st.t = time.Now()
			}
			st.mu.Unlock()
			return nil
		}
		// it.seq is assigned by pushLocked right after validation.
		b.raceRecordedLocked(st, str)
		st.mu.Lock()
		st.b, st.s, st.seq, st.done = b, str, b.seq+1, false
		st.mu.Unlock()
		return nil
	}))
}

// event returns the event h.
func (b *fakeBackend) event(h uintptr) (*event, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	e := b.events[h]
	if e == nil {
		return nil, b.goneLocked(h)
	}
	return e, nil
}

// runRecord runs the recording stream of rb up to seq (EventSynchronize).
func runRecord(rb *fakeBackend, s *stream, seq uint64) error {
	if err := rb.lockExec(); err != nil {
		return err
	}
	defer rb.unlockExec()
	rb.runUpTo(s, seq, runWait)
	return nil
}

// EventSynchronize is cuEventSynchronize: it runs the recording stream up to
// the event's latest record. A never-recorded event is complete.
func (b *fakeBackend) EventSynchronize(h uintptr) error {
	if err := b.enter(abi.CuEventSynchronize); err != nil {
		return err
	}
	e, err := b.event(h)
	if err != nil {
		return err
	}
	if err := b.graphRoom.CaptureRefuseEvent(e.h); err != nil {
		return err
	}
	rb, s, seq, pending := e.st.snapshot()
	b.hostSawEvent(e.st)
	if !pending {
		return nil
	}
	return runRecord(rb, s, seq)
}

// EventQuery is cuEventQuery: ErrNotReady while the latest record is
// pending; each call runs one item of the recording stream.
func (b *fakeBackend) EventQuery(h uintptr) error {
	if err := b.enter(abi.CuEventQuery); err != nil {
		return err
	}
	e, err := b.event(h)
	if err != nil {
		return err
	}
	if err := b.graphRoom.CaptureRefuseEvent(e.h); err != nil {
		return err
	}
	rb, s, _, pending := e.st.snapshot()
	if !pending {
		b.hostSawEvent(e.st)
		return nil
	}
	if err := rb.startHead(s); err != nil {
		return err
	}
	return driver.ErrNotReady
}

// EventElapsedTime is cuEventElapsedTime, in milliseconds. Events that were
// never recorded or do not time are ErrInvalidHandle; pending ones
// ErrNotReady.
func (b *fakeBackend) EventElapsedTime(start, end uintptr) (float32, error) {
	if err := b.enter(abi.CuEventElapsedTime); err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	s, e := b.events[start], b.events[end]
	if s == nil {
		return 0, b.goneLocked(start)
	}
	if e == nil {
		return 0, b.goneLocked(end)
	}
	var ts [2]time.Time
	ready := true
	for i, x := range []*event{s, e} {
		x.st.mu.Lock()
		recorded, done, t := x.st.b != nil, x.st.done, x.st.t
		x.st.mu.Unlock()
		if x.flags&backend.EventDisableTiming != 0 || !recorded {
			return 0, driver.ErrInvalidHandle
		}
		ready = ready && done
		ts[i] = t
	}
	if !ready {
		return 0, driver.ErrNotReady
	}
	return float32(ts[1].Sub(ts[0]).Nanoseconds()) / 1e6, nil
}
