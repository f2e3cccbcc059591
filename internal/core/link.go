package core

import "fmt"

// The public packages hand each other their objects' core state through
// these functions, which each installs in its init, so that the state never
// appears in their exported API. A package that holds a *driver.Context or a
// *stream.Stream imports driver or stream, so the function is installed
// before it can be called.
var (
	// ContextOf returns the state of a *driver.Context, or nil for a nil or
	// zero one. Package driver installs it.
	ContextOf func(ctx any) *Context

	// QueueOf returns the state of a *stream.Stream, or nil for a nil or zero
	// one. Package stream installs it.
	QueueOf func(s any) *Queue
)

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
