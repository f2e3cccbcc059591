package graph

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
)

// Per-node updates of an Exec: cheaper than Update with a whole graph when
// a few nodes change. The node is named by the Node of the graph the Exec
// was instantiated from (still open), and must be of the same kind; the new
// parameters apply from the next Launch on (launches made before keep the
// old ones) and do not change the graph. The Exec retains what the new
// parameters refer to (see Retention) until its Close, and keeps what the
// old ones did as well. As Update, they must not run while a Launch of the
// same Exec is being made.

// nodeOf checks x and n for a per-node update and holds x and n's graph
// open for it (until the returned func runs).
func (x *Exec) nodeOf(n Node) (backend.GraphNodes, func(), error) {
	if err := x.check(); err != nil {
		return nil, nil, err
	}
	if n.g == nil || n.h == 0 || (n.g != x.src && n.g.body != x.src) {
		return nil, nil, fmt.Errorf("%s: the node is not of the graph the exec was made from: %w", x, errInvalid)
	}
	api, err := n.g.nodes()
	if err != nil {
		return nil, nil, err
	}
	if err := n.g.use(); err != nil {
		return nil, nil, fmt.Errorf("%s: the node's graph: %w", x, err)
	}
	return api, n.g.hold.Unuse, nil
}

// retainFor makes x retain hs for an update, returning what undoes it when
// the update fails.
func (x *Exec) retainFor(hs []*core.Hold) (func(), error) {
	x.mu.Lock()
	k := x.keep
	x.mu.Unlock()
	taken, err := k.retain(x, hs...)
	if err != nil {
		return nil, err
	}
	return func() { k.drop(taken) }, nil
}

// update runs call with x's context bound, retaining hs for it.
func (x *Exec) update(op, what string, n Node, hs []*core.Hold, call func(api backend.GraphNodes) error) error {
	api, done, err := x.nodeOf(n)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer done()
	undo, err := x.retainFor(hs)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", op, x, err)
	}
	if err := x.hold.Do(func(backend.API) error { return call(api) }); err != nil {
		undo()
		return fmt.Errorf("%s: %s: %s: %w", op, x, what, err)
	}
	return nil
}

// SetKernel makes the kernel node n run f with cfg and args from the next
// launch on (cuGraphExecKernelNodeSetParams), checked as AddKernel checks
// a node. f must be of the Exec's context.
func (x *Exec) SetKernel(n Node, f *module.Function, cfg module.Config, args *module.Args) error {
	const op = "graph.Exec.SetKernel"
	if err := x.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if m := f.Module(); m != nil && !m.Context().Same(x.ctx) {
		return fmt.Errorf("%s: %s belongs to %s, the exec to %s: %w", op, f, m.Context(), x.ctx, errWrongContext)
	}
	p, mh, err := core.KernelNode(f, cfg, args)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	err = x.update(op, "cuGraphExecKernelNodeSetParams", n, []*core.Hold{mh}, func(api backend.GraphNodes) error {
		return api.GraphExecKernelNodeSetParams(x.h, n.h, &p)
	})
	runtime.KeepAlive(args)
	return err
}

// SetCopy makes the copy node n copy src to dst, device to device, from
// the next launch on (cuGraphExecMemcpyNodeSetParams); both of the Exec's
// context and of the same length.
func SetCopy[T any](x *Exec, n Node, dst, src *memory.Buffer[T]) error {
	const op = "graph.SetCopy"
	if err := x.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := buffersOf(x.ctx, dst, src); err != nil {
		return fmt.Errorf("%s: %s: %w", op, x, err)
	}
	p := backend.MemcpyNodeParams{Dst: dst.Ptr(), Src: src.Ptr(), Size: uintptr(dst.Size())}
	return x.update(op, "cuGraphExecMemcpyNodeSetParams", n, holdsOf(dst, src), func(api backend.GraphNodes) error {
		return api.GraphExecMemcpyNodeSetParams(x.h, n.h, &p, x.ctx.Handle())
	})
}

// SetFill makes the memset node n set every element of b to value from the
// next launch on (cuGraphExecMemsetNodeSetParams); T must be 1, 2 or 4
// bytes long, and b of the Exec's context.
func SetFill[T any](x *Exec, n Node, b *memory.Buffer[T], value T) error {
	const op = "graph.SetFill"
	if err := x.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := buffersOf(x.ctx, b); err != nil {
		return fmt.Errorf("%s: %s: %w", op, x, err)
	}
	p, err := memsetOf(b, value)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", op, x, err)
	}
	return x.update(op, "cuGraphExecMemsetNodeSetParams", n, holdsOf(b), func(api backend.GraphNodes) error {
		return api.GraphExecMemsetNodeSetParams(x.h, n.h, &p, x.ctx.Handle())
	})
}

// SetHost makes the host node n run fn from the next launch on
// (cuGraphExecHostNodeSetParams); fn is run as AddHost says.
func (x *Exec) SetHost(n Node, fn func()) error {
	const op = "graph.Exec.SetHost"
	if err := x.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if fn == nil {
		return fmt.Errorf("%s: %s: nil func: %w", op, x, errInvalid)
	}
	run := x.src.box.runner(fn)
	return x.update(op, "cuGraphExecHostNodeSetParams", n, nil, func(api backend.GraphNodes) error {
		return api.GraphExecHostNodeSetParams(x.h, n.h, run)
	})
}

// memsetOf returns the memset node parameters setting every element of b
// to value.
func memsetOf[T any](b *memory.Buffer[T], value T) (backend.MemsetNodeParams, error) {
	size := unsafe.Sizeof(value)
	var v uint32
	switch size {
	case 1:
		v = uint32(*(*uint8)(unsafe.Pointer(&value)))
	case 2:
		v = uint32(*(*uint16)(unsafe.Pointer(&value)))
	case 4:
		v = *(*uint32)(unsafe.Pointer(&value))
	default:
		return backend.MemsetNodeParams{}, fmt.Errorf("elements of %d bytes (memset nodes set 1, 2 or 4): %w", size, errInvalid)
	}
	return backend.MemsetNodeParams{Dst: b.Ptr(), Value: v, ElementSize: uint32(size), Width: uintptr(b.Len()), Height: 1}, nil
}
