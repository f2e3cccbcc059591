package fake

import (
	"time"

	"github.com/nocgo/cuda/driver"
)

type event struct {
	h     uintptr
	ctx   *context
	flags uint32

	recS   *stream // stream of the latest record; nil when never recorded
	recSeq uint64  // its item
	done   bool    // the latest record has run
	t      time.Time

	ipcID uint64 // exported under this id, 0 if not

	// An event opened from another backend's IPC handle.
	remote  *Backend
	remoteH uintptr
}

const eventFlags = driver.EventBlockingSync | driver.EventDisableTiming | driver.EventInterprocess

// EventCreate is cuEventCreate in the current context. An interprocess
// event must also disable timing.
func (b *Backend) EventCreate(flags uint32) (uintptr, error) {
	if err := b.enter("cuEventCreate"); err != nil {
		return 0, err
	}
	if flags&^eventFlags != 0 {
		return 0, driver.ErrInvalidValue
	}
	if flags&driver.EventInterprocess != 0 && flags&driver.EventDisableTiming == 0 {
		return 0, driver.ErrInvalidValue
	}
	tid := gettid()
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.currentLocked(tid)
	if err != nil {
		return 0, err
	}
	e := &event{h: newHandle(), ctx: c, flags: flags}
	b.events[e.h] = e
	return e.h, nil
}

// EventDestroy is cuEventDestroy. A pending record still runs.
func (b *Backend) EventDestroy(h uintptr) error {
	if err := b.enter("cuEventDestroy"); err != nil {
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
// it, and takes the time then.
func (b *Backend) EventRecord(h, s uintptr) error {
	if err := b.enter("cuEventRecord"); err != nil {
		return err
	}
	it := &item{}
	return b.enqueue(s, it, func(st *stream) error {
		e := b.events[h]
		if e == nil {
			return b.goneLocked(h)
		}
		if e.remote != nil || e.ctx != st.ctx {
			return driver.ErrInvalidHandle
		}
		it.run = func() error {
			b.mu.Lock()
			if e.recSeq == it.seq {
				e.done = true
				e.t = time.Now()
			}
			b.mu.Unlock()
			return nil
		}
		// it.seq is assigned by pushLocked right after validation.
		e.recS, e.recSeq, e.done = st, b.seq+1, false
		return nil
	})
}

// eventState reads an event: unknown handles are ErrInvalidHandle.
func (b *Backend) eventState(h uintptr) (e *event, pending bool, err error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	e = b.events[h]
	if e == nil {
		return nil, false, b.goneLocked(h)
	}
	return e, e.recS != nil && !e.done, nil
}

// EventSynchronize is cuEventSynchronize: it runs the recording stream up to
// the event's latest record. A never-recorded event is complete.
func (b *Backend) EventSynchronize(h uintptr) error {
	if err := b.enter("cuEventSynchronize"); err != nil {
		return err
	}
	e, pending, err := b.eventState(h)
	if err != nil {
		return err
	}
	if e.remote != nil {
		return e.remote.EventSynchronize(e.remoteH)
	}
	if !pending {
		return nil
	}
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	b.mu.RLock()
	s, seq := e.recS, e.recSeq
	b.mu.RUnlock()
	b.runUpTo(s, seq)
	return nil
}

// EventQuery is cuEventQuery: ErrNotReady while the latest record is
// pending; each call runs one item of the recording stream.
func (b *Backend) EventQuery(h uintptr) error {
	if err := b.enter("cuEventQuery"); err != nil {
		return err
	}
	e, pending, err := b.eventState(h)
	if err != nil {
		return err
	}
	if e.remote != nil {
		return e.remote.EventQuery(e.remoteH)
	}
	if !pending {
		return nil
	}
	ok, err := b.tryLockExec()
	if err != nil {
		return err
	}
	if ok {
		b.mu.RLock()
		s := e.recS
		b.mu.RUnlock()
		b.runHead(s)
		b.unlockExec()
	}
	return driver.ErrNotReady
}

// EventElapsedTime is cuEventElapsedTime, in milliseconds. Events that were
// never recorded or do not time are ErrInvalidHandle; pending ones
// ErrNotReady.
func (b *Backend) EventElapsedTime(start, end uintptr) (float32, error) {
	if err := b.enter("cuEventElapsedTime"); err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	s, e := b.events[start], b.events[end]
	if s == nil || e == nil {
		return 0, driver.ErrInvalidHandle
	}
	for _, x := range []*event{s, e} {
		if x.flags&driver.EventDisableTiming != 0 || x.recS == nil || x.remote != nil {
			return 0, driver.ErrInvalidHandle
		}
	}
	if !s.done || !e.done {
		return 0, driver.ErrNotReady
	}
	return float32(e.t.Sub(s.t).Nanoseconds()) / 1e6, nil
}
