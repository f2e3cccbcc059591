package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake/internal/ondevice"
	"github.com/nocgo/cuda/fake/internal/race"
)

// libQueue is the fake seen by the fake math libraries: their work is a
// queue item like a kernel launch (captured when the stream captures), and
// reads and writes device memory by byte range.
type libQueue struct{ b *fakeBackend }

var _ ondevice.Queue = libQueue{}

func (q libQueue) Enqueue(op string, s uintptr, work func(ondevice.Memory) error) error {
	if err := q.b.enter(op); err != nil { // fault injection, a poisoned process
		return err
	}
	it := &item{}
	return q.b.enqueue(s, it, func(st *stream) error {
		if st.dead {
			return driver.ErrInvalidHandle
		}
		it.run = func() error { return work(libraryMemory{q.b, op}) }
		return nil
	})
}

func (q libQueue) StreamDevice(s uintptr) (int, error) {
	st, err := q.b.lookupStream(s)
	if err != nil {
		return 0, err
	}
	return st.ctx.dev.ordinal, nil
}

// libraryMemory is the fake's device memory for queued work of the
// library entry point op.
type libraryMemory struct {
	b  *fakeBackend
	op string
}

func (m libraryMemory) Read(p, n uintptr) ([]byte, error)  { return m.bytes(p, n, race.CopyRead) }
func (m libraryMemory) Write(p, n uintptr) ([]byte, error) { return m.bytes(p, n, race.Write) }

func (m libraryMemory) bytes(p, n uintptr, kind race.AccessKind) ([]byte, error) {
	d, err := m.b.span(p, n)
	if err != nil {
		return nil, driver.ErrIllegalAddress
	}
	m.b.race.Range(p, n, kind, m.op)
	return d, nil
}
