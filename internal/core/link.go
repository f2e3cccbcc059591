package core

import (
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
)

// The public packages hand each other their objects' core state without
// showing it in their exported API, and without hooks installed at init:
// each public type embeds a link under an unexported name,
//
//	type contextLink = core.ContextLink
//	type Context struct {
//		contextLink
//		...
//	}
//
// and the packages above read the state with ContextOf (QueueOf,
// KernelNodeOf, NVRTCOf). A link has no exported field or method, so users
// see nothing of it; its one unexported method is promoted to the public
// type, which is how ContextOf accepts exactly the types that embed a
// ContextLink, checked by the compiler. The state is read directly (one
// field load), nil-safe: a nil pointer or a zero value yields nil.

// ContextLink ties a public context type (*driver.Context) to its state.
type ContextLink struct{ c *Context }

// LinkContext returns the link to embed in a public context value.
func LinkContext(c *Context) ContextLink { return ContextLink{c} }

func (l *ContextLink) linkedContext() *Context { return l.c }

// contextLinked is a pointer to a public type that embeds a ContextLink.
type contextLinked[T any] interface {
	*T
	linkedContext() *Context
}

// ContextOf returns the state of a *driver.Context, or nil for a nil or
// zero one.
func ContextOf[P contextLinked[T], T any](ctx P) *Context {
	if ctx == nil {
		return nil
	}
	return ctx.linkedContext()
}

// Of returns the state of a *driver.Context, or op's error wrapping
// ErrInvalidValue for a nil or zero one.
func Of[P contextLinked[T], T any](op string, ctx P) (*Context, error) {
	c := ContextOf(ctx)
	if c == nil {
		return nil, fmt.Errorf("%s: nil context: %w", op, ErrInvalidInput)
	}
	return c, nil
}

// QueueLink ties a public stream type (*stream.Stream) to its Queue.
type QueueLink struct{ q *Queue }

// LinkQueue returns the link to embed in a public stream value.
func LinkQueue(q *Queue) QueueLink { return QueueLink{q} }

func (l *QueueLink) linkedQueue() *Queue { return l.q }

type queueLinked[T any] interface {
	*T
	linkedQueue() *Queue
}

// QueueOf returns the Queue of a *stream.Stream, or nil for a nil or zero
// one.
func QueueOf[P queueLinked[T], T any](s P) *Queue {
	if s == nil {
		return nil
	}
	return s.linkedQueue()
}

// KernelNodeLink ties a public kernel type (*module.Function) to what turns
// a launch of it, with a configuration of type C and arguments of type A,
// into the parameters of a graph kernel node, for package graph, and to the
// Hold of the kernel's module, which the graph retains (see Hold.Retain).
type KernelNodeLink[C, A any] struct {
	node func(C, A) (backend.KernelNodeParams, *Hold, error)
}

// LinkKernelNode returns the link to embed in a public kernel value: node
// checks a launch as a Launch would and returns the node's parameters and
// the hold of the kernel's module.
func LinkKernelNode[C, A any](node func(C, A) (backend.KernelNodeParams, *Hold, error)) KernelNodeLink[C, A] {
	return KernelNodeLink[C, A]{node}
}

func (l *KernelNodeLink[C, A]) linkedKernelNode() func(C, A) (backend.KernelNodeParams, *Hold, error) {
	return l.node
}

type kernelNodeLinked[T, C, A any] interface {
	*T
	linkedKernelNode() func(C, A) (backend.KernelNodeParams, *Hold, error)
}

// errNoKernel is KernelNode's error for a nil or zero kernel.
var errNoKernel = fmt.Errorf("nil function: %w", ErrInvalidInput)

// KernelNode returns the graph kernel node parameters of a launch of f with
// cfg and args and the hold of f's module, or an error wrapping
// ErrInvalidValue for a nil or zero f.
func KernelNode[P kernelNodeLinked[T, C, A], T, C, A any](f P, cfg C, args A) (backend.KernelNodeParams, *Hold, error) {
	if f == nil || f.linkedKernelNode() == nil {
		return backend.KernelNodeParams{}, nil, errNoKernel
	}
	return f.linkedKernelNode()(cfg, args)
}

// NVRTCLink ties a public compiler type (*driver.NVRTC) to the backend's
// compiler. The public type is made by NewNVRTC, in another package than
// its own (package gpu makes *driver.NVRTC values).
type NVRTCLink struct{ nv backend.NVRTC }

func (l *NVRTCLink) linkedNVRTC() backend.NVRTC { return l.nv }

func (l *NVRTCLink) linkNVRTC(nv backend.NVRTC) { l.nv = nv }

type nvrtcLinked[T any] interface {
	*T
	linkedNVRTC() backend.NVRTC
	linkNVRTC(backend.NVRTC)
}

// NewNVRTC returns a new public compiler value (a *driver.NVRTC) linked to
// nv, for the package that opens NVIDIA's compiler (gpu.LoadNVRTC), which
// cannot set the value's unexported link itself.
func NewNVRTC[P nvrtcLinked[T], T any](nv backend.NVRTC) P {
	p := P(new(T))
	p.linkNVRTC(nv)
	return p
}

// NVRTCOf returns the backend compiler of a *driver.NVRTC, or nil for a nil
// or zero one.
func NVRTCOf[P nvrtcLinked[T], T any](nv P) backend.NVRTC {
	if nv == nil {
		return nil
	}
	return nv.linkedNVRTC()
}

// Queue is what the packages that enqueue work (memory, module) need of a
// stream: its hold on its context and its handle.
type Queue struct {
	Hold    *Hold
	Handle  uintptr
	Special bool         // 0x0, 0x1, 0x2: the driver resolves it through the current context
	What    fmt.Stringer // the stream, for errors
}

// Use prepares a call that enqueues work on the stream: it holds the stream
// for the call (see Hold.Use), returns an error
// wrapping ErrClosed after the stream's Close, and, for the special streams
// only, binds the stream's context on the calling OS thread, since the
// driver resolves 0x0, 0x1 and 0x2 through the current context. For every
// other stream it binds nothing. The caller must Unbind the result. From
// inside a host callback it fails with an error wrapping ErrInCallback.
func (q *Queue) Use() (Binding, error) {
	if q.Special {
		return q.Hold.Bind()
	}
	if callbacks.running.Load() != 0 && inCallbackSlow() {
		return Binding{}, fmt.Errorf("%s: %w", q.What, ErrInCallback)
	}
	if !q.Hold.use() {
		return Binding{}, q.closedErr()
	}
	return Binding{h: q.Hold}, nil
}

func (q *Queue) closedErr() error { return fmt.Errorf("%s: %w", q.What, ErrClosed) }

// HoldLink ties a public memory type (*memory.Buffer) to the Hold of the
// memory it uses, so that a package above (nccl) holds that memory open
// for a call that passes it to the driver (see Hold.Use).
type HoldLink struct{ h *Hold }

// LinkHold returns the link to embed in a public memory value.
func LinkHold(h *Hold) HoldLink { return HoldLink{h} }

func (l *HoldLink) linkedHold() *Hold { return l.h }

type holdLinked[T any] interface {
	*T
	linkedHold() *Hold
}

// LinkedHold returns the Hold that l ties to, or nil for a nil l. It is
// HoldOf for a caller that has the link itself, with no generic call
// (which the compiler's escape analysis cannot see through).
func LinkedHold(l *HoldLink) *Hold {
	if l == nil {
		return nil
	}
	return l.h
}

// HoldOf returns the Hold of the memory of a *memory.Buffer, or nil for a
// nil or zero one.
func HoldOf[P holdLinked[T], T any](b P) *Hold {
	if b == nil {
		return nil
	}
	return b.linkedHold()
}
