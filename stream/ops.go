package stream

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Synchronize blocks until all work queued on the stream is done
// (cuStreamSynchronize). If a host callback queued with Callback panicked
// since the last Synchronize, the work is still waited for and the panic is
// returned as a *CallbackPanicError.
func (s *Stream) Synchronize() error { return s.synchronize("stream.Stream.Synchronize") }

// synchronize is Synchronize, with errors prefixed by op.
func (s *Stream) synchronize(op string) (err error) {
	b, err := s.use()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	if r := s.api().StreamSynchronize(s.q.Handle); r != nil {
		return s.errf(op, "cuStreamSynchronize", core.Unusable(r))
	}
	if s.panicked.Load() {
		return s.takePanic()
	}
	return nil
}

// Query reports whether all work queued on the stream is done
// (cuStreamQuery). Work still pending is (false, nil), not an error. It
// allocates nothing and, on a stream that is not special, binds nothing.
func (s *Stream) Query() (bool, error) { return s.query("stream.Stream.Query") }

// query is Query, with errors prefixed by op.
func (s *Stream) query(op string) (_ bool, err error) {
	b, err := s.use()
	if err != nil {
		return false, fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	r := s.api().StreamQuery(s.q.Handle)
	if r == nil {
		return true, nil
	}
	if isNotReady(r) {
		return false, nil
	}
	return false, s.errf(op, "cuStreamQuery", core.Unusable(r))
}

// isNotReady reports whether r is CUDA_ERROR_NOT_READY, without reflection.
func isNotReady(r error) bool {
	res, ok := r.(driver.Result)
	return ok && res == driver.ErrNotReady
}

// Wait makes all work queued on s after this call wait until ev completes
// (cuStreamWaitEvent); it does not block the calling goroutine. ev may
// belong to another context, even of another device: the driver allows
// cross-device waits. Both s and ev must be open. It allocates nothing.
func (s *Stream) Wait(ev *Event) (err error) {
	const op = "stream.Stream.Wait"
	b, err := s.use()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	if err := ev.check(); err != nil {
		return fmt.Errorf("%s: %s: %w", op, s, err)
	}
	if ev.ctx.Driver() != s.ctx.Driver() {
		return fmt.Errorf("%s: %s: %s belongs to another *driver.Driver: %w", op, s, ev, driver.ErrWrongContext)
	}
	if err := ev.use(); err != nil {
		return fmt.Errorf("%s: %s: %w", op, s, err)
	}
	defer ev.hold.Unuse()
	if r := s.api().StreamWaitEvent(s.q.Handle, ev.h, 0); r != nil {
		return fmt.Errorf("%s: %s: cuStreamWaitEvent(%s): %w", op, s, ev, r)
	}
	return nil
}

// WaitStream makes all work queued on s after this call wait until the work
// queued on o so far is done. It records an internal event on o, makes s
// wait on it and destroys it (the driver keeps it until the wait is
// satisfied), so nothing leaks. o may belong to another context, even of
// another device.
func (s *Stream) WaitStream(o *Stream) (err error) {
	const op = "stream.Stream.WaitStream"
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := o.check(); err != nil {
		return fmt.Errorf("%s: %s: waiting for %w", op, s, err)
	}
	if o.ctx.Driver() != s.ctx.Driver() {
		return fmt.Errorf("%s: %s: waiting for %s of another *driver.Driver: %w", op, s, o, driver.ErrWrongContext)
	}
	sb, err := s.use()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer sb.Done(&err)
	// The internal event is made in o's context, bound through o's hold.
	err = o.q.Hold.Do(func(api backend.API) error {
		_ = o.destroyOrphans(api) // earlier internal events, if any: best effort
		ev, r := api.EventCreate(uint32(DisableTiming))
		if r != nil {
			return fmt.Errorf("%s: waiting for %s: cuEventCreate: %w", s, o, r)
		}
		if r = api.EventRecord(ev, o.q.Handle); r != nil {
			r = fmt.Errorf("%s: waiting for %s: cuEventRecord: %w", s, o, r)
		} else if r = s.api().StreamWaitEvent(s.q.Handle, ev, 0); r != nil {
			r = fmt.Errorf("%s: waiting for %s: cuStreamWaitEvent: %w", s, o, r)
		}
		if d := api.EventDestroy(ev); d != nil {
			// Kept on o, destroyed by its next WaitStream or its Close:
			// never dropped. The wait itself is queued, and what matters
			// of the call succeeded.
			o.keepOrphan(ev)
			if r == nil {
				r = fmt.Errorf("%s: waiting for %s: cuEventDestroy (the event is kept, and destroyed again by the next WaitStream or Close): %w", s, o, d)
			}
		}
		return r
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// check reports a nil, zero or closed stream, binding nothing.
func (s *Stream) check() error {
	if s == nil || s.ctx == nil {
		return errNilStream
	}
	if s.q.Hold.Closed() {
		return s.closedErr()
	}
	return nil
}

// Flags returns the stream's creation flags as the driver reports them
// (cuStreamGetFlags): for a wrapped stream, what its creator chose.
func (s *Stream) Flags() (_ Flag, err error) {
	const op = "stream.Stream.Flags"
	b, err := s.use()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	f, r := s.api().StreamGetFlags(s.q.Handle)
	if r != nil {
		return 0, s.errf(op, "cuStreamGetFlags", r)
	}
	return Flag(f), nil
}

// Priority returns the stream's priority as the driver reports it
// (cuStreamGetPriority): for a wrapped stream, what its creator chose.
func (s *Stream) Priority() (_ int, err error) {
	const op = "stream.Stream.Priority"
	b, err := s.use()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	p, r := s.api().StreamGetPriority(s.q.Handle)
	if r != nil {
		return 0, s.errf(op, "cuStreamGetPriority", r)
	}
	return p, nil
}
