package graph

import (
	"fmt"
	"sync"

	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/memory"
)

// Retention. A graph retains what its nodes refer to: the memory of the
// buffers of copy and fill nodes (AddCopy, AddCopyToDevice, AddCopyToHost,
// AddFill), the module of a kernel node (AddKernel), what a child graph
// retains (AddChild), and buffers handed to it with KeepBuffer (those a
// kernel node's arguments point to: the arguments are addresses, which the
// graph cannot see). A graph made by capture (Capture, BeginCapture and
// EndCapture) retains the same of the work captured: the buffers of the
// stream-ordered copies and fills of package memory (CopyToDeviceAsync,
// CopyToHostAsync, CopyDtoDAsync, Fill, the pitched copies), the module of
// each kernel launched, and the buffers given to module.Function.Launch as
// arguments (for LaunchArgs and the typed kernels, whose arguments are
// addresses already, KeepBuffer them). Work captured through foreign code,
// or in a capture begun outside this package, is not seen, and retains
// nothing. A clone of the graph and every Exec made from it
// retain the same, until their own Close. While anything retains a buffer
// or a module, its Close fails with an error wrapping ErrRetained and
// changes nothing (retry it after closing the graphs and Execs): a launch
// of an Exec never reaches freed memory or an unloaded module through an
// object of this library. As for work queued on a stream, work an Exec
// launched must be done (synchronize) before the buffers it uses are
// closed: Exec.Close does not wait for its launches in flight.
//
// Go values a graph's work needs (a host node's function, anything a
// Retain function captures) are kept by the driver through CUDA user
// objects, until the last graph or Exec that refers to them is gone and
// its work is done.

// ErrRetained is wrapped by the error of memory.Buffer.Close and
// module.Module.Close while an open Graph or Exec retains the buffer's
// memory or the module.
var ErrRetained = core.ErrRetained

// keep is what a graph or Exec retains: object holds, each once per
// reference the nodes make, and the panic boxes of the host nodes of the
// graphs it copies.
type keep struct {
	mu       sync.Mutex
	holds    []*core.Hold
	boxes    []*hostBox
	released bool
}

// holdsOf returns the memory holds of buffers.
func holdsOf[T any](bufs ...*memory.Buffer[T]) []*core.Hold {
	hs := make([]*core.Hold, 0, len(bufs))
	for _, b := range bufs {
		if h := core.HoldOf(b); h != nil {
			hs = append(hs, h)
		}
	}
	return hs
}

// retain retains the objects of hs for k's owner (what names it): all of
// them, or none and an error wrapping driver.ErrClosed for one closed
// meanwhile. It returns what it took, for drop.
func (k *keep) retain(what fmt.Stringer, hs ...*core.Hold) ([]*core.Hold, error) {
	for i, h := range hs {
		if err := h.Retain(what); err != nil {
			for _, t := range hs[:i] {
				t.Release()
			}
			return nil, fmt.Errorf("an object the node refers to: %w", err)
		}
	}
	k.mu.Lock()
	k.holds = append(k.holds, hs...)
	k.mu.Unlock()
	return hs, nil
}

// drop lets go of holds that retain took, for a node that was not added.
func (k *keep) drop(taken []*core.Hold) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, t := range taken {
		for i := len(k.holds) - 1; i >= 0; i-- {
			if k.holds[i] == t {
				k.holds = append(k.holds[:i], k.holds[i+1:]...)
				t.Release()
				break
			}
		}
	}
}

// copyFrom makes k retain what o retains (for a clone, a child node, an
// Exec).
func (k *keep) copyFrom(o *keep) error {
	o.mu.Lock()
	hs := append([]*core.Hold(nil), o.holds...)
	boxes := append([]*hostBox(nil), o.boxes...)
	o.mu.Unlock()
	if _, err := k.retain(stringer("graph copy"), hs...); err != nil {
		return err
	}
	k.mu.Lock()
	k.boxes = append(k.boxes, boxes...)
	k.mu.Unlock()
	return nil
}

// releaseOnce lets go of everything k retains; later calls do nothing.
func (k *keep) releaseOnce() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.released {
		return
	}
	k.released = true
	for _, h := range k.holds {
		h.Release()
	}
	k.holds = nil
}

type stringer string

func (s stringer) String() string { return string(s) }

// KeepBuffer makes g retain the memory of b (see Retention in the package
// documentation) as if a node of g referred to it: for the buffers that a
// kernel node's arguments point to. b must be of g's context. Each call
// counts once; the graph lets go at its Close.
func KeepBuffer[T any](g *Graph, b *memory.Buffer[T]) error {
	const op = "graph.KeepBuffer"
	if err := g.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if b == nil || b.Closed() {
		return fmt.Errorf("%s: %s: nil or freed buffer: %w", op, g, errInvalid)
	}
	if !b.Context().Same(g.ctx) {
		return fmt.Errorf("%s: %s: %s belongs to %s: %w", op, g, b, b.Context(), errWrongContext)
	}
	if _, err := g.keep.retain(g, holdsOf(b)...); err != nil {
		return fmt.Errorf("%s: %s: %w", op, g, err)
	}
	return nil
}
