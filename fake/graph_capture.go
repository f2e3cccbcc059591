package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/core"
)

// Stream capture, as the CUDA programming guide ("Stream Capture") and the
// driver API reference describe it:
//
//   - cuStreamBeginCapture puts a stream in capture mode: work enqueued on it
//     is recorded as nodes of a graph instead of running (enqueue calls
//     captureLocked); each node depends on the stream's previous node(s).
//     The NULL and legacy streams cannot capture (STREAM_CAPTURE_UNSUPPORTED);
//     a stream already capturing cannot begin again (ILLEGAL_STATE).
//   - Fork and join go through events: an event recorded in a capturing
//     stream stands for the stream's current nodes; another stream that
//     waits on it joins the capture, and its work depends on those nodes.
//     The origin stream joins the others back the same way.
//   - cuStreamEndCapture must be called on the origin stream (UNMATCHED
//     otherwise), from the thread that began the capture unless its mode is
//     relaxed (WRONG_THREAD otherwise), and
//     every node without successors must be joined into the origin's
//     current nodes (UNJOINED otherwise). It takes all streams of the
//     capture out of capture mode.
//   - It is invalid to synchronize or query a capturing stream, an event
//     last recorded in a capture (CAPTURED_EVENT), or the context of one ("a broader handle which encompasses an active stream
//     capture"): the call fails with STREAM_CAPTURE_UNSUPPORTED and
//     invalidates the capture. Work enqueued on a stream of an invalidated
//     capture fails with STREAM_CAPTURE_INVALIDATED, and cuStreamEndCapture
//     ends the capture with that error and no graph.

type capture struct {
	id      uint64
	mode    backend.CaptureMode
	tid     int64 // the thread that began it
	origin  *stream
	g       *fgraph
	leaves  map[*stream][]*gnode // each stream's current nodes
	invalid bool
}

// captureRecord is an event recorded in a capture: the recording stream's
// nodes at the record.
type captureRecord struct {
	c     *capture
	nodes []*gnode
}

// StreamBeginCapture is cuStreamBeginCapture_v2.
func (b *fakeBackend) StreamBeginCapture(h uintptr, mode backend.CaptureMode) error {
	if err := b.enter(abi.CuStreamBeginCapture); err != nil {
		return err
	}
	if mode > backend.CaptureModeRelaxed {
		return driver.ErrInvalidValue
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	s, err := b.streamLocked(h, tidFor(h))
	if err != nil {
		return err
	}
	if s.kind == nullStream {
		return backend.ErrStreamCaptureUnsupported
	}
	b.graphs.init()
	if b.graphs.captures[s] != nil {
		return driver.ErrIllegalState
	}
	b.graphs.lastID++
	c := &capture{id: b.graphs.lastID, mode: mode, tid: tid, origin: s, leaves: map[*stream][]*gnode{s: nil}}
	c.g = &fgraph{h: newHandle()}
	b.graphs.captures[s] = c
	return nil
}

// StreamEndCapture is cuStreamEndCapture.
func (b *fakeBackend) StreamEndCapture(h uintptr) (uintptr, error) {
	if err := b.enter(abi.CuStreamEndCapture); err != nil {
		return 0, err
	}
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	s, err := b.streamLocked(h, tidFor(h))
	if err != nil {
		return 0, err
	}
	c := b.graphs.captures[s]
	if c == nil {
		return 0, driver.ErrIllegalState
	}
	if c.origin != s {
		return 0, backend.ErrStreamCaptureUnmatched
	}
	if c.mode != backend.CaptureModeRelaxed && c.tid != tid {
		return 0, backend.ErrStreamCaptureWrongThread
	}
	b.endCaptureLocked(c)
	if c.invalid {
		return 0, backend.ErrStreamCaptureInvalidated
	}
	joined := map[*gnode]bool{}
	for _, n := range c.leaves[s] {
		joined[n] = true
	}
	hasSucc := map[*gnode]bool{}
	for _, n := range c.g.nodes {
		for _, d := range n.deps {
			hasSucc[d] = true
		}
	}
	for _, n := range c.g.nodes {
		if !hasSucc[n] && !joined[n] {
			return 0, backend.ErrStreamCaptureUnjoined
		}
	}
	b.graphs.graphs[c.g.h] = c.g
	for _, n := range c.g.nodes {
		b.graphs.nodes[n.h] = n
		b.graphs.owner[n] = c.g
	}
	return c.g.h, nil
}

// endCaptureLocked takes every stream of c out of capture mode.
func (b *fakeBackend) endCaptureLocked(c *capture) {
	for s := range c.leaves {
		if b.graphs.captures[s] == c {
			delete(b.graphs.captures, s)
		}
	}
	for e, r := range b.graphs.records {
		if r.c == c {
			delete(b.graphs.records, e)
		}
	}
}

// captureStreamGoneLocked ends the part the destroyed stream s had in a
// capture: the origin's destruction ends the capture (every stream of it
// leaves capture mode, and nothing is recorded any more: no graph can come
// of it); a joined stream's leaves the capture, invalidated. Either way
// the context takes legacy-stream work again once no blocking stream
// captures.
func (b *fakeBackend) captureStreamGoneLocked(s *stream) {
	c := b.graphs.captures[s]
	if c == nil {
		return
	}
	if c.origin == s {
		b.endCaptureLocked(c)
		return
	}
	delete(b.graphs.captures, s)
	delete(c.leaves, s)
	c.invalid = true
}

// StreamGetCaptureInfo is cuStreamGetCaptureInfo.
func (b *fakeBackend) StreamGetCaptureInfo(h uintptr) (backend.CaptureStatus, uint64, error) {
	if err := b.enter(abi.CuStreamGetCaptureInfo); err != nil {
		return 0, 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	s, err := b.streamLocked(h, tidFor(h))
	if err != nil {
		return 0, 0, err
	}
	c := b.graphs.captures[s]
	switch {
	case c == nil:
		return backend.CaptureStatusNone, 0, nil
	case c.invalid:
		return backend.CaptureStatusInvalidated, c.id, nil
	}
	return backend.CaptureStatusActive, c.id, nil
}

// captureLocked records it, enqueued on the capturing stream s, as a node
// of c's graph after the stream's current nodes.
func (b *fakeBackend) captureLocked(c *capture, s *stream, it *item) error {
	if c.invalid {
		return backend.ErrStreamCaptureInvalidated
	}
	n := &gnode{h: newHandle(), kind: nodeKernel, run: loadedOnly(it.fn, it.run), host: it.host, deps: c.leaves[s]}
	if it.host != nil {
		n.kind = nodeHost
	}
	c.g.nodes = append(c.g.nodes, n)
	c.leaves[s] = []*gnode{n}
	return nil
}

// captureRefuseLocked invalidates the capture of s, if any, for a call not
// permitted on a capturing stream, and returns the error for it.
func (b *fakeBackend) captureRefuseLocked(s *stream) error {
	c := b.graphs.captures[s]
	if c == nil {
		return nil
	}
	c.invalid = true
	return backend.ErrStreamCaptureUnsupported
}

// captureRefuse is captureRefuseLocked taking the table lock.
func (b *fakeBackend) captureRefuse(s *stream) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.captureRefuseLocked(s)
}

// captureRefuseContext refuses a context-wide synchronisation while a
// stream of c captures, invalidating those captures.
func (b *fakeBackend) captureRefuseContext(c *context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var err error
	for s, cp := range b.graphs.captures {
		if s.ctx == c {
			cp.invalid = true
			err = backend.ErrStreamCaptureUnsupported
		}
	}
	return err
}

// captureRefuseEvent refuses a query or synchronisation of an event last
// recorded in a capture that is still going: CUDA_ERROR_CAPTURED_EVENT,
// and the capture is invalidated.
func (b *fakeBackend) captureRefuseEvent(e *event) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.graphs.records[e]
	if r == nil {
		return nil
	}
	r.c.invalid = true
	return backend.ErrCapturedEvent
}

// captureEventRecordLocked handles cuEventRecord of e on a capturing stream
// s: the event stands for the stream's current nodes. handled is false
// when s does not capture.
func (b *fakeBackend) captureEventRecordLocked(e *event, s *stream) (handled bool, err error) {
	c := b.graphs.captures[s]
	if c == nil {
		return false, nil
	}
	if c.invalid {
		return true, backend.ErrStreamCaptureInvalidated
	}
	b.graphs.records[e] = &captureRecord{c: c, nodes: c.leaves[s]}
	return true, nil
}

// captureWaitLocked handles cuStreamWaitEvent of s on e when e was last
// recorded in a capture: s joins the capture (fork) or adds the event's
// nodes to its own (join). handled is false for an event recorded outside
// any capture on a stream that does not capture.
func (b *fakeBackend) captureWaitLocked(s *stream, e *event) (handled bool, err error) {
	r := b.graphs.records[e]
	c := b.graphs.captures[s]
	switch {
	case r == nil && c == nil:
		return false, nil
	case r == nil:
		// A capturing stream waiting on uncaptured work: nothing to
		// record.
		return true, nil
	case c != nil && c != r.c:
		return true, backend.ErrStreamCaptureMerge
	case r.c.invalid:
		return true, backend.ErrStreamCaptureInvalidated
	}
	if c == nil {
		b.graphs.captures[s] = r.c
		r.c.leaves[s] = append([]*gnode(nil), r.nodes...)
		return true, nil
	}
	have := map[*gnode]bool{}
	for _, n := range c.leaves[s] {
		have[n] = true
	}
	for _, n := range r.nodes {
		if !have[n] {
			c.leaves[s] = append(c.leaves[s], n)
		}
	}
	return true, nil
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

// captureUnsafe refuses a "potentially unsafe" call (an allocation:
// cuMemAlloc, cuMemHostAlloc) from thread tid while a capture prohibits
// it, as the driver documents for the capture modes (cuStreamBeginCapture)
// and the H200 shows (GPU run 2 of 2026-12-01, driver 580): a capture in
// global mode prohibits such calls on every thread; one in thread-local
// mode on the thread that began it; one in relaxed mode nowhere. The call
// fails with STREAM_CAPTURE_UNSUPPORTED and the prohibiting captures are
// invalidated. Synchronous copies and memsets are not among these calls:
// they run on the legacy stream, refused only while a blocking stream
// captures (captureImplicitLocked).
func (b *fakeBackend) captureUnsafe(tid int64) error {
	b.mu.RLock()
	n := len(b.graphs.captures)
	b.mu.RUnlock()
	if n == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var err error
	for _, c := range b.graphs.captures {
		if c.mode == backend.CaptureModeGlobal || c.mode == backend.CaptureModeThreadLocal && c.tid == tid {
			c.invalid = true
			err = backend.ErrStreamCaptureUnsupported
		}
	}
	return err
}

// captureImplicitLocked refuses work on the legacy stream of context c
// while a blocking stream of c (the per-thread default stream among them)
// captures: the legacy stream encompasses those streams, so the work would
// depend on the capture (the programming guide's "Prohibited and Unhandled
// Operations"; synchronous copies run on the legacy stream too). The call
// fails with STREAM_CAPTURE_IMPLICIT and those captures are invalidated.
func (b *fakeBackend) captureImplicitLocked(c *context) error {
	var err error
	for s, cp := range b.graphs.captures {
		blocking := s.kind == perThreadStream || s.kind == userStream && s.flags&backend.StreamNonBlocking == 0
		if s.ctx == c && blocking {
			cp.invalid = true
			err = backend.ErrStreamCaptureImplicit
		}
	}
	return err
}
