package worker

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/stream"
)

// Call runs the function in a worker of p with argument a and returns its
// result. The worker is that of the device of a's Buffer fields (all on
// one device), or of p's first device when a has none; a call waits for
// an idle worker of that device.
//
// Ordering: the parent's work on the shared buffers must be complete
// before Call (synchronize its streams), or use CallAfter; when Call
// returns, the worker's work is complete and its writes are in the
// buffers. ctx bounds the call: the wait for an idle worker (after a
// failure, for its replacement to start) and the run; when it ends during
// the run, the worker is killed (its process exit frees what it held), the
// call fails as Expired, and a new worker starts. (Should a replacement
// have failed to start, the next call on its worker starts one again,
// bounded by Options.StartTimeout.) Every failure is a *CallError but those of
// bad arguments, a closed pool (driver.ErrClosed) and a worker that would
// not start (ErrStart).
//
// In the steady state (the worker running, its mappings made) Call
// allocates nothing in this process.
func (f *Func[A, R]) Call(ctx context.Context, p *Pool, a A) (R, error) {
	return f.call(ctx, p, nil, a)
}

// CallAfter is Call ordered after the work queued so far on s, a stream
// of the pool's context of the call's device, with no synchronization in
// this process: the pool records an interprocess event on s
// (cuIpcGetEventHandle, made once per worker) and the worker waits for it
// before the function runs, so the function sees the results of that
// work. Work queued on s after CallAfter returns runs after the call's
// work, which is complete by then.
func (f *Func[A, R]) CallAfter(ctx context.Context, p *Pool, s *stream.Stream, a A) (R, error) {
	if s == nil {
		var r R
		return r, fmt.Errorf("worker.Func.CallAfter(%s): nil stream: %w", f.Name(), driver.ErrInvalidInput)
	}
	return f.call(ctx, p, s, a)
}

func (f *Func[A, R]) call(ctx context.Context, p *Pool, s *stream.Stream, a A) (R, error) {
	var r R
	if f == nil {
		return r, fmt.Errorf("worker.Func.Call: nil Func: %w", driver.ErrInvalidInput)
	}
	if f.err != nil {
		return r, f.err
	}
	if f.fn == nil || f.id < 0 {
		return r, fmt.Errorf("worker.Func.Call: a zero Func (not made by Register): %w", driver.ErrInvalidInput)
	}
	if p == nil || p.closing == nil {
		return r, fmt.Errorf("worker.Func.Call(%s): nil pool: %w", f.name, driver.ErrInvalidInput)
	}
	if ctx == nil {
		return r, fmt.Errorf("worker.Func.Call(%s): nil context.Context: %w", f.name, driver.ErrInvalidInput)
	}
	if p.closed.Load() {
		return r, fmt.Errorf("worker.Func.Call(%s): the pool is closed: %w", f.name, driver.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return r, fmt.Errorf("worker.Func.Call(%s): %w", f.name, err)
	}
	ab := bytesOf(&a)
	if vars := varSize(unsafe.Pointer(&a), f.argFields); len(ab)+vars > MaxValueSize {
		return r, fmt.Errorf("worker.Func.Call(%s): %w", f.name, tooLarge("argument", len(ab), vars))
	}
	d := p.devs[0]
	for i, off := range f.refs {
		ref := (*bufferRef)(unsafe.Pointer(&ab[off]))
		if ref.dev == 0 {
			return r, fmt.Errorf("worker.Func.Call(%s): Buffer %d of the argument is the zero Buffer (a nil, closed or empty buffer was shared): %w", f.name, i, driver.ErrInvalidInput)
		}
		if i == 0 {
			if d = p.device(int(ref.dev) - 1); d == nil {
				return r, fmt.Errorf("worker.Func.Call(%s): Buffer %d is on device %d, which the pool has no worker for: %w", f.name, i, ref.dev-1, driver.ErrWrongContext)
			}
		} else if int(ref.dev)-1 != d.ordinal {
			return r, fmt.Errorf("worker.Func.Call(%s): Buffer %d is on device %d, Buffer 0 on device %d: one call runs on one device: %w", f.name, i, ref.dev-1, d.ordinal, driver.ErrWrongContext)
		}
	}
	sl, err := p.acquire(ctx, d)
	if err != nil {
		return r, fmt.Errorf("worker.Func.Call(%s): %w", f.name, err)
	}
	return f.callOn(ctx, sl, s, &a, &r)
}

// callOn makes the call on an acquired slot, which it hands back (or
// replaces).
func (f *Func[A, R]) callOn(ctx context.Context, sl *slot, s *stream.Stream, a *A, r *R) (R, error) {
	sl.mu.Lock()
	pr := sl.p
	if pr == nil { // its last start failed: try again now
		sl.mu.Unlock()
		if err := sl.start(); err != nil {
			sl.dev.free <- sl
			return *r, fmt.Errorf("worker.Func.Call(%s): %w", f.name, err)
		}
		sl.mu.Lock()
		pr = sl.p
	}
	if sl.aborted { // the pool closed while the call waited
		sl.mu.Unlock()
		sl.dev.free <- sl
		return *r, fmt.Errorf("worker.Func.Call(%s): the pool is closed: %w", f.name, driver.ErrClosed)
	}
	sl.busy = true
	sl.mu.Unlock()

	ab := bytesOf(a)
	if len(ab)+varSize(unsafe.Pointer(a), f.argFields)+len(driver.IPCHandle{}) > len(sl.req)-headerSize {
		return *r, sl.release(fmt.Errorf("worker.Func.Call(%s): registered after the pool started (its workers do not know it; call worker.Register at package level): %w", f.name, driver.ErrInvalidInput))
	}
	n := encode(sl.req[headerSize:], unsafe.Pointer(a), ab, f.argFields)
	req := request{kind: reqCall, fn: uint32(f.id), argLen: uint32(n)}
	if err := f.fill(sl, sl.req[headerSize:headerSize+len(ab)]); err != nil {
		return *r, sl.release(fmt.Errorf("worker.Func.Call(%s): %w", f.name, err))
	}
	if s != nil {
		if err := sl.record(s, sl.req[headerSize+n:]); err != nil {
			return *r, sl.release(fmt.Errorf("worker.Func.CallAfter(%s): %w", f.name, err))
		}
		req.flags |= flagWaitEvent
		n += len(driver.IPCHandle{})
	}
	sl.seq++
	req.seq = sl.seq
	putRequest(sl.req, req)

	watched := ctx.Done() != nil
	if watched {
		if sl.watch == nil {
			sl.watch, sl.idle = make(chan context.Context), make(chan struct{})
			go sl.watcher()
		}
		sl.watch <- ctx
	}
	rep, err := sl.exchange(pr, headerSize+n)
	if watched {
		sl.idle <- struct{}{}
	}
	expired := sl.expired.Swap(false)
	if err == nil && rep.kind == repOK && rep.seq == sl.seq {
		if derr := decode(unsafe.Pointer(r), bytesOf(r), sl.rep[headerSize:headerSize+int(rep.resLen)], f.resFields); derr != nil {
			sl.fail()
			return *r, &CallError{Func: f.name, Worker: pr.pid, Failure: Exited, Text: "the result: " + derr.Error()}
		}
		if expired { // the result came, but the worker was killed all the same
			sl.fail()
		} else {
			sl.release(nil)
		}
		return *r, nil
	}
	ce := &CallError{Func: f.name, Worker: pr.pid}
	switch {
	case err == nil && rep.seq != sl.seq:
		ce.Failure, ce.Text = Exited, fmt.Sprintf("reply %d to request %d", rep.seq, sl.seq)
	case err == nil:
		ce.Text = string(sl.rep[headerSize+int(rep.resLen) : headerSize+int(rep.resLen)+int(rep.textLen)])
		ce.Code = driver.Result(rep.code)
		switch rep.kind {
		case repError:
			ce.Failure = Returned
		case repFault:
			ce.Failure = Faulted
		case repPanic:
			ce.Failure = Panicked
		default:
			ce.Failure, ce.Text = Exited, fmt.Sprintf("unknown reply kind %d", rep.kind)
		}
	case expired:
		ce.Failure, ce.cause = Expired, ctx.Err()
		if ce.cause == nil {
			ce.cause = context.DeadlineExceeded
		}
	case sl.pool.closed.Load():
		sl.fail()
		return *r, fmt.Errorf("worker.Func.Call(%s): the pool was closed during the call: %w", f.name, driver.ErrClosed)
	default:
		ce.Failure, ce.Text = Exited, err.Error()
	}
	if ce.Failure == Returned {
		sl.release(nil)
	} else {
		sl.fail()
	}
	return *r, ce
}

// exchange writes the request of n bytes and reads the reply.
func (sl *slot) exchange(pr *proc, n int) (reply, error) {
	pr.sent()
	defer pr.received()
	if _, err := pr.toChild.Write(sl.req[:n]); err != nil {
		return reply{}, err
	}
	if err := readFull(pr.fromChild, sl.rep[:headerSize]); err != nil {
		return reply{}, err
	}
	rep, err := getReply(sl.rep)
	if err != nil {
		return reply{}, err
	}
	if headerSize+int(rep.resLen)+int(rep.textLen) > len(sl.rep) {
		return reply{}, fmt.Errorf("bad reply frame (%d result bytes, %d text bytes)", rep.resLen, rep.textLen)
	}
	if err := readFull(pr.fromChild, sl.rep[headerSize:headerSize+int(rep.resLen)+int(rep.textLen)]); err != nil {
		return reply{}, err
	}
	return rep, nil
}

// release hands the slot back after a call that left its worker usable,
// and returns err.
func (sl *slot) release(err error) error {
	sl.mu.Lock()
	sl.busy = false
	sl.mu.Unlock()
	sl.dev.free <- sl
	return err
}

// fail replaces the slot's worker after a call that left it unusable.
func (sl *slot) fail() {
	sl.mu.Lock()
	sl.busy = false
	sl.mu.Unlock()
	sl.replace()
}

// fill exports the allocations of the argument's Buffer fields (in the
// frame's copy ab of the argument) through the pool's context.
func (f *Func[A, R]) fill(sl *slot, ab []byte) (err error) {
	if len(f.refs) == 0 {
		return nil
	}
	b, err := sl.dev.hold.Bind()
	if err != nil {
		return err
	}
	defer b.Done(&err)
	api := sl.dev.hold.Context().API
	for i, off := range f.refs {
		ref := (*bufferRef)(unsafe.Pointer(&ab[off]))
		base, size, r := api.MemGetAddressRange(ref.ptr)
		if r != nil {
			return fmt.Errorf("Buffer %d at %#x: cuMemGetAddressRange (was the buffer freed?): %w", i, ref.ptr, r)
		}
		bytes := uint64(ref.n) * ref.elem
		if ref.n <= 0 || bytes/ref.elem != uint64(ref.n) || uint64(ref.ptr-base)+bytes > uint64(size) {
			return fmt.Errorf("Buffer %d at %#x: %d elements of %d bytes do not fit in its allocation (%d bytes at %#x): %w", i, ref.ptr, ref.n, ref.elem, size, base, driver.ErrInvalidInput)
		}
		h, r := api.IPCGetMemHandle(base)
		if r != nil {
			return fmt.Errorf("Buffer %d at %#x: cuIpcGetMemHandle (only memory of cuMemAlloc can be shared; stream-ordered memory cannot): %w", i, ref.ptr, r)
		}
		ref.handle, ref.off, ref.alloc = h, uint64(ref.ptr-base), uint64(size)
	}
	return nil
}

// record records the slot's interprocess event on s and writes its handle
// to dst.
func (sl *slot) record(s *stream.Stream, dst []byte) error {
	ctx := sl.dev.hold.Context()
	if s.Context() == nil || s.Context().Handle() != ctx.Handle || s.Context().Device().Ordinal() != sl.dev.ordinal {
		return fmt.Errorf("%s is not in the pool's context of device %d: %w", s, sl.dev.ordinal, driver.ErrWrongContext)
	}
	if sl.ev == nil {
		ev, err := stream.NewEvent(s.Context(), stream.EventOptions{Flags: stream.Interprocess | stream.DisableTiming})
		if err != nil {
			return err
		}
		h, err := ev.IPCHandle()
		if err != nil {
			ev.Close()
			return err
		}
		sl.ev, sl.evHandle = ev, h
	}
	if err := sl.ev.Record(s); err != nil {
		return err
	}
	copy(dst, sl.evHandle[:])
	return nil
}
