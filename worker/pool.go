package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// Options configures a Pool.
type Options struct {
	// PerDevice is the number of workers of each device (default 1): the
	// calls a device runs at once.
	PerDevice int
	// StartTimeout bounds a worker's start, up to its hello (default 60 s:
	// a real worker's start includes cuInit).
	StartTimeout time.Duration
	// Subprocess makes the workers real child processes even over a
	// driver that can spawn processes of its own (the fake), for tests of
	// functions that need no GPU. By default a Pool over the fake runs its
	// workers in this process, each over a fake process of its own.
	Subprocess bool
	// Output is where the child processes' standard output and error go
	// (default os.Stderr; standard output never carries the protocol).
	Output *os.File
	// Env adds environment variables ("KEY=value") to the child processes.
	Env []string
}

// Pool runs registered functions in workers: child processes of this
// binary (with the real driver) or fake processes (with the fake), one or
// more per device, each with its own driver and primary context. A
// worker's sticky fault, crash, panic or expired deadline ends only the
// call it was running; the worker is killed and a new one started in the
// background (the next call on that worker's device waits for it), and
// this process, its contexts and its buffers are untouched. What the
// worker wrote to a shared buffer before it died stays written.
//
// The Pool holds its contexts until Close. It is safe for concurrent use.
type Pool struct {
	opts    Options
	devs    []*poolDevice
	closed  atomic.Bool
	closing chan struct{}
	mu      sync.Mutex // serializes Close
	done    bool
}

// poolDevice is one device of the pool and its workers.
type poolDevice struct {
	ordinal int
	uuid    string
	hold    *core.Hold
	spawner backend.ProcessSpawner // nil: child processes
	free    chan *slot
	slots   []*slot
}

// New starts a pool of workers for each device of ctxs (contexts of one
// driver, one per device) and returns once every worker has started. With
// the fake as driver the workers are fake processes in this process;
// otherwise child processes of this binary, which must call Main first in
// main (or TestMain). The pool uses ctxs to export buffers; it holds them
// until Close.
func New(opts Options, ctxs ...*driver.Context) (*Pool, error) {
	const op = "worker.New"
	if spec, ok := os.LookupEnv(envMarker); ok {
		// This process was started as a worker, and main (or TestMain)
		// did not call Main first: starting workers here would start this
		// binary again, and again.
		return nil, fmt.Errorf("%s: this process is a worker (%s=%q is set by the pool that started it) that never called worker.Main: call worker.Main() first in main (and in TestMain for tests): %w",
			op, envMarker, spec, ErrStart)
	}
	if !mainCalled.Load() {
		return nil, fmt.Errorf("%s: worker.Main was not called: call worker.Main() first in main (and in TestMain for tests), since a pool's workers are this binary started again (on the fake too, which checks it): %w", op, ErrStart)
	}
	if len(ctxs) == 0 {
		return nil, fmt.Errorf("%s: no context: %w", op, driver.ErrInvalidInput)
	}
	if opts.PerDevice < 0 || opts.StartTimeout < 0 {
		return nil, fmt.Errorf("%s: negative PerDevice or StartTimeout: %w", op, driver.ErrInvalidInput)
	}
	if opts.PerDevice == 0 {
		opts.PerDevice = 1
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 60 * time.Second
	}
	p := &Pool{opts: opts, closing: make(chan struct{})}
	seen := map[int]bool{}
	for i, ctx := range ctxs {
		c, err := core.Of(op, ctx)
		if err != nil {
			return nil, p.abandon(err)
		}
		if i > 0 && ctx.Driver() != ctxs[0].Driver() {
			return nil, p.abandon(fmt.Errorf("%s: context %d is of another driver: %w", op, i, driver.ErrWrongContext))
		}
		ord := ctx.Device().Ordinal()
		if seen[ord] {
			return nil, p.abandon(fmt.Errorf("%s: two contexts of device %d: %w", op, ord, driver.ErrInvalidInput))
		}
		seen[ord] = true
		uuid, err := ctx.Device().UUID()
		if err != nil {
			return nil, p.abandon(fmt.Errorf("%s: %w", op, err))
		}
		hold, err := c.Hold()
		if err != nil {
			return nil, p.abandon(fmt.Errorf("%s: %s: %w", op, ctx, err))
		}
		d := &poolDevice{ordinal: ord, uuid: uuid, hold: hold, free: make(chan *slot, opts.PerDevice)}
		if sp, ok := c.API.(backend.ProcessSpawner); ok && !opts.Subprocess {
			d.spawner = sp
		}
		p.devs = append(p.devs, d)
	}
	arg, res := maxSizes()
	for _, d := range p.devs {
		for i := 0; i < opts.PerDevice; i++ {
			d.slots = append(d.slots, newSlot(p, d, arg, res))
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 0)
	var mu sync.Mutex
	for _, d := range p.devs {
		for _, s := range d.slots {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.start(); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(errs) > 0 {
		for _, d := range p.devs {
			for _, s := range d.slots {
				d.free <- s
			}
		}
		p.Close()
		return nil, fmt.Errorf("%s: %w", op, errors.Join(errs...))
	}
	for _, d := range p.devs {
		for _, s := range d.slots {
			d.free <- s
		}
	}
	return p, nil
}

// abandon releases what New took so far and returns err.
func (p *Pool) abandon(err error) error {
	for _, d := range p.devs {
		d.hold.Close(func(backend.API) error { return nil })
	}
	return err
}

// Close stops every worker and releases the pool's contexts. Calls in
// flight end with an error wrapping driver.ErrClosed (their workers are
// killed); idle workers exit cleanly. Later calls fail with an error
// wrapping driver.ErrClosed; a second Close is a no-op.
func (p *Pool) Close() error {
	if p == nil || p.closing == nil {
		return fmt.Errorf("worker.Pool.Close: nil pool: %w", driver.ErrInvalidInput)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return nil
	}
	p.closed.Store(true)
	close(p.closing)
	for _, d := range p.devs {
		for _, s := range d.slots {
			s.abort()
		}
	}
	for _, d := range p.devs {
		// Every call in flight and every restart hands its slot back.
		for range d.slots {
			<-d.free
		}
		for _, s := range d.slots {
			s.shutdown()
		}
		d.hold.Close(func(backend.API) error { return nil })
	}
	p.done = true
	return nil
}

// Workers returns the process ids of the pool's live workers (for the
// fake, their serial numbers), device by device.
func (p *Pool) Workers() []int {
	if p == nil {
		return nil
	}
	var ids []int
	for _, d := range p.devs {
		for _, s := range d.slots {
			s.mu.Lock()
			if s.p != nil {
				ids = append(ids, s.p.pid)
			}
			s.mu.Unlock()
		}
	}
	return ids
}

// device returns the pool's device of ordinal ord.
func (p *Pool) device(ord int) *poolDevice {
	for _, d := range p.devs {
		if d.ordinal == ord {
			return d
		}
	}
	return nil
}

// acquire takes an idle worker of d, waiting for one until ctx ends.
func (p *Pool) acquire(ctx context.Context, d *poolDevice) (*slot, error) {
	select {
	case s := <-d.free:
		return s, nil
	default:
	}
	select {
	case s := <-d.free:
		return s, nil
	case <-p.closing:
		return nil, driver.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// slot is one worker's place in the pool: the worker in it (replaced
// after a failure) and its frame buffers.
type slot struct {
	pool *Pool
	dev  *poolDevice
	req  []byte
	rep  []byte
	seq  uint32

	mu      sync.Mutex
	p       *proc // nil while no worker runs
	busy    bool
	aborted bool

	watch   chan context.Context // the call's context, for the watcher
	idle    chan struct{}        // the call ended, to the watcher
	expired atomic.Bool          // the watcher killed the worker

	ev       *stream.Event    // the interprocess event of CallAfter, made on first use
	evHandle driver.IPCHandle // its handle
}

func newSlot(p *Pool, d *poolDevice, arg, res int) *slot {
	return &slot{pool: p, dev: d,
		req: make([]byte, headerSize+arg+len(driver.IPCHandle{})),
		rep: make([]byte, headerSize+max(res, 64)+maxTextSize)}
}

// start starts a worker in s.
func (s *slot) start() error {
	var p *proc
	var err error
	if s.dev.spawner != nil {
		p, err = startFake(s.dev.spawner, s.dev.uuid)
	} else {
		p, err = startChild(&s.pool.opts, s.dev.uuid)
	}
	if err == nil {
		if err = p.greet(s.pool.opts.StartTimeout, s.rep); err != nil {
			p.stop(false, time.Second)
		}
	}
	if err != nil {
		return fmt.Errorf("%w: device %d: %w", ErrStart, s.dev.ordinal, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.aborted {
		p.stop(true, time.Second)
		return fmt.Errorf("%w: the pool is closed", driver.ErrClosed)
	}
	s.p = p
	return nil
}

// replace kills s's worker and starts a new one in the background; s goes
// back to the free list once it has started (or failed to: the next call
// tries again).
func (s *slot) replace() {
	s.mu.Lock()
	p := s.p
	s.p = nil
	s.mu.Unlock()
	go func() {
		if p != nil {
			p.stop(false, 5*time.Second)
		}
		if !s.pool.closed.Load() {
			s.start()
		}
		s.dev.free <- s
	}()
}

// abort kills the worker of a slot busy with a call (Close).
func (s *slot) abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.aborted = true
	if s.busy && s.p != nil {
		s.p.kill()
	}
}

// shutdown stops s's worker cleanly (Close, once no call is in flight).
func (s *slot) shutdown() {
	s.mu.Lock()
	p := s.p
	s.p = nil
	s.mu.Unlock()
	if p != nil {
		p.stop(true, 5*time.Second)
	}
	if s.watch != nil {
		close(s.watch)
	}
	if s.ev != nil {
		s.ev.Close()
		s.ev = nil
	}
}

// watcher kills the worker when the context of the call in flight ends
// first.
func (s *slot) watcher() {
	for ctx := range s.watch {
		select {
		case <-ctx.Done():
			s.mu.Lock()
			if s.p != nil {
				s.expired.Store(true)
				s.p.kill()
			}
			s.mu.Unlock()
			<-s.idle
		case <-s.idle:
		}
	}
}
