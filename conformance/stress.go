package conformance

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// testStress: many goroutines, on whatever OS threads the scheduler gives
// them, share contexts, streams, events, buffers and modules (issue 9, a
// standing guarantee). It is meant for -race: on the fake it finds data
// races in the library, on a GPU it finds what the driver makes of the same
// traffic. Every case is bounded in time as well as in rounds (less with
// -short), so that a slow machine or the race detector makes it do less
// rather than take longer.
//
// What the documentation leaves to the caller is not tested: an object's
// Close racing calls on that same object (Stream, Event, Buffer and Module
// all say it must not). Context.Close racing calls on the objects made in
// the context, and Close of one object racing use of others, are promised
// to work, and are tested.
func testStress(t *testing.T, drv *driver.Driver) {
	t.Run("shared-objects", func(t *testing.T) { testStressShared(t, drv) })
	t.Run("close-racing-use", func(t *testing.T) { testStressCloseRacing(t, drv) })
	t.Run("foreign-threads", func(t *testing.T) { testStressForeign(t, drv) })
}

const (
	stressGoroutines = 16
	stressPer        = 256 // elements of the shared buffer each goroutine owns
	stressMinRounds  = 3   // every goroutine does this many, whatever the time
)

// stressScale is how many rounds a goroutine of a case does at most, and
// for how long the case goes on (once every goroutine did stressMinRounds).
func stressScale() (rounds int, d time.Duration) {
	if testing.Short() {
		return 20, 250 * time.Millisecond
	}
	return 300, 1200 * time.Millisecond
}

// stressReport collects the failures of many goroutines, reporting the first
// few only (a broken guarantee fails every round).
type stressReport struct {
	t  testing.TB
	mu sync.Mutex
	n  int
}

const stressShown = 20

func (r *stressReport) errorf(format string, args ...any) {
	r.mu.Lock()
	r.n++
	n := r.n
	r.mu.Unlock()
	switch {
	case n <= stressShown:
		r.t.Errorf(format, args...)
	case n == stressShown+1:
		r.t.Error("further stress failures are not shown")
	}
}

// failed says whether a failure was reported.
func (r *stressReport) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n > 0
}

// ok reports a non-nil err and says whether it was nil.
func (r *stressReport) ok(err error, what string) bool {
	if err != nil {
		r.errorf("%s: unexpected error: %v", what, err)
		return false
	}
	return true
}

// closed reports err unless it wraps driver.ErrClosed.
func (r *stressReport) closed(err error, what string) bool {
	if !errors.Is(err, driver.ErrClosed) {
		r.errorf("%s: got %v, want an error wrapping driver.ErrClosed", what, err)
		return false
	}
	return true
}

// spawn runs f on a new goroutine counted by wg; a panic is reported with
// its stack, not let crash the test binary.
func (r *stressReport) spawn(wg *sync.WaitGroup, name string, f func()) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() {
			if p := recover(); p != nil {
				r.errorf("%s panicked: %v\n%s", name, p, debug.Stack())
			}
		}()
		f()
	}()
}

// stressShared is what the goroutines of a case share: a context, a few
// streams (blocking and not), events that everyone records and waits on,
// add1 of a compiled module, and one buffer of which each goroutine owns a
// region.
type stressShared struct {
	ctx     *driver.Context
	streams []*stream.Stream
	events  []*stream.Event
	add1    *module.Function
	buf     *memory.Buffer[float32]
}

// newStressShared makes the shared objects in ctx, closed when the test
// ends.
func newStressShared(t *testing.T, ctx *driver.Context) *stressShared {
	t.Helper()
	sh := &stressShared{ctx: ctx}
	f, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)
	sh.add1 = f
	for i := range 4 {
		flags := stream.NonBlocking
		if i%2 == 1 {
			flags = stream.Blocking
		}
		s, err := stream.New(ctx, stream.Options{Flags: flags})
		must(t, err)
		t.Cleanup(func() { must(t, s.Close()) })
		sh.streams = append(sh.streams, s)
	}
	for range 3 {
		e, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.DisableTiming})
		must(t, err)
		t.Cleanup(func() { must(t, e.Close()) })
		sh.events = append(sh.events, e)
	}
	sh.buf = memAlloc[float32](t, ctx, stressGoroutines*stressPer)
	return sh
}

// stressWorker is one goroutine's share: its region of the shared buffer
// (a view), an event of its own, and host memory.
type stressWorker struct {
	g    int
	sh   *stressShared
	view *memory.Buffer[float32]
	ev   *stream.Event
	host []float32
	in   []float32

	round int               // the round under way, for messages
	after func(what string) // if set, called after every library call
}

func (sh *stressShared) worker(t *testing.T, g int) *stressWorker {
	t.Helper()
	view, err := sh.buf.Slice(g*stressPer, (g+1)*stressPer)
	must(t, err)
	t.Cleanup(func() { must(t, view.Close()) })
	ev, err := stream.NewEvent(sh.ctx, stream.EventOptions{})
	must(t, err)
	t.Cleanup(func() { must(t, ev.Close()) })
	return &stressWorker{g: g, sh: sh, view: view, ev: ev, host: make([]float32, stressPer), in: make([]float32, stressPer)}
}

// call checks the result of one library call of the round.
func (w *stressWorker) call(r *stressReport, what string, err error) bool {
	if w.after != nil {
		w.after(what)
	}
	return r.ok(err, fmt.Sprintf("goroutine %d, round %d: %s", w.g, w.round, what))
}

// same checks the host copy of the region against want(j).
func (w *stressWorker) same(r *stressReport, what string, want func(j int) float32) bool {
	for j, v := range w.host {
		if v != want(j) {
			r.errorf("goroutine %d, round %d: %s: element %d is %v, want %v", w.g, w.round, what, j, v, want(j))
			return false
		}
	}
	return true
}

// run does one round of work on the worker's region through the shared
// objects, checking every result, and says whether all went well. Each
// phase ends with a synchronisation, so the next starts on settled memory.
func (w *stressWorker) run(r *stressReport, i int) bool {
	w.round = i
	sh := w.sh
	ns := len(sh.streams)
	s, o := sh.streams[(w.g+i)%ns], sh.streams[(w.g+i+1)%ns]
	n := w.view.Len()
	cfg := module.Config{Grid: module.Cover(n, 128), Block: module.Dim(128)}
	base := float32(i%1000 + w.g)

	// Fill and k launches on s; the copy back on o, after o waits for s's
	// work through the worker's event. The shared events are recorded and
	// waited on by everyone, in every order: no result depends on them, but
	// they must never fail.
	k := 1 + i%3
	if !w.call(r, "Fill", memory.Fill(s, w.view, base)) {
		return false
	}
	for range k {
		if !w.call(r, "Launch add1", sh.add1.Launch(s, cfg, w.view, int32(n))) {
			return false
		}
	}
	if !w.call(r, "Event.Record", w.ev.Record(s)) || !w.call(r, "Stream.Wait", o.Wait(w.ev)) {
		return false
	}
	e := sh.events[(w.g+i)%len(sh.events)]
	if !w.call(r, "shared Event.Record", e.Record(o)) || !w.call(r, "Stream.Wait on a shared event", s.Wait(e)) {
		return false
	}
	if !w.call(r, "CopyToHostAsync", memory.CopyToHostAsync(o, w.host, w.view)) {
		return false
	}
	_, err := sh.streams[i%ns].Query()
	if !w.call(r, "Stream.Query", err) {
		return false
	}
	_, err = e.Query()
	if !w.call(r, "Event.Query", err) || !w.call(r, "Stream.Synchronize", o.Synchronize()) {
		return false
	}
	if !w.same(r, "Fill, then add1", func(int) float32 { return base + float32(k) }) {
		return false
	}

	// Host to device on o, s waits for o (WaitStream), add1 on s, then an
	// event's Synchronize and a synchronous copy back.
	for j := range w.in {
		w.in[j] = base + float32(j)
	}
	if !w.call(r, "CopyToDeviceAsync", memory.CopyToDeviceAsync(o, w.view, w.in)) ||
		!w.call(r, "Stream.WaitStream", s.WaitStream(o)) ||
		!w.call(r, "Launch add1", sh.add1.Launch(s, cfg, w.view, int32(n))) ||
		!w.call(r, "Event.Record", w.ev.Record(s)) ||
		!w.call(r, "Event.Synchronize", w.ev.Synchronize()) ||
		!w.call(r, "CopyToHost", memory.CopyToHost(w.host, w.view)) {
		return false
	}
	if !w.same(r, "copy in, then add1", func(j int) float32 { return w.in[j] + 1 }) {
		return false
	}

	switch i % 4 {
	case 1:
		// Objects made and closed while the others are in use: a stream,
		// a buffer, a device-to-device copy from the region into it.
		ns, err := stream.New(sh.ctx, stream.Options{Flags: stream.NonBlocking})
		if !w.call(r, "stream.New", err) {
			return false
		}
		defer ns.Close()
		b, err := memory.Alloc[float32](sh.ctx, n)
		if !w.call(r, "memory.Alloc", err) {
			return false
		}
		defer b.Close()
		if !w.call(r, "CopyDtoDAsync", memory.CopyDtoDAsync(ns, b, w.view)) ||
			!w.call(r, "Launch add1", sh.add1.Launch(ns, cfg, b, int32(n))) ||
			!w.call(r, "CopyToHostAsync", memory.CopyToHostAsync(ns, w.host, b)) ||
			!w.call(r, "Stream.Synchronize", ns.Synchronize()) {
			return false
		}
		if !w.same(r, "a copy in a new buffer, then add1", func(j int) float32 { return w.in[j] + 2 }) {
			return false
		}
		if !w.call(r, "Buffer.Close", b.Close()) || !w.call(r, "Stream.Close", ns.Close()) {
			return false
		}
	case 2:
		// The NULL stream, which binds the context for every call, and a
		// whole-context synchronisation.
		d, err := stream.Default(sh.ctx)
		if !w.call(r, "stream.Default", err) {
			return false
		}
		defer d.Close()
		if !w.call(r, "Fill on the NULL stream", memory.Fill(d, w.view, base)) ||
			!w.call(r, "Launch add1 on the NULL stream", sh.add1.Launch(d, cfg, w.view, int32(n))) ||
			!w.call(r, "CopyToHostAsync on the NULL stream", memory.CopyToHostAsync(d, w.host, w.view)) ||
			!w.call(r, "Context.Synchronize", sh.ctx.Synchronize()) {
			return false
		}
		if !w.same(r, "Fill and add1 on the NULL stream", func(int) float32 { return base + 1 }) {
			return false
		}
		if !w.call(r, "Stream.Close of the NULL stream", d.Close()) {
			return false
		}
	case 3:
		// A stream waits for all the shared streams.
		for _, x := range sh.streams {
			if !w.call(r, "Stream.WaitStream", s.WaitStream(x)) {
				return false
			}
		}
	}
	if i%8 == 7 {
		runtime.Gosched()
	}
	return true
}

// stressLoop runs rounds of w until rounds are done or the deadline passed
// (after stressMinRounds at least), counting them in done.
func stressLoop(r *stressReport, w *stressWorker, rounds int, deadline time.Time, done *atomic.Int64) {
	for i := 0; i < rounds && (i < stressMinRounds || time.Now().Before(deadline)); i++ {
		if !w.run(r, i) {
			return
		}
		done.Add(1)
	}
}

// testStressShared: stressGoroutines goroutines share one context, its
// streams, events, a module and a buffer, each checking the results in its
// region of the buffer.
func testStressShared(t *testing.T, drv *driver.Driver) {
	rounds, d := stressScale()
	ctx := streamContext(t, drv, 0)
	sh := newStressShared(t, ctx)
	r := &stressReport{t: t}
	var wg sync.WaitGroup
	var done atomic.Int64
	start := time.Now()
	deadline := start.Add(d)
	for g := range stressGoroutines {
		w := sh.worker(t, g)
		r.spawn(&wg, fmt.Sprintf("goroutine %d", g), func() { stressLoop(r, w, rounds, deadline, &done) })
	}
	wg.Wait()
	t.Logf("%d goroutines, %d rounds in %v", stressGoroutines, done.Load(), time.Since(start).Round(time.Millisecond))
	must(t, ctx.Synchronize())
}

// testStressForeign: goroutines lock their OS thread and make another
// context current there with raw calls, as a foreign library would (one of
// its own, made with cuCtxCreate on the thread; one of two shared foreign
// contexts, the second on the last device; or the library's own context,
// pushed raw), then do the rounds of the shared case on the library's
// objects. After every library call the thread's current context must be
// the foreign one still; the foreign library's own raw calls keep working
// between them.
func testStressForeign(t *testing.T, drv *driver.Driver) {
	rounds, d := stressScale()
	api := raw(t, drv)
	ctx := streamContext(t, drv, 0)
	sh := newStressShared(t, ctx)
	n, err := drv.DeviceCount()
	must(t, err)
	dev0, err := drv.Device(0)
	must(t, err)
	devN, err := drv.Device(n - 1)
	must(t, err)

	// The shared foreign contexts: created and popped as a library would,
	// destroyed when the case ends.
	foreign := func(dev *driver.Device) uintptr {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		h, err := api.CtxCreate(0, dev.Handle())
		must(t, err)
		t.Cleanup(func() { must(t, api.CtxDestroy(h)) })
		popped, err := api.CtxPopCurrent()
		must(t, err)
		mustEqual(t, popped, h)
		return h
	}
	foreignA, foreignB := foreign(dev0), foreign(devN)

	r := &stressReport{t: t}
	var wg sync.WaitGroup
	var done atomic.Int64
	start := time.Now()
	deadline := start.Add(d)
	for g := range stressGoroutines {
		w := sh.worker(t, g)
		r.spawn(&wg, fmt.Sprintf("goroutine %d", g), func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var mine uintptr
			switch g % 4 {
			case 0: // a context of its own, made current by its creation
				h, err := api.CtxCreate(0, dev0.Handle())
				if !r.ok(err, fmt.Sprintf("goroutine %d: raw cuCtxCreate", g)) {
					return
				}
				defer func() { r.ok(api.CtxDestroy(h), fmt.Sprintf("goroutine %d: raw cuCtxDestroy", g)) }()
				mine = h
			case 1:
				mine = foreignA
			case 2:
				mine = foreignB
			case 3:
				mine = ctx.Handle()
			}
			if g%4 != 0 && !r.ok(api.CtxPushCurrent(mine), fmt.Sprintf("goroutine %d: raw cuCtxPushCurrent", g)) {
				return
			}
			w.after = func(what string) {
				cur, err := api.CtxGetCurrent()
				if err != nil || cur != mine {
					r.errorf("goroutine %d, round %d: after %s the thread's current context is %#x (%v), want the foreign %#x", g, w.round, what, cur, err, mine)
				}
			}
			for i := 0; i < rounds && (i < stressMinRounds || time.Now().Before(deadline)); i++ {
				if !w.run(r, i) {
					break
				}
				// The foreign library's own work, in its context.
				p, err := api.MemAlloc(4096)
				if !r.ok(err, fmt.Sprintf("goroutine %d, round %d: the foreign library's raw cuMemAlloc", g, i)) {
					break
				}
				r.ok(api.MemFree(p), fmt.Sprintf("goroutine %d, round %d: the foreign library's raw cuMemFree", g, i))
				r.ok(api.CtxSynchronize(), fmt.Sprintf("goroutine %d, round %d: the foreign library's raw cuCtxSynchronize", g, i))
				done.Add(1)
			}
			popped, err := api.CtxPopCurrent()
			if r.ok(err, fmt.Sprintf("goroutine %d: raw cuCtxPopCurrent", g)) && popped != mine {
				r.errorf("goroutine %d: popped %#x, want the foreign %#x", g, popped, mine)
			}
		})
	}
	wg.Wait()
	t.Logf("%d goroutines on locked threads, %d rounds in %v", stressGoroutines, done.Load(), time.Since(start).Round(time.Millisecond))
	must(t, ctx.Synchronize())
}

// Phases of the Context in the close-racing case.
const (
	stressOpen    = iota
	stressClosing // ctx.Close is under way
	stressClosed  // ctx.Close returned
)

// testStressCloseRacing: goroutines use the objects of an owned context
// while another goroutine closes the Context, and then, once they stopped
// using them, the objects. Calls on the objects keep working after the
// Context's Close (they hold the context); calls on the Context itself
// (new objects, Synchronize) succeed before it and fail with ErrClosed
// after; each goroutine closes objects of its own halfway, while the others
// go on, and its calls on them then fail with ErrClosed. Nothing else may
// fail, nothing may panic, and when the last object is closed the context
// is destroyed and the backend reports nothing left.
func testStressCloseRacing(t *testing.T, drv *driver.Driver) {
	rounds, d := stressScale()
	// One compile for all the rounds: each loads the image in its context.
	image := Kernels(t, streamContext(t, drv, 0)).Image()
	before, _ := leaks(drv)
	start := time.Now()
	deadline := start.Add(d)
	n := rounds / 40
	round := 0
	for ; round < max(n, 2) && (round < 2 || time.Now().Before(deadline)); round++ {
		stressCloseRound(t, drv, image, round)
		if t.Failed() {
			break
		}
	}
	t.Logf("%d rounds of %d goroutines in %v", round, stressGoroutines, time.Since(start).Round(time.Millisecond))
	if after, ok := leaks(drv); ok {
		var left []backend.Leak
		for _, l := range after {
			if !slices.Contains(before, l) {
				left = append(left, l)
			}
		}
		isEmpty(t, left, "the backend reports what the case left")
	}
}

func stressCloseRound(t *testing.T, drv *driver.Driver, image []byte, round int) {
	api := raw(t, drv)
	dev, err := drv.Device(0)
	must(t, err)
	ctx, err := dev.NewContext(driver.ContextOptions{})
	must(t, err)
	t.Cleanup(func() { ctx.Close() }) // a no-op once the round closed it
	h := ctx.Handle()

	m, err := module.Load(ctx, image)
	must(t, err)
	f, err := m.Function(kernels.Add1)
	must(t, err)
	var streams []*stream.Stream
	for range 2 {
		s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
		must(t, err)
		streams = append(streams, s)
	}
	ev, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.DisableTiming})
	must(t, err)
	buf, err := memory.Alloc[float32](ctx, stressGoroutines*stressPer)
	must(t, err)
	type private struct {
		view *memory.Buffer[float32] // of buf
		s    *stream.Stream          // its own
		b    *memory.Buffer[float32] // its own
	}
	privs := make([]private, stressGoroutines)
	for g := range privs {
		p := &privs[g]
		p.view, err = buf.Slice(g*stressPer, (g+1)*stressPer)
		must(t, err)
		p.s, err = stream.New(ctx, stream.Options{})
		must(t, err)
		p.b, err = memory.Alloc[float32](ctx, stressPer)
		must(t, err)
	}

	r := &stressReport{t: t}
	var phase atomic.Int32
	var progress atomic.Int64
	var refused atomic.Int64 // calls on the Context refused with ErrClosed
	// The Context is closed once the goroutines did this many rounds in
	// all, at a different moment each round; each goroutine goes on for
	// post rounds after it saw the Context closed.
	closeAfter := int64(stressGoroutines * (round%4 + 1) / 2)
	const post = 6
	cfg := module.Config{Grid: module.Cover(stressPer, 128), Block: module.Dim(128)}

	var users sync.WaitGroup
	for g := range stressGoroutines {
		p := privs[g]
		r.spawn(&users, fmt.Sprintf("round %d, goroutine %d", round, g), func() {
			host := make([]float32, stressPer)
			what := func(i int, call string) string {
				return fmt.Sprintf("round %d, goroutine %d, iteration %d: %s", round, g, i, call)
			}
			// onCtx checks a call on the Context itself, which started in
			// phase from: nil unless the Context was closed before it
			// started, ErrClosed only once its Close began.
			onCtx := func(i int, call string, from int32, err error) bool {
				switch {
				case err == nil && from == stressClosed:
					r.errorf("%s: succeeded after the Context's Close returned", what(i, call))
				case err == nil:
					return true
				case errors.Is(err, driver.ErrClosed) && phase.Load() != stressOpen:
					refused.Add(1)
				default:
					r.errorf("%s: got %v, want nil, or an error wrapping driver.ErrClosed once the Context is being closed", what(i, call), err)
				}
				return false
			}
			privClosed := false
			seen := -1 // the iteration at which the Context was seen closed
			for i := 0; seen < 0 || i < seen+post; i++ {
				if seen < 0 && phase.Load() == stressClosed {
					seen = i
				}
				if seen < 0 && i > 100000 {
					r.errorf("%s: the Context is never closed", what(i, "wait"))
					return
				}
				// The shared objects work whatever the Context's state.
				s := streams[(g+i)%len(streams)]
				v := float32(i%100 + g)
				if !r.ok(memory.Fill(s, p.view, v), what(i, "Fill")) ||
					!r.ok(f.Launch(s, cfg, p.view, int32(stressPer)), what(i, "Launch add1")) ||
					!r.ok(ev.Record(s), what(i, "Event.Record")) ||
					!r.ok(streams[(g+i+1)%len(streams)].Wait(ev), what(i, "Stream.Wait")) ||
					!r.ok(memory.CopyToHostAsync(s, host, p.view), what(i, "CopyToHostAsync")) ||
					!r.ok(s.Synchronize(), what(i, "Stream.Synchronize")) {
					return
				}
				for j, x := range host {
					if x != v+1 {
						r.errorf("%s: element %d is %v, want %v", what(i, "Fill, then add1"), j, x, v+1)
						return
					}
				}
				_, err := s.Query()
				if !r.ok(err, what(i, "Stream.Query")) {
					return
				}

				// Its own objects: closed halfway through the goroutine's
				// iterations after the Close, while the others go on.
				if !privClosed && seen >= 0 && i >= seen+g%post {
					if !r.ok(p.s.Close(), what(i, "own Stream.Close")) || !r.ok(p.b.Close(), what(i, "own Buffer.Close")) {
						return
					}
					privClosed = true
				}
				check := r.ok
				if privClosed {
					check = r.closed
				}
				check(memory.Fill(p.s, p.b, v), what(i, "Fill of its own buffer on its own stream"))
				check(memory.CopyDtoDAsync(p.s, p.b, p.view), what(i, "CopyDtoDAsync into its own buffer"))
				check(p.s.Synchronize(), what(i, "own Stream.Synchronize"))
				_, err = p.b.Slice(0, 1)
				check(err, what(i, "own Buffer.Slice"))

				// Calls on the Context itself, racing its Close: the
				// objects made are used and closed.
				from := phase.Load()
				ns, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
				if onCtx(i, "stream.New", from, err) {
					r.ok(memory.Fill(ns, p.view, v), what(i, "Fill on a new stream"))
					r.ok(ns.Synchronize(), what(i, "Synchronize of a new stream"))
					r.ok(ns.Close(), what(i, "Close of a new stream"))
				}
				from = phase.Load()
				b, err := memory.Alloc[float32](ctx, stressPer)
				if onCtx(i, "memory.Alloc", from, err) {
					r.ok(memory.CopyDtoD(b, p.view), what(i, "CopyDtoD into a new buffer"))
					r.ok(b.Close(), what(i, "Close of a new buffer"))
				}
				from = phase.Load()
				onCtx(i, "Context.Synchronize", from, ctx.Synchronize())
				if i%4 == g%4 {
					from = phase.Load()
					e, err := stream.NewEvent(ctx, stream.EventOptions{})
					if onCtx(i, "stream.NewEvent", from, err) {
						r.ok(e.Record(s), what(i, "Record of a new event"))
						r.ok(e.Synchronize(), what(i, "Synchronize of a new event"))
						r.ok(e.Close(), what(i, "Close of a new event"))
					}
					from = phase.Load()
					d, err := stream.Default(ctx)
					if onCtx(i, "stream.Default", from, err) {
						r.ok(d.Synchronize(), what(i, "Synchronize of the NULL stream"))
						r.ok(d.Close(), what(i, "Close of the NULL stream"))
					}
				}
				if i%8 == g%8 {
					from = phase.Load()
					lm, err := module.Load(ctx, image)
					if onCtx(i, "module.Load", from, err) {
						lf, err := lm.Function(kernels.Add1)
						if r.ok(err, what(i, "Function of a new module")) {
							r.ok(lf.Launch(s, cfg, p.view, int32(stressPer)), what(i, "Launch of a new module's add1"))
							r.ok(s.Synchronize(), what(i, "Stream.Synchronize"))
						}
						r.ok(lm.Close(), what(i, "Close of a new module"))
					}
				}
				progress.Add(1)
			}
		})
	}

	// The closer: the Context at some point of the traffic, then every
	// object once the goroutines stopped using them.
	var closer sync.WaitGroup
	r.spawn(&closer, fmt.Sprintf("round %d, closer", round), func() {
		for progress.Load() < closeAfter && !r.failed() {
			runtime.Gosched()
			time.Sleep(50 * time.Microsecond)
		}
		phase.Store(stressClosing)
		r.ok(ctx.Close(), fmt.Sprintf("round %d: Context.Close racing use", round))
		phase.Store(stressClosed)
		users.Wait()
		_, err := api.CtxGetAPIVersion(h)
		r.ok(err, fmt.Sprintf("round %d: the context is alive while objects hold it", round))
		for _, p := range privs {
			r.ok(p.view.Close(), fmt.Sprintf("round %d: view Close", round))
		}
		for _, c := range []interface{ Close() error }{buf, ev, m, streams[0], streams[1]} {
			r.ok(c.Close(), fmt.Sprintf("round %d: Close of %v", round, c))
		}
	})
	closer.Wait()
	users.Wait()
	if t.Failed() {
		return
	}
	if round == 0 {
		t.Logf("round 0: closed after %d iterations in all, %d calls on the closed Context refused, %d iterations in all", closeAfter, refused.Load(), progress.Load())
	}
	_, err = api.CtxGetAPIVersion(h)
	errorIs(t, err, driver.ErrInvalidContext, "round %d: the context is destroyed with its last object", round)

	// Everything answers ErrClosed now, and a second Close is a no-op.
	s := streams[0]
	errorIs(t, ctx.Synchronize(), driver.ErrClosed, "Context.Synchronize")
	_, err = stream.New(ctx, stream.Options{})
	errorIs(t, err, driver.ErrClosed, "stream.New")
	errorIs(t, f.Launch(s, cfg, buf, int32(1)), driver.ErrClosed, "Launch of an unloaded module's function")
	_, err = m.Function(kernels.Add1)
	errorIs(t, err, driver.ErrClosed, "Module.Function")
	errorIs(t, s.Synchronize(), driver.ErrClosed, "Stream.Synchronize")
	errorIs(t, ev.Record(streams[1]), driver.ErrClosed, "Event.Record")
	errorIs(t, memory.CopyToHost(make([]float32, 1), buf), driver.ErrClosed, "CopyToHost")
	_, err = buf.Slice(0, 1)
	errorIs(t, err, driver.ErrClosed, "Buffer.Slice")
	for _, c := range []interface{ Close() error }{ctx, buf, ev, m, s, privs[0].view, privs[0].s, privs[0].b} {
		noError(t, c.Close(), "a second Close of %v", c)
	}
}
