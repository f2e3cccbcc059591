package faultsweep

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// seqGraphNodes: the graph node kinds beyond seqGraphs' (issue 23): a host
// node after a kernel, an allocation node's memory written by a kernel and
// freed, an if node with its body, per-node updates of the Exec (kernel,
// memset, copy, host), the DOT dump and a Retain function; launched twice,
// the results checked.
func seqGraphNodes(e *env) error {
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
	other, err := memory.Alloc[float32](ctx, n)
	if err != nil {
		return err
	}
	e.keep("other buffer", other)
	if err := memory.CopyToDevice(buf, make([]float32, n)); err != nil {
		return err
	}
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

	g, err := graph.New(ctx)
	if err != nil {
		return err
	}
	e.keep("graph", g)
	args, err := f.Args(buf, float32(1), float32(1), int32(n)) // buf += 1
	if err != nil {
		return err
	}
	k, err := g.AddKernel(f, cfg, args)
	if err != nil {
		return err
	}
	var hosts atomic.Int32
	h, err := g.AddHost(func() { hosts.Add(1) }, k)
	if err != nil {
		return err
	}
	a, err := g.AddAlloc(4*n, h)
	if err != nil {
		return err
	}
	aargs, err := f.Args(a.Ptr(), float32(0), float32(3), int32(n)) // the graph's memory = 3
	if err != nil {
		return err
	}
	ak, err := g.AddKernel(f, cfg, aargs, a.Node())
	if err != nil {
		return err
	}
	if _, err := g.AddFree(a, ak); err != nil {
		return err
	}
	cond, err := g.NewCondition(1, true)
	if err != nil {
		return err
	}
	ifNode, body, err := g.AddIf(cond, h)
	if err != nil {
		return err
	}
	if _, err := graph.AddFill(body, other, float32(4)); err != nil {
		return err
	}
	cp, err := graph.AddCopy(g, other, other, ifNode)
	if err != nil {
		return err
	}
	top, err := graph.AddFill(g, buf, float32(8), cp) // buf = 8 (SetFill moves it)
	if err != nil {
		return err
	}
	if err := g.SetHost(h, func() { hosts.Add(1) }); err != nil {
		return err
	}
	var dot bytes.Buffer
	if err := g.DOT(&dot, true); err != nil {
		return err
	}
	if !strings.HasPrefix(dot.String(), "digraph") {
		return fmt.Errorf("%w: DOT dump %q", errWrongResult, dot.String())
	}
	if err := g.Retain(func() {}); err != nil {
		return err
	}

	x, err := g.Instantiate()
	if err != nil {
		return err
	}
	e.keep("exec", x)
	if err := x.Launch(s); err != nil {
		return err
	}
	var updated atomic.Int32
	oargs, err := f.Args(buf, float32(1), float32(2), int32(n)) // buf += 2
	if err != nil {
		return err
	}
	if err := x.SetKernel(k, f, cfg, oargs); err != nil {
		return err
	}
	if err := x.SetHost(h, func() { updated.Add(1) }); err != nil {
		return err
	}
	if err := graph.SetCopy(x, cp, buf, other); err != nil { // buf = other, after the body
		return err
	}
	if err := graph.SetFill(x, top, other, float32(5)); err != nil { // other = 5, after the copy
		return err
	}
	if err := x.Launch(s); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	if hosts.Load() != 1 || updated.Load() != 1 {
		return fmt.Errorf("%w: host nodes ran %d and %d times, want 1 and 1", errWrongResult, hosts.Load(), updated.Load())
	}
	for _, c := range []struct {
		what string
		b    *memory.Buffer[float32]
		want float32
	}{{"buffer", buf, 4}, {"other buffer", other, 5}} {
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
