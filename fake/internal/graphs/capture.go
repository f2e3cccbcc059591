package graphs

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
//     is recorded as nodes of a graph instead of running (the core's
//     enqueue calls CaptureRecord); each node depends on the stream's
//     previous node(s).
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
	origin  *Slot
	g       *fgraph
	leaves  map[*Slot][]*gnode // each stream's current nodes
	invalid bool
}

// captureRecord is an event recorded in a capture: the recording stream's
// nodes at the record.
type captureRecord struct {
	c     *capture
	nodes []*gnode
}

// StreamBeginCapture is cuStreamBeginCapture_v2.
func (r *Room) StreamBeginCapture(h uintptr, mode backend.CaptureMode) error {
	if err := r.enter(abi.CuStreamBeginCapture); err != nil {
		return err
	}
	if mode > backend.CaptureModeRelaxed {
		return driver.ErrInvalidValue
	}
	tid := core.ThreadID()
	g := &fgraph{h: r.core.NewHandle()}
	return r.core.WithStream(h, func(s Stream) error {
		if s.Null {
			return backend.ErrStreamCaptureUnsupported
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if s.Slot.c != nil {
			return driver.ErrIllegalState
		}
		r.lastID++
		c := &capture{id: r.lastID, mode: mode, tid: tid, origin: s.Slot, g: g, leaves: map[*Slot][]*gnode{}}
		r.joinLocked(s, c, nil)
		return nil
	})
}

// joinLocked makes s a stream of capture c, with nodes its current ones.
func (r *Room) joinLocked(s Stream, c *capture, nodes []*gnode) {
	s.Slot.c, s.Slot.info = c, s
	c.leaves[s.Slot] = nodes
	r.captures[s.Slot] = c
	r.capturing.Store(int32(len(r.captures)))
}

// leaveLocked takes s out of capture mode.
func (r *Room) leaveLocked(s *Slot) {
	s.c = nil
	delete(r.captures, s)
	r.capturing.Store(int32(len(r.captures)))
}

// StreamEndCapture is cuStreamEndCapture.
func (r *Room) StreamEndCapture(h uintptr) (uintptr, error) {
	if err := r.enter(abi.CuStreamEndCapture); err != nil {
		return 0, err
	}
	tid := core.ThreadID()
	var g uintptr
	err := r.core.WithStream(h, func(st Stream) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		s := st.Slot
		c := s.c
		if c == nil {
			return driver.ErrIllegalState
		}
		if c.origin != s {
			return backend.ErrStreamCaptureUnmatched
		}
		if c.mode != backend.CaptureModeRelaxed && c.tid != tid {
			return backend.ErrStreamCaptureWrongThread
		}
		r.endCaptureLocked(c)
		if c.invalid {
			return backend.ErrStreamCaptureInvalidated
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
				return backend.ErrStreamCaptureUnjoined
			}
		}
		r.graphs[c.g.h] = c.g
		for _, n := range c.g.nodes {
			r.nodes[n.h] = n
			r.owner[n] = c.g
		}
		g = c.g.h
		return nil
	})
	return g, err
}

// endCaptureLocked takes every stream of c out of capture mode.
func (r *Room) endCaptureLocked(c *capture) {
	for s := range c.leaves {
		if s.c == c {
			r.leaveLocked(s)
		}
	}
	for e, rec := range r.records {
		if rec.c == c {
			delete(r.records, e)
		}
	}
}

// CaptureStreamGone ends the part the destroyed stream s had in a capture:
// the origin's destruction ends the capture (every stream of it leaves
// capture mode, and nothing is recorded any more: no graph can come of
// it); a joined stream's leaves the capture, invalidated. Either way the
// context takes legacy-stream work again once no blocking stream captures.
func (r *Room) CaptureStreamGone(s *Slot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := s.c
	if c == nil {
		return
	}
	if c.origin == s {
		r.endCaptureLocked(c)
		return
	}
	r.leaveLocked(s)
	delete(c.leaves, s)
	c.invalid = true
}

// StreamGetCaptureInfo is cuStreamGetCaptureInfo.
func (r *Room) StreamGetCaptureInfo(h uintptr) (backend.CaptureStatus, uint64, error) {
	if err := r.enter(abi.CuStreamGetCaptureInfo); err != nil {
		return 0, 0, err
	}
	status, id := backend.CaptureStatusNone, uint64(0)
	err := r.core.WithStream(h, func(s Stream) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		c := s.Slot.c
		switch {
		case c == nil:
		case c.invalid:
			status, id = backend.CaptureStatusInvalidated, c.id
		default:
			status, id = backend.CaptureStatusActive, c.id
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	return status, id, nil
}

// Capturing reports whether the stream of slot s captures.
func (r *Room) Capturing(s *Slot) bool {
	if r.capturing.Load() == 0 {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return s.c != nil
}

// CaptureRecord records work enqueued on the stream of slot s, when it
// captures (captured), as a node of its capture's graph after the
// stream's current nodes: run (the core's work, or nil) or host (a host
// function, or nil). An invalidated capture refuses it with
// STREAM_CAPTURE_INVALIDATED.
func (r *Room) CaptureRecord(s *Slot, run func() error, host func()) (captured bool, err error) {
	if r.capturing.Load() == 0 {
		return false, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := s.c
	if c == nil {
		return false, nil
	}
	if c.invalid {
		return true, backend.ErrStreamCaptureInvalidated
	}
	r.recordLocked(c, s, &gnode{kind: nodeKernel, run: run, host: host})
	return true, nil
}

// recordLocked adds n to c's graph after the current nodes of s.
func (r *Room) recordLocked(c *capture, s *Slot, n *gnode) {
	if n.host != nil {
		n.kind = nodeHost
	}
	n.h, n.deps = r.core.NewHandle(), c.leaves[s]
	c.g.nodes = append(c.g.nodes, n)
	c.leaves[s] = []*gnode{n}
}

// CaptureRefuse invalidates the capture of the stream of slot s, if any,
// for a call not permitted on a capturing stream (a synchronize, a
// query), and returns the error for it.
func (r *Room) CaptureRefuse(s *Slot) error {
	if r.capturing.Load() == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := s.c
	if c == nil {
		return nil
	}
	c.invalid = true
	return backend.ErrStreamCaptureUnsupported
}

// CaptureRefuseContext refuses a context-wide synchronisation while a
// stream of context ctx captures, invalidating those captures.
func (r *Room) CaptureRefuseContext(ctx uintptr) error {
	if r.capturing.Load() == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var err error
	for s, cp := range r.captures {
		if s.info.Ctx == ctx {
			cp.invalid = true
			err = backend.ErrStreamCaptureUnsupported
		}
	}
	return err
}

// CaptureRefuseEvent refuses a query or synchronisation of the event ev
// last recorded in a capture that is still going:
// CUDA_ERROR_CAPTURED_EVENT, and the capture is invalidated.
func (r *Room) CaptureRefuseEvent(ev uintptr) error {
	if r.capturing.Load() == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.records[ev]
	if rec == nil {
		return nil
	}
	rec.c.invalid = true
	return backend.ErrCapturedEvent
}

// CaptureEventRecord handles cuEventRecord of the event ev on the stream
// of slot s when it captures (handled): the event stands for the stream's
// current nodes.
func (r *Room) CaptureEventRecord(ev uintptr, s *Slot) (handled bool, err error) {
	if r.capturing.Load() == 0 {
		return false, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := s.c
	if c == nil {
		return false, nil
	}
	if c.invalid {
		return true, backend.ErrStreamCaptureInvalidated
	}
	r.records[ev] = &captureRecord{c: c, nodes: c.leaves[s]}
	return true, nil
}

// CaptureWait handles cuStreamWaitEvent of s on the event ev when ev was
// last recorded in a capture: s joins the capture (fork) or adds the
// event's nodes to its own (join). handled is false for an event recorded
// outside any capture on a stream that does not capture.
func (r *Room) CaptureWait(s Stream, ev uintptr) (handled bool, err error) {
	if r.capturing.Load() == 0 {
		return false, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.records[ev]
	c := s.Slot.c
	switch {
	case rec == nil && c == nil:
		return false, nil
	case rec == nil:
		// A capturing stream waiting on uncaptured work: nothing to
		// record.
		return true, nil
	case c != nil && c != rec.c:
		return true, backend.ErrStreamCaptureMerge
	case rec.c.invalid:
		return true, backend.ErrStreamCaptureInvalidated
	}
	if c == nil {
		r.joinLocked(s, rec.c, append([]*gnode(nil), rec.nodes...))
		return true, nil
	}
	have := map[*gnode]bool{}
	for _, n := range c.leaves[s.Slot] {
		have[n] = true
	}
	for _, n := range rec.nodes {
		if !have[n] {
			c.leaves[s.Slot] = append(c.leaves[s.Slot], n)
		}
	}
	return true, nil
}

// CaptureUnsafe refuses a "potentially unsafe" call (an allocation:
// cuMemAlloc, cuMemHostAlloc) from thread tid while a capture prohibits
// it, as the driver documents for the capture modes (cuStreamBeginCapture)
// and the H200 shows (GPU run 2 of 2026-12-01, driver 580): a capture in
// global mode prohibits such calls on every thread; one in thread-local
// mode on the thread that began it; one in relaxed mode nowhere. The call
// fails with STREAM_CAPTURE_UNSUPPORTED and the prohibiting captures are
// invalidated. Synchronous copies and memsets are not among these calls:
// they run on the legacy stream, refused only while a blocking stream
// captures (CaptureImplicit).
func (r *Room) CaptureUnsafe(tid int64) error {
	if r.capturing.Load() == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var err error
	for _, c := range r.captures {
		if c.mode == backend.CaptureModeGlobal || c.mode == backend.CaptureModeThreadLocal && c.tid == tid {
			c.invalid = true
			err = backend.ErrStreamCaptureUnsupported
		}
	}
	return err
}

// CaptureImplicit refuses work on the legacy stream of context ctx while a
// blocking stream of ctx (the per-thread default stream among them)
// captures: the legacy stream encompasses those streams, so the work would
// depend on the capture (the programming guide's "Prohibited and Unhandled
// Operations"; synchronous copies run on the legacy stream too). The call
// fails with STREAM_CAPTURE_IMPLICIT and those captures are invalidated.
func (r *Room) CaptureImplicit(ctx uintptr) error {
	if r.capturing.Load() == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var err error
	for s, cp := range r.captures {
		if s.info.Ctx == ctx && s.info.Blocking {
			cp.invalid = true
			err = backend.ErrStreamCaptureImplicit
		}
	}
	return err
}
