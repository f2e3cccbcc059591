package faultsweep

import (
	"errors"
	"fmt"
	"slices"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/nccl"
	"github.com/nocgo/cuda/stream"
)

// The sequences of the surfaces added after the first sweep: devices and
// peers, graphs, pools, managed and registered memory, pitched 2D/3D
// copies, module links, globals, extended launches and name expressions,
// IPC opened in the faulted process, and NCCL.

// twoDevices is the option of the sequences that need a peer device.
func twoDevices() []fake.Option { return []fake.Option{fake.Devices(2)} }

func ascending[T int16 | int32 | float32 | float64](n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = T(i)
	}
	return out
}

func wrong[T comparable](what string, got, want []T) error {
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("%w: %s[%d] = %v, want %v", errWrongResult, what, i, got[i], want[i])
		}
	}
	return nil
}

// primaryOf retains dev's primary context, kept for cleanup.
func (e *env) primaryOf(dev *driver.Device) (*driver.Context, error) {
	ctx, err := dev.PrimaryContext()
	if err != nil {
		return nil, err
	}
	e.keep(fmt.Sprintf("primary context of device %d", dev.Ordinal()), ctx)
	return ctx, nil
}

// seqDevices: the driver's and devices' queries, two primary contexts,
// peer access enabled and disabled, a wrapped context, stream queries,
// synchronous copies (host to device, peer to peer), a zeroed allocation
// and fills of every element size.
func seqDevices(e *env) error {
	drv, err := e.driver()
	if err != nil {
		return err
	}
	if _, err := drv.Version(); err != nil {
		return err
	}
	if count, err := drv.DeviceCount(); err != nil {
		return err
	} else if count != 2 {
		return fmt.Errorf("%w: %d devices", errWrongResult, count)
	}
	dev0, err := drv.Device(0)
	if err != nil {
		return err
	}
	dev1, err := drv.Device(1)
	if err != nil {
		return err
	}
	if _, err := dev0.Name(); err != nil {
		return err
	}
	if _, err := dev0.TotalMemory(); err != nil {
		return err
	}
	if _, err := dev0.UUID(); err != nil {
		return err
	}
	if _, err := dev0.PCIBusID(); err != nil {
		return err
	}
	if ok, err := dev0.CanAccessPeer(dev1); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("%w: no peer access between the fake's devices", errWrongResult)
	}
	ctx0, err := e.primaryOf(dev0)
	if err != nil {
		return err
	}
	ctx1, err := e.primaryOf(dev1)
	if err != nil {
		return err
	}
	if _, _, err := ctx0.MemInfo(); err != nil {
		return err
	}
	w, err := driver.WrapContext(drv, ctx0.Handle())
	if err != nil {
		return err
	}
	e.keep("wrapped context", w)
	if err := ctx0.EnablePeerAccess(ctx1); err != nil {
		return err
	}
	// A Disable that did its work but failed to unbind reports the unbind;
	// the retry then finds access disabled, which careful code accepts.
	tried := false
	e.keepFunc("peer access", func() error {
		err := ctx0.DisablePeerAccess(ctx1)
		if tried && errors.Is(err, driver.ErrPeerAccessNotEnabled) {
			return nil
		}
		tried = true
		return err
	})

	_, greatest, err := stream.PriorityRange(ctx0)
	if err != nil {
		return err
	}
	s, err := stream.New(ctx0, stream.Options{Flags: stream.NonBlocking, Priority: greatest})
	if err != nil {
		return err
	}
	e.keep("stream", s)
	if f, err := s.Flags(); err != nil {
		return err
	} else if f != stream.NonBlocking {
		return fmt.Errorf("%w: stream flags %v", errWrongResult, f)
	}
	if p, err := s.Priority(); err != nil {
		return err
	} else if p != greatest {
		return fmt.Errorf("%w: stream priority %d, want %d", errWrongResult, p, greatest)
	}
	if _, err := s.Query(); err != nil {
		return err
	}

	a, err := memory.Alloc[int32](ctx0, n)
	if err != nil {
		return err
	}
	e.keep("buffer on device 0", a)
	b, err := memory.Alloc[int32](ctx1, n)
	if err != nil {
		return err
	}
	e.keep("buffer on device 1", b)
	in := ascending[int32](n)
	if err := memory.CopyToDevice(a, in); err != nil {
		return err
	}
	if err := memory.CopyDtoD(b, a); err != nil { // peer to peer
		return err
	}
	c, err := memory.Alloc[int32](ctx0, n)
	if err != nil {
		return err
	}
	e.keep("second buffer on device 0", c)
	if err := memory.CopyDtoDAsync(s, c, b); err != nil { // peer to peer, in stream order
		return err
	}
	z, err := memory.AllocZeroed[int16](ctx0, n)
	if err != nil {
		return err
	}
	e.keep("zeroed buffer", z)
	bytes, err := memory.Alloc[uint8](ctx0, n)
	if err != nil {
		return err
	}
	e.keep("byte buffer", bytes)
	if err := memory.Fill(s, bytes, uint8(7)); err != nil {
		return err
	}
	if err := memory.Fill(s, z, int16(-3)); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	out := make([]int32, n)
	if err := memory.CopyToHost(out, c); err != nil {
		return err
	}
	if err := wrong("peer copy", out, in); err != nil {
		return err
	}
	zs := make([]int16, n)
	if err := memory.CopyToHost(zs, z); err != nil {
		return err
	}
	return wrong("int16 fill", zs, slices.Repeat([]int16{-3}, n))
}

// seqReset: the primary context retained, released, and reset.
func seqReset(e *env) error {
	ctx, err := e.primary()
	if err != nil {
		return err
	}
	if err := ctx.Close(); err != nil {
		return err
	}
	dev, err := e.drv.Device(0)
	if err != nil {
		return err
	}
	return dev.ResetPrimaryContext()
}

// seqGraphs: a graph captured from a stream (a fill and a launch), its
// capture status, instantiated, uploaded and launched; a graph built node
// by node (kernel, event record and wait, fill, copy, empty, child graph),
// counted, cloned, instantiated, updated with its clone and launched.
func seqGraphs(e *env) error {
	ctx, err := e.primary()
	if err != nil {
		return err
	}
	s, err := stream.New(ctx, stream.Options{})
	if err != nil {
		return err
	}
	e.keep("stream", s)
	buf, err := memory.Alloc[float32](ctx, n)
	if err != nil {
		return err
	}
	e.keep("buffer", buf)
	m, err := module.Compile(ctx, kernelSource, module.Options{Name: "sweep.cu", NoCache: true})
	if err != nil {
		return err
	}
	e.keep("module", m)
	f, err := m.Function("sweep_axpb")
	if err != nil {
		return err
	}
	cfg := module.Config{Grid: module.Cover(n, 64), Block: module.Dim(64)}

	captured, err := graph.Capture(s, graph.ThreadLocal, func() error {
		if st, _, err := graph.CaptureStatus(s); err != nil {
			return err
		} else if st != graph.Active {
			return fmt.Errorf("%w: capture status %v inside Capture", errWrongResult, st)
		}
		if err := memory.Fill(s, buf, float32(1)); err != nil {
			return err
		}
		return f.Launch(s, cfg, buf, float32(2), float32(1), int32(n)) // 3
	})
	if err != nil {
		return err
	}
	e.keep("captured graph", captured)
	x1, err := captured.Instantiate()
	if err != nil {
		return err
	}
	e.keep("captured exec", x1)
	if err := x1.Upload(s); err != nil {
		return err
	}
	if err := x1.Launch(s); err != nil {
		return err
	}

	// The buffers the graph's nodes use are made first, so that the
	// cleanup (last first) closes the graphs before them: a graph retains
	// them, and their Close is refused while it is open.
	other, err := memory.Alloc[float32](ctx, n)
	if err != nil {
		return err
	}
	e.keep("other buffer", other)
	third, err := memory.Alloc[float32](ctx, n)
	if err != nil {
		return err
	}
	e.keep("third buffer", third)
	g, err := graph.New(ctx)
	if err != nil {
		return err
	}
	e.keep("graph", g)
	args, err := f.Args(buf, float32(2), float32(0), int32(n)) // 6
	if err != nil {
		return err
	}
	k, err := g.AddKernel(f, cfg, args)
	if err != nil {
		return err
	}
	ev, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.DisableTiming})
	if err != nil {
		return err
	}
	e.keep("event", ev)
	rec, err := g.AddEventRecord(ev, k)
	if err != nil {
		return err
	}
	wait, err := g.AddEventWait(ev, rec)
	if err != nil {
		return err
	}
	fill, err := graph.AddFill(g, other, float32(5), wait)
	if err != nil {
		return err
	}
	cp, err := graph.AddCopy(g, other, buf, fill) // other = 6
	if err != nil {
		return err
	}
	empty, err := g.AddEmpty(cp)
	if err != nil {
		return err
	}
	child, err := graph.New(ctx)
	if err != nil {
		return err
	}
	e.keep("child graph", child)
	if _, err := graph.AddFill(child, third, float32(9)); err != nil {
		return err
	}
	if _, err := g.AddChild(child, empty); err != nil {
		return err
	}
	if nodes, err := g.NodeCount(); err != nil {
		return err
	} else if nodes != 7 {
		return fmt.Errorf("%w: %d nodes, want 7", errWrongResult, nodes)
	}
	if edges, err := g.EdgeCount(); err != nil {
		return err
	} else if edges != 6 {
		return fmt.Errorf("%w: %d edges, want 6", errWrongResult, edges)
	}
	clone, err := g.Clone()
	if err != nil {
		return err
	}
	e.keep("clone", clone)
	x2, err := g.Instantiate()
	if err != nil {
		return err
	}
	e.keep("exec", x2)
	if err := x2.Update(clone); err != nil {
		return err
	}
	if err := x2.Launch(s); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	for _, c := range []struct {
		what string
		b    *memory.Buffer[float32]
		want float32
	}{{"buffer", buf, 6}, {"other buffer", other, 6}, {"third buffer", third, 9}} {
		out := make([]float32, n)
		if err := memory.CopyToHost(out, c.b); err != nil {
			return err
		}
		if err := wrong(c.what, out, slices.Repeat([]float32{c.want}, n)); err != nil {
			return err
		}
	}
	return nil
}

// seqPools: an owned pool with a release threshold, peer access and its
// statistics, buffers allocated from it explicitly and as the device's
// current pool, the default and current pools wrapped, a trim.
func seqPools(e *env) error {
	drv, err := e.driver()
	if err != nil {
		return err
	}
	dev0, err := drv.Device(0)
	if err != nil {
		return err
	}
	dev1, err := drv.Device(1)
	if err != nil {
		return err
	}
	ctx, err := e.primaryOf(dev0)
	if err != nil {
		return err
	}
	s, err := stream.New(ctx, stream.Options{})
	if err != nil {
		return err
	}
	e.keep("stream", s)
	p, err := memory.NewPool(ctx, memory.PoolOptions{ReleaseThreshold: 1 << 20})
	if err != nil {
		return err
	}
	e.keep("pool", p)
	if err := p.SetReleaseThreshold(2 << 20); err != nil {
		return err
	}
	if v, err := p.ReleaseThreshold(); err != nil {
		return err
	} else if v != 2<<20 {
		return fmt.Errorf("%w: release threshold %d", errWrongResult, v)
	}
	if err := p.SetAccess(dev1, memory.AccessReadWrite); err != nil {
		return err
	}
	if a, err := p.Access(dev1); err != nil {
		return err
	} else if a != memory.AccessReadWrite {
		return fmt.Errorf("%w: access %v", errWrongResult, a)
	}
	def, err := memory.DefaultPool(ctx)
	if err != nil {
		return err
	}
	e.keep("default pool", def)
	cur, err := memory.CurrentPool(ctx)
	if err != nil {
		return err
	}
	e.keep("current pool", cur)
	if err := p.SetCurrent(); err != nil {
		return err
	}
	e.keepFunc("the default pool made current again", def.SetCurrent)
	a, err := memory.AllocFromPool[int32](s, p, n)
	if err != nil {
		return err
	}
	e.keep("buffer from the pool", a)
	b, err := memory.AllocAsync[int32](s, n) // from p, the current pool
	if err != nil {
		return err
	}
	e.keep("buffer from the current pool", b)
	if err := memory.Fill(s, a, int32(4)); err != nil {
		return err
	}
	if err := memory.CopyDtoDAsync(s, b, a); err != nil {
		return err
	}
	if _, err := p.Stats(); err != nil {
		return err
	}
	if err := p.ResetHighWater(); err != nil {
		return err
	}
	out := make([]int32, n)
	if err := memory.CopyToHostAsync(s, out, b); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	if err := p.Trim(0); err != nil {
		return err
	}
	return wrong("pool buffer", out, slices.Repeat([]int32{4}, n))
}

// seqManaged: managed memory written from the host, advised, prefetched
// and read back through registered host memory.
func seqManaged(e *env) error {
	ctx, err := e.primary()
	if err != nil {
		return err
	}
	s, err := stream.New(ctx, stream.Options{})
	if err != nil {
		return err
	}
	e.keep("stream", s)
	mb, err := memory.AllocManaged[float32](ctx, n, memory.AttachGlobal)
	if err != nil {
		return err
	}
	e.keep("managed buffer", mb)
	hs, err := mb.HostSlice()
	if err != nil {
		return err
	}
	in := ascending[float32](n)
	copy(hs, in)
	loc := memory.On(ctx.Device())
	if err := memory.Advise(mb, memory.SetReadMostly, loc); err != nil {
		return err
	}
	if err := memory.Prefetch(s, mb, loc); err != nil {
		return err
	}
	host := make([]float32, n)
	r, err := memory.Register(ctx, host, 0)
	if err != nil {
		return err
	}
	e.keep("registered host memory", r)
	if err := memory.CopyToHostAsync(s, r.Slice(), mb); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	return wrong("registered memory", r.Slice(), in)
}

// seqPitched: pitched 2D and 3D memory, each written and read synchronously
// and in stream order.
func seqPitched(e *env) error {
	const w, h, d = 24, 5, 3
	ctx, err := e.primary()
	if err != nil {
		return err
	}
	s, err := stream.New(ctx, stream.Options{})
	if err != nil {
		return err
	}
	e.keep("stream", s)
	p, err := memory.AllocPitched[float64](ctx, w, h)
	if err != nil {
		return err
	}
	e.keep("pitched buffer", p)
	in2 := ascending[float64](w * h)
	if err := memory.CopyToPitched(p, in2, w); err != nil {
		return err
	}
	out2 := make([]float64, w*h)
	if err := memory.CopyFromPitchedAsync(s, out2, w, p); err != nil {
		return err
	}
	v, err := memory.AllocPitched3D[float64](ctx, w, h, d)
	if err != nil {
		return err
	}
	e.keep("pitched volume", v)
	in3 := ascending[float64](w * h * d)
	if err := memory.CopyToPitched3DAsync(s, v, in3); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	out3 := make([]float64, w*h*d)
	if err := memory.CopyFromPitched3D(out3, v); err != nil {
		return err
	}
	if err := wrong("2D copy", out2, in2); err != nil {
		return err
	}
	return wrong("3D copy", out3, in3)
}

// linkPTX is the sweep kernel as PTX (its Go body runs on the fake), and a
// device variable.
const linkPTX = `.version 7.8
.target sm_90
.address_size 64

.visible .global .align 4 .f32 factor;

.visible .entry sweep_axpb(
	.param .u64 sweep_axpb_param_0,
	.param .f32 sweep_axpb_param_1,
	.param .f32 sweep_axpb_param_2,
	.param .u32 sweep_axpb_param_3
)
{
	ret;
}
`

// templateSource is a kernel template, instantiated by a name expression.
const templateSource = `
template <typename T> __global__ void sweep_fill(T* p, T v, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) p[i] = v;
}`

// seqModuleExt: a module linked from PTX, a device variable set from the
// host, a kernel's attributes, shared memory limit and occupancy, a launch
// with clusters (cuLaunchKernelEx), and a template compiled by a name
// expression.
func seqModuleExt(e *env) error {
	ctx, err := e.primary()
	if err != nil {
		return err
	}
	s, err := stream.New(ctx, stream.Options{})
	if err != nil {
		return err
	}
	e.keep("stream", s)
	m, err := module.Link(ctx, module.LinkInput{Name: "sweep.ptx", Data: []byte(linkPTX)})
	if err != nil {
		return err
	}
	e.keep("linked module", m)
	factor, err := module.Global[float32](m, "factor")
	if err != nil {
		return err
	}
	e.keep("global", factor)
	if err := memory.CopyToDevice(factor, []float32{2.5}); err != nil {
		return err
	}
	f, err := m.Function("sweep_axpb")
	if err != nil {
		return err
	}
	if _, err := f.Attributes(); err != nil {
		return err
	}
	if err := f.SetMaxDynamicSharedMemory(64 << 10); err != nil {
		return err
	}
	if _, _, err := f.MaxPotentialBlockSize(0, 0); err != nil {
		return err
	}
	if _, err := f.MaxActiveBlocksPerMultiprocessor(64, 0); err != nil {
		return err
	}
	cfg := module.Config{Grid: module.Dim(4), Block: module.Dim(64), Cluster: module.Dim(2)}
	if _, err := f.MaxActiveClusters(cfg); err != nil {
		return err
	}
	buf, err := memory.Alloc[float32](ctx, n)
	if err != nil {
		return err
	}
	e.keep("buffer", buf)
	in := ascending[float32](n)
	if err := memory.CopyToDeviceAsync(s, buf, in); err != nil {
		return err
	}
	if err := f.Launch(s, cfg, buf, float32(2), float32(1), int32(n)); err != nil {
		return err
	}
	out := make([]float32, n)
	if err := memory.CopyToHostAsync(s, out, buf); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	want := make([]float32, n)
	for i := range want {
		want[i] = 2*in[i] + 1
	}
	if err := wrong("cluster launch", out, want); err != nil {
		return err
	}
	t, err := module.Compile(ctx, templateSource, module.Options{Name: "template.cu", NoCache: true, NameExpressions: []string{"sweep_fill<float>"}})
	if err != nil {
		return err
	}
	e.keep("template module", t)
	if lowered, ok := t.LoweredName("sweep_fill<float>"); !ok || lowered == "" {
		return fmt.Errorf("%w: no lowered name for sweep_fill<float>", errWrongResult)
	}
	return nil
}

// seqIPCOpen: memory and an event of another process (a second fake
// backend, never faulted) opened in this one, waited for and read.
func seqIPCOpen(e *env) error {
	pdev, err := e.peer().Device(0)
	if err != nil {
		return fmt.Errorf("peer: %w", err)
	}
	pctx, err := pdev.PrimaryContext()
	if err != nil {
		return fmt.Errorf("peer: %w", err)
	}
	e.keep("peer primary context", pctx)
	ps, err := stream.New(pctx, stream.Options{})
	if err != nil {
		return fmt.Errorf("peer: %w", err)
	}
	e.keep("peer stream", ps)
	pbuf, err := memory.Alloc[float64](pctx, n)
	if err != nil {
		return fmt.Errorf("peer: %w", err)
	}
	e.keep("peer buffer", pbuf)
	in := ascending[float64](n)
	if err := memory.CopyToDeviceAsync(ps, pbuf, in); err != nil {
		return fmt.Errorf("peer: %w", err)
	}
	pev, err := stream.NewEvent(pctx, stream.EventOptions{Flags: stream.DisableTiming | stream.Interprocess})
	if err != nil {
		return fmt.Errorf("peer: %w", err)
	}
	e.keep("peer event", pev)
	if err := pev.Record(ps); err != nil {
		return fmt.Errorf("peer: %w", err)
	}
	hm, err := pbuf.IPCHandle()
	if err != nil {
		return fmt.Errorf("peer: %w", err)
	}
	he, err := pev.IPCHandle()
	if err != nil {
		return fmt.Errorf("peer: %w", err)
	}

	ctx, err := e.primary()
	if err != nil {
		return err
	}
	ev, err := stream.OpenIPCEvent(ctx, he)
	if err != nil {
		return err
	}
	e.keep("opened event", ev)
	if err := ev.Synchronize(); err != nil {
		return err
	}
	b, err := memory.OpenIPC[float64](ctx, hm, n)
	if err != nil {
		return err
	}
	e.keep("opened memory", b)
	out := make([]float64, n)
	if err := memory.CopyToHost(out, b); err != nil {
		return err
	}
	if err := wrong("memory opened by IPC", out, in); err != nil {
		return err
	}
	return ps.Synchronize()
}

// seqNCCL: two communicators of one process (one per device), an
// all-reduce in a group and a broadcast, each on its rank's stream.
func seqNCCL(e *env) error {
	drv, err := e.driver()
	if err != nil {
		return err
	}
	var ctxs []*driver.Context
	for i := range 2 {
		dev, err := drv.Device(i)
		if err != nil {
			return err
		}
		ctx, err := e.primaryOf(dev)
		if err != nil {
			return err
		}
		ctxs = append(ctxs, ctx)
	}
	comms, err := nccl.NewComms(ctxs)
	if err != nil {
		return err
	}
	for _, c := range comms {
		e.keep(c.String(), c)
	}
	type rank struct {
		s          *stream.Stream
		send, recv *memory.Buffer[float32]
	}
	ranks := make([]rank, 2)
	for i, ctx := range ctxs {
		s, err := stream.New(ctx, stream.Options{})
		if err != nil {
			return err
		}
		e.keep(fmt.Sprintf("stream of rank %d", i), s)
		send, err := memory.Alloc[float32](ctx, n)
		if err != nil {
			return err
		}
		e.keep(fmt.Sprintf("send buffer of rank %d", i), send)
		recv, err := memory.Alloc[float32](ctx, n)
		if err != nil {
			return err
		}
		e.keep(fmt.Sprintf("receive buffer of rank %d", i), recv)
		if err := memory.Fill(s, send, float32(i+1)); err != nil {
			return err
		}
		ranks[i] = rank{s, send, recv}
	}
	err = nccl.Group(func() error {
		for i, r := range ranks {
			if err := nccl.AllReduce(comms[i], r.s, r.send, r.recv, nccl.Sum); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, r := range ranks {
		if err := r.s.Synchronize(); err != nil {
			return err
		}
		out := make([]float32, n)
		if err := memory.CopyToHost(out, r.recv); err != nil {
			return err
		}
		if err := wrong(fmt.Sprintf("all-reduce on rank %d", i), out, slices.Repeat([]float32{3}, n)); err != nil {
			return err
		}
	}
	return nil
}

// seqNCCLRanks: NCCL's version, a unique id, two communicators made rank
// by rank (NewComm) in one Group, their split, a broadcast, a reduce, an
// all-gather and a reduce-scatter in a Group, a Send and Recv pair, the
// communicators' asynchronous state, and an abort.
func seqNCCLRanks(e *env) error {
	drv, err := e.driver()
	if err != nil {
		return err
	}
	var ctxs []*driver.Context
	for i := range 2 {
		dev, err := drv.Device(i)
		if err != nil {
			return err
		}
		ctx, err := e.primaryOf(dev)
		if err != nil {
			return err
		}
		ctxs = append(ctxs, ctx)
	}
	if major, _, _, err := nccl.Version(ctxs[0]); err != nil {
		return err
	} else if major != 2 {
		return fmt.Errorf("%w: NCCL major version %d", errWrongResult, major)
	}
	id, err := nccl.NewUniqueID(ctxs[0])
	if err != nil {
		return err
	}
	comms := make([]*nccl.Comm, 2)
	err = nccl.Group(func() error {
		for i, ctx := range ctxs {
			c, err := nccl.NewComm(ctx, 2, id, i, nil)
			if err != nil {
				return err
			}
			e.keep(fmt.Sprintf("communicator of rank %d", i), c)
			comms[i] = c
		}
		return nil
	})
	if err != nil {
		return err
	}
	split := make([]*nccl.Comm, 2)
	err = nccl.Group(func() error {
		for i, c := range comms {
			s, err := c.Split(0, 1-i, nil) // the ranks swapped
			if err != nil {
				return err
			}
			e.keep(fmt.Sprintf("split communicator of rank %d", i), s)
			split[i] = s
		}
		return nil
	})
	if err != nil {
		return err
	}
	if r := split[0].Rank(); r != 1 {
		return fmt.Errorf("%w: split rank %d, want 1", errWrongResult, r)
	}
	type rank struct {
		s                  *stream.Stream
		one, two, out, all *memory.Buffer[float32]
	}
	ranks := make([]rank, 2)
	for i, ctx := range ctxs {
		s, err := stream.New(ctx, stream.Options{})
		if err != nil {
			return err
		}
		e.keep(fmt.Sprintf("stream of rank %d", i), s)
		r := rank{s: s}
		for _, b := range []struct {
			p    **memory.Buffer[float32]
			len  int
			what string
		}{{&r.one, n, "one"}, {&r.two, n, "two"}, {&r.out, n, "out"}, {&r.all, 2 * n, "all"}} {
			buf, err := memory.Alloc[float32](ctx, b.len)
			if err != nil {
				return err
			}
			e.keep(fmt.Sprintf("%s buffer of rank %d", b.what, i), buf)
			*b.p = buf
		}
		if err := memory.Fill(s, r.one, float32(i+1)); err != nil {
			return err
		}
		ranks[i] = r
	}
	err = nccl.Group(func() error {
		for i, r := range ranks {
			c := comms[i]
			if err := nccl.Broadcast(c, r.s, r.one, r.two, 1); err != nil { // two = 2
				return err
			}
			if err := nccl.Reduce(c, r.s, r.one, r.out, nccl.Max, 0); err != nil { // out on rank 0 = 2
				return err
			}
			if err := nccl.AllGather(c, r.s, r.one, r.all); err != nil { // all = 1..., 2...
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = nccl.Group(func() error {
		for i, r := range ranks {
			if err := nccl.ReduceScatter(split[i], r.s, r.all, r.one, nccl.Sum); err != nil { // one = 2 (split rank 0 gets the 1s ×2)
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = nccl.Group(func() error {
		if err := nccl.Send(comms[0], ranks[0].s, ranks[0].two, 1); err != nil {
			return err
		}
		return nccl.Recv(comms[1], ranks[1].s, ranks[1].out, 0) // out on rank 1 = 2
	})
	if err != nil {
		return err
	}
	for i, r := range ranks {
		if err := r.s.Synchronize(); err != nil {
			return err
		}
		if err := comms[i].AsyncError(); err != nil {
			return err
		}
		out := make([]float32, n)
		if err := memory.CopyToHost(out, r.out); err != nil {
			return err
		}
		if err := wrong(fmt.Sprintf("reduce and receive on rank %d", i), out, slices.Repeat([]float32{2}, n)); err != nil {
			return err
		}
	}
	return split[1].Abort()
}
