package fake

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// The fake's device is its queue runner: work enqueued on streams runs only
// when something forces it (a synchronize, a query, a synchronous copy),
// on the goroutine that forces it, one item at a time under the execution
// lock, with the table lock released so that host callbacks and kernel
// bodies may take their time.

// maxPending is how many items a stream holds before enqueueing blocks and
// runs the oldest ones, as a GPU's full launch queue does.
const maxPending = 1024

type execLock struct {
	mu       sync.Mutex
	owner    atomic.Int64 // the OS thread running items, 0 when none
	callback atomic.Int64 // the OS thread running a host callback, 0 when none
}

// inside reports whether the calling thread runs items or a host callback.
func (l *execLock) inside() bool {
	tid := core.ThreadID()
	return l.owner.Load() == tid || l.callback.Load() == tid
}

// lockExec takes the execution lock. Called from a host callback or kernel
// body (the thread that holds it) it returns ErrNotPermitted, as the driver
// may for CUDA calls from a host function, instead of deadlocking.
func (b *Backend) lockExec() error {
	if b.exec.inside() {
		return driver.ErrNotPermitted
	}
	b.exec.mu.Lock()
	runtime.LockOSThread()
	b.exec.owner.Store(core.ThreadID())
	return nil
}

// tryLockExec is lockExec that gives up when another goroutine is running
// items (ok false, err nil).
func (b *Backend) tryLockExec() (ok bool, err error) {
	if b.exec.inside() {
		return false, driver.ErrNotPermitted
	}
	if !b.exec.mu.TryLock() {
		return false, nil
	}
	runtime.LockOSThread()
	b.exec.owner.Store(core.ThreadID())
	return true, nil
}

func (b *Backend) unlockExec() {
	b.exec.owner.Store(0)
	runtime.UnlockOSThread()
	b.exec.mu.Unlock()
}

// item is one piece of enqueued work.
type item struct {
	seq uint64
	run func() error // runs with the execution lock held, table lock free

	// A wait on an event: before running, run waitS up to waitSeq.
	waitS   *stream
	waitSeq uint64
}

// pushLocked appends it to s with the next sequence number.
func (b *Backend) pushLocked(s *stream, it *item) uint64 {
	b.seq++
	it.seq = b.seq
	s.q = append(s.q, it)
	return it.seq
}

// backpressure runs the oldest items of s when it holds too many.
func (b *Backend) backpressure(s *stream) {
	b.mu.RLock()
	n := len(s.q)
	b.mu.RUnlock()
	if n <= maxPending {
		return
	}
	if b.lockExec() != nil {
		return
	}
	defer b.unlockExec()
	for {
		b.mu.RLock()
		n := len(s.q)
		b.mu.RUnlock()
		if n <= maxPending/2 {
			return
		}
		b.runHead(s)
	}
}

// runHead runs the first pending item of s, after the work it depends on:
// for the NULL stream, earlier items of the context's blocking streams; for
// a blocking stream, earlier NULL-stream items; for an event wait, the
// recording stream up to the record. The execution lock is held.
func (b *Backend) runHead(s *stream) {
	b.mu.RLock()
	if len(s.q) == 0 {
		b.mu.RUnlock()
		return
	}
	it := s.q[0]
	var deps []*stream
	switch s.kind {
	case nullStream:
		for _, t := range s.ctx.streams {
			if t.flags&backend.StreamNonBlocking == 0 && len(t.q) > 0 && t.q[0].seq < it.seq {
				deps = append(deps, t)
			}
		}
	case userStream:
		if s.flags&backend.StreamNonBlocking == 0 {
			if n := s.ctx.null; len(n.q) > 0 && n.q[0].seq < it.seq {
				deps = append(deps, n)
			}
		}
	}
	b.mu.RUnlock()
	for _, t := range deps {
		b.runUpTo(t, it.seq-1)
	}
	if it.waitS != nil {
		b.runUpTo(it.waitS, it.waitSeq)
	}
	err := runItem(it)
	b.noteFault(err)
	b.mu.Lock()
	s.q[0] = nil
	s.q = s.q[1:]
	if len(s.q) == 0 {
		s.q = nil
	}
	if err != nil && s.err == nil {
		s.err = err
	}
	b.mu.Unlock()
}

func runItem(it *item) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = driver.ErrLaunchFailed
		}
	}()
	return it.run()
}

// runUpTo runs the items of s numbered seq or lower. Execution lock held.
func (b *Backend) runUpTo(s *stream, seq uint64) {
	for {
		b.mu.RLock()
		more := len(s.q) > 0 && s.q[0].seq <= seq
		b.mu.RUnlock()
		if !more {
			return
		}
		b.runHead(s)
	}
}

// drain runs everything s holds now and returns its sticky error.
func (b *Backend) drain(s *stream) error {
	b.mu.RLock()
	target := b.seq
	b.mu.RUnlock()
	b.runUpTo(s, target)
	b.mu.RLock()
	defer b.mu.RUnlock()
	return s.err
}

// drainContext runs all work queued in c and returns the first sticky
// stream error there. Execution lock held.
func (b *Backend) drainContext(c *context) error {
	b.mu.RLock()
	target := b.seq
	all := append([]*stream{c.null, c.perThread}, c.streams...)
	b.mu.RUnlock()
	// Oldest item first, across the context's streams.
	for {
		var next *stream
		b.mu.RLock()
		for _, s := range all {
			if len(s.q) > 0 && s.q[0].seq <= target && (next == nil || s.q[0].seq < next.q[0].seq) {
				next = s
			}
		}
		b.mu.RUnlock()
		if next == nil {
			break
		}
		b.runHead(next)
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, s := range all {
		if s.err != nil {
			return s.err
		}
	}
	return nil
}

// runSync enqueues fn on the current context's NULL stream and runs it (and
// what it depends on) before returning its error: the fake's synchronous
// copy or memset. The table lock is not held.
func (b *Backend) runSync(c *context, fn func() error) error {
	var res error
	it := &item{run: func() error { res = fn(); return res }}
	if err := b.lockExec(); err != nil {
		return err
	}
	defer b.unlockExec()
	b.mu.Lock()
	if c.dead {
		b.mu.Unlock()
		return errDestroyedCurrent
	}
	seq := b.pushLocked(c.null, it)
	b.mu.Unlock()
	b.runUpTo(c.null, seq)
	return res
}
