package fake

import (
	"errors"
	"time"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/graphs"
	"github.com/nocgo/cuda/fake/internal/race"
	"github.com/nocgo/cuda/internal/core"
)

// CUDA graphs and stream capture are a room of their own
// (fake/internal/graphs): the graphs, nodes and execs, each stream's
// capture state, conditional handles and user objects. fakeBackend embeds
// the room, whose methods are its graph entry points; the room reaches the
// core through graphsCore, and the core calls its capture hooks (Capture*)
// from its enqueue path, its lock held, as the room's lock is a leaf.

// graphRoom is the room's type under the name of its field in fakeBackend.
type graphRoom = graphs.Room

// The room's entry points are the backend's, promoted (graph_test.go
// checks that the core defines none of them).
var (
	_ backend.Graphs      = (*fakeBackend)(nil)
	_ backend.GraphNodes  = (*fakeBackend)(nil)
	_ backend.UserObjects = (*fakeBackend)(nil)
)

// slot returns s as the graph room sees it.
func (s *stream) slot() graphs.Stream {
	return graphs.Stream{Slot: &s.capture, Ctx: s.ctx.h, Null: s.kind == nullStream,
		Blocking: s.kind == perThreadStream || s.kind == userStream && s.flags&backend.StreamNonBlocking == 0}
}

// errCaptured carries, out of an enqueue's validation, the outcome of an
// event record or wait that a capture handled: nothing is enqueued, and
// capturedOK turns it back into the call's result.
type errCaptured struct{ err error }

func (e errCaptured) Error() string { return "captured" }

func capturedOK(err error) error {
	if c, ok := err.(errCaptured); ok {
		return c.err
	}
	return err
}

// graphsCore is the core as the graph room sees it (graphs.Core).
type graphsCore struct{ b *fakeBackend }

func (c graphsCore) Enter(op string) error { return c.b.enter(op) }

// EnterTeardown: in a process poisoned by a sticky fault, a graph's or an
// exec's destroy fails with that fault as every call does, but the object
// goes all the same, as a context's own objects go with the context.
func (c graphsCore) EnterTeardown(op string) (err error, ok bool) {
	err = c.b.enter(op)
	if err == nil {
		return nil, true
	}
	if p := c.b.poison.Load(); p != nil && errors.Is(err, *p) {
		return err, true
	}
	return err, false
}

func (graphsCore) NewHandle() uintptr { return newHandle() }

func (c graphsCore) Context(h uintptr) (uintptr, error) {
	b := c.b
	tid := core.ThreadID()
	b.mu.RLock()
	defer b.mu.RUnlock()
	var ctx *context
	var err error
	if h == 0 {
		ctx, err = b.currentLocked(tid)
	} else {
		ctx, err = b.liveCtxLocked(h)
	}
	if err != nil {
		return 0, err
	}
	return ctx.h, nil
}

// KernelWork resolves a node given by its CUkernel (p.Kernel, Func 0:
// CUDA_KERNEL_NODE_PARAMS_v2's kern) to the kernel's function in the
// context the node runs in (ctx, else p.Ctx, else the current one), its
// library loaded there first if need be, through the link room, as the
// driver does; a CUkernel that is no live kernel is
// CUDA_ERROR_INVALID_VALUE. A node that names both runs Func, kern
// unread (the H200 takes such a node: TestKernelNodeByCUkernel). The node then holds the function
// as one given by Func: unloading the library makes its launches fail
// (loadedOnly).
func (c graphsCore) KernelWork(p *backend.KernelNodeParams, ctx uintptr) (func() error, error) {
	b := c.b
	fn := p.Func
	if p.Func == 0 && p.Kernel != 0 {
		at := ctx
		if at == 0 {
			at = p.Ctx
		}
		h, err := b.linkRoom.KernelFunctionIn(p.Kernel, at) // the link room's lock before the core's
		if err != nil {
			return nil, err
		}
		fn = h
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	f, err := b.funcLocked(fn)
	if err != nil {
		return nil, err
	}
	if ctx != 0 && f.mod.ctx.h != ctx || p.Ctx != 0 && p.Ctx != f.mod.ctx.h {
		return nil, driver.ErrInvalidValue
	}
	run, err := b.kernelWorkLocked(f, f.mod.ctx, p.Grid, p.Block, p.SharedMem, p.Params)
	if err != nil {
		return nil, err
	}
	return loadedOnly(f, run), nil
}

// loadedOnly returns the work run of a graph's kernel node of f, which
// fails with CUDA_ERROR_INVALID_HANDLE, running nothing, once f's module
// is unloaded: a replay never runs unloaded code as if it were loaded (on
// a GPU it is undefined). run is returned as it is for work of no kernel
// (f nil).
func loadedOnly(f *function, run func() error) func() error {
	if f == nil || run == nil {
		return run
	}
	return func() error {
		if f.mod.unloaded.Load() {
			return driver.ErrInvalidHandle
		}
		return run()
	}
}

// kernelWorkLocked checks a launch of f in c as cuLaunchKernel does and
// returns the work, with the arguments copied from params.
func (b *fakeBackend) kernelWorkLocked(f *function, c *context, grid, block [3]uint32, sharedMem uint32, params unsafe.Pointer) (func() error, error) {
	a := c.dev.attrs
	limits := [...]int{
		a[driver.AttrMaxGridDimX], a[driver.AttrMaxGridDimY], a[driver.AttrMaxGridDimZ],
		a[driver.AttrMaxBlockDimX], a[driver.AttrMaxBlockDimY], a[driver.AttrMaxBlockDimZ],
	}
	dims := [...]uint32{grid[0], grid[1], grid[2], block[0], block[1], block[2]}
	for i, d := range dims {
		if d == 0 || uint64(d) > uint64(limits[i]) {
			return nil, driver.ErrInvalidValue
		}
	}
	if uint64(block[0])*uint64(block[1])*uint64(block[2]) > uint64(a[driver.AttrMaxThreadsPerBlock]) {
		return nil, driver.ErrInvalidValue
	}
	if int(sharedMem) > f.maxDyn {
		return nil, errSharedTooLarge
	}
	k := f.k
	if err := k.checkInterpreted(block, sharedMem, a); err != nil {
		return nil, err
	}
	if err := k.checkRunnable(grid, block); err != nil {
		return nil, err
	}
	if len(k.params) > 0 && params == nil {
		return nil, driver.ErrInvalidValue
	}
	args := make([]byte, k.size)
	for i, p := range k.params {
		src := *(*unsafe.Pointer)(unsafe.Add(params, uintptr(i)*unsafe.Sizeof(params)))
		if src == nil {
			return nil, driver.ErrInvalidValue
		}
		copy(args[p.off:p.off+p.size], unsafe.Slice((*byte)(src), p.size))
	}
	sms, resident := a[driver.AttrMultiprocessorCount], k.residentBlocks(a, block, sharedMem)
	return func() error { return k.run(b, grid, block, sharedMem, sms, resident, args) }, nil
}

// MemcpyWork checks a copy node's parameters and returns its work.
func (c graphsCore) MemcpyWork(p *backend.MemcpyNodeParams, ctx uintptr) (func() error, error) {
	b := c.b
	if p == nil || p.Size == 0 {
		return nil, driver.ErrInvalidValue
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := b.liveCtxLocked(ctx); err != nil {
		return nil, err
	}
	switch {
	case p.SrcHost != nil && p.DstHost != nil:
		return nil, driver.ErrInvalidValue
	case p.SrcHost != nil:
		return b.h2dWork(p.Dst, p.SrcHost, p.Size, false)
	case p.DstHost != nil:
		return b.d2hWork(p.DstHost, p.Src, p.Size)
	default:
		return b.d2dWork(p.Dst, p.Src, p.Size)
	}
}

// MemsetWork checks a memset node's parameters (Height rows of Width
// elements, Pitch bytes apart) and returns its work.
func (c graphsCore) MemsetWork(p *backend.MemsetNodeParams, ctx uintptr) (func() error, error) {
	if p == nil || p.Width == 0 || p.Height == 0 {
		return nil, driver.ErrInvalidValue
	}
	if p.ElementSize != 1 && p.ElementSize != 2 && p.ElementSize != 4 {
		return nil, driver.ErrInvalidValue
	}
	if p.Height > 1 && p.Pitch < p.Width*uintptr(p.ElementSize) {
		return nil, driver.ErrInvalidValue
	}
	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := b.liveCtxLocked(ctx); err != nil {
		return nil, err
	}
	var rows []func() error
	for r := uintptr(0); r < p.Height; r++ {
		w, err := b.memsetWork(p.Dst+r*p.Pitch, p.Value, uintptr(p.ElementSize), p.Width)
		if err != nil {
			return nil, err
		}
		rows = append(rows, w)
	}
	return func() error {
		for _, w := range rows {
			if err := w(); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

func (c graphsCore) Event(h uintptr) (graphs.Event, error) {
	e, err := c.b.event(h)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// graphMem is the memory of an allocation node (graphs.Mem).
type graphMem struct {
	b          *fakeBackend
	base, size uintptr
	dev        *device
	ctx        *context
	live       *alloc // the allocation the last run of the node made; guarded by Backend.mu
}

// GraphMem takes the address space of an allocation node in the current
// context, whose device dev must be.
func (c graphsCore) GraphMem(dev int32, size uintptr) (graphs.Mem, error) {
	b := c.b
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	ctx, err := b.currentLocked(tid)
	if err != nil {
		return nil, err
	}
	if int(dev) != ctx.dev.ordinal {
		return nil, driver.ErrInvalidValue
	}
	if uint64(size) > ctx.dev.total || size > maxStorage {
		return nil, driver.ErrOutOfMemory
	}
	base, err := ctx.dev.carveLocked(size)
	if err != nil {
		return nil, err
	}
	return &graphMem{b: b, base: base, size: size, dev: ctx.dev, ctx: ctx}, nil
}

func (m *graphMem) Base() uintptr { return m.base }
func (m *graphMem) Size() uintptr { return m.size }

// Alloc makes the memory exist, poisoned as cuMemAlloc's.
func (m *graphMem) Alloc() error {
	b := m.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if m.live != nil && b.findLocked(m.base) == m.live {
		return driver.ErrInvalidValue
	}
	if uint64(m.size) > m.dev.total-m.dev.used {
		return driver.ErrOutOfMemory
	}
	m.dev.used += uint64(m.size)
	m.live = &alloc{base: m.base, size: m.size, data: newStorage(m.size), kind: deviceMem, dev: m.dev, ctx: m.ctx}
	b.insertLocked(m.live)
	return nil
}

// Free takes the memory away.
func (m *graphMem) Free() error {
	b := m.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if m.live == nil || b.findLocked(m.base) != m.live {
		return driver.ErrIllegalAddress // freed already
	}
	b.removeLocked(m.live)
	m.live = nil
	return nil
}

func (c graphsCore) WithStream(h uintptr, f func(graphs.Stream) error) error {
	b := c.b
	tid := tidFor(h)
	b.mu.Lock()
	defer b.mu.Unlock()
	s, err := b.streamLocked(h, tid)
	if err != nil {
		return err
	}
	return f(s.slot())
}

func (c graphsCore) Upload(h uintptr, check func(graphs.Stream) error) error {
	return c.b.enqueue(h, &item{run: nop}, func(st *stream) error { return check(st.slot()) })
}

func (c graphsCore) Drain(h uintptr) {
	b := c.b
	b.mu.RLock()
	ctx := b.ctxs[h]
	b.mu.RUnlock()
	if ctx != nil && b.lockExec() == nil {
		_ = b.drainContext(ctx)
		b.unlockExec()
	}
}

// Launch queues a graph launch on the stream h: a wait item per event wait
// node, then the work, which also completes the event record nodes. With
// the race detector on, each node's work runs as its own operation
// (race.Detector.Step) with the nodes of the launch that precede it.
func (c graphsCore) Launch(h uintptr, plan func(graphs.Stream) (*graphs.Launch, error)) error {
	b := c.b
	tid := tidFor(h)
	b.mu.Lock()
	st, err := b.streamLocked(h, tid)
	if err != nil {
		b.mu.Unlock()
		return err
	}
	l, err := plan(st.slot())
	if err != nil || l == nil {
		b.mu.Unlock()
		return err // nil: captured
	}
	for _, ev := range l.Waits {
		e := ev.(*event)
		w := &item{run: nop}
		rb, rs, seq, pending := e.st.snapshot()
		if rb == b {
			b.raceWaits(st, e.st)
		}
		switch {
		case !pending:
		case rb == b:
			w.waitS, w.waitSeq = rs, seq
		default:
			w.run = func() error { runRecord(rb, rs, seq); return nil }
		}
		b.pushLocked(st, w)
	}
	body := &item{}
	var step func(i int, run func() error) error
	if d := b.race; d != nil {
		if pred := l.Order(); pred != nil {
			order := race.NewGraphOrder(pred)
			step = func(i int, run func() error) error { return d.Step(body.race, order, i, run) }
		}
	}
	seq := b.seq + 1
	var records []*evState
	for _, ev := range l.Records {
		es := ev.(*event).st
		es.mu.Lock()
		es.b, es.s, es.seq, es.done = b, st, seq, false
		es.mu.Unlock()
		records = append(records, es)
	}
	body.run = func() error {
		return l.Run(step, func() {
			for _, es := range records {
				es.mu.Lock()
				if es.b == b && es.seq == seq {
					es.done, es.t = true, time.Now()
				}
				es.mu.Unlock()
			}
		})
	}
	b.pushLocked(st, body)
	for _, es := range records {
		b.raceRecordedLocked(es, st)
	}
	b.mu.Unlock()
	b.backpressure(st)
	return nil
}

// SetConditional is the interpreter's cudaGraphSetConditional (see
// ptxexec.ConditionSetter): the graph room sets handle's value in the exec
// whose kernel runs.
func (m deviceMemory) SetConditional(handle uint64, value uint32) bool {
	return m.b.graphRoom.SetConditional(handle, value)
}
