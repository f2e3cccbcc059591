package core

import (
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver/backend"
)

// Captures: a graph made by stream capture retains what its work refers to,
// as a graph built node by node does (see Retain). The packages that
// enqueue work (memory, module) report the objects a call passed to the
// driver with Queue.Keep once the call succeeded; while a capture that
// package graph began (CaptureBegun) runs in the stream's context, Keep
// asks the driver whether the stream captures (cuStreamGetCaptureInfo: it
// may have joined the capture through an event) and, if so, retains the
// objects for that capture. CaptureEnded hands them to the graph that
// EndCapture made. Outside captures, Keep costs one atomic load.

// captures is a context's table of the captures begun through this
// library, by capture id.
type captures struct {
	active atomic.Int32 // len(byID), read without the lock by Keep
	mu     sync.Mutex
	byID   map[uint64]*captureSet
}

// captureSet is what one capture's work refers to.
type captureSet struct {
	origin *Queue
	holds  []*Hold
}

// CaptureBegun notes the capture id that began on q (cuStreamBeginCapture
// succeeded): from now on Keep retains, for it, the objects of the work
// captured.
func (q *Queue) CaptureBegun(id uint64) {
	t := &q.Hold.c.captures
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID == nil {
		t.byID = map[uint64]*captureSet{}
	}
	if _, ok := t.byID[id]; !ok {
		t.byID[id] = &captureSet{origin: q}
		t.active.Add(1)
	}
}

// CaptureEnded ends the capture id (cuStreamEndCapture returned) and
// returns the holds Keep retained for it: the caller owns those
// retentions, to hand to the graph made or to Release.
func (q *Queue) CaptureEnded(id uint64) []*Hold {
	t := &q.Hold.c.captures
	t.mu.Lock()
	defer t.mu.Unlock()
	set := t.byID[id]
	if set == nil {
		return nil
	}
	delete(t.byID, id)
	t.active.Add(-1)
	return set.holds
}

// CapturesGone lets go of what the captures begun on q retained, for a
// stream destroyed while capturing: no graph can come of them.
func (q *Queue) CapturesGone() {
	t := &q.Hold.c.captures
	if t.active.Load() == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, set := range t.byID {
		if set.origin == q {
			for _, h := range set.holds {
				h.Release()
			}
			delete(t.byID, id)
			t.active.Add(-1)
		}
	}
}

// Keep retains hs for the capture that q's work joins, if any (see
// Captures): called by a call that enqueued work referring to them on q,
// while it still holds each of them (Hold.Use), so that none is closed
// meanwhile.
func (q *Queue) Keep(hs ...*Hold) { q.keep(false, hs) }

// KeepOpen is Keep for objects the call did not hold (the buffers a
// kernel's arguments point to): one closed, or being closed, meanwhile is
// left out.
func (q *Queue) KeepOpen(h *Hold) { q.keep(true, []*Hold{h}) }

// Capturing reports whether a capture begun through this library runs in
// q's context, so that Keep may retain something: a call with work to
// gather for Keep asks first.
func (q *Queue) Capturing() bool { return q != nil && q.Hold.c.captures.active.Load() != 0 }

func (q *Queue) keep(open bool, hs []*Hold) {
	if !q.Capturing() || q.Special {
		return
	}
	t := &q.Hold.c.captures
	g, ok := q.Hold.c.API.(interface {
		StreamGetCaptureInfo(uintptr) (backend.CaptureStatus, uint64, error)
	})
	if !ok {
		return
	}
	st, id, err := g.StreamGetCaptureInfo(q.Handle)
	if err != nil || st == backend.CaptureStatusNone {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	set := t.byID[id]
	if set == nil {
		return // a capture begun outside this library
	}
	for _, h := range hs {
		if h == nil {
			continue
		}
		if open && !h.use() {
			continue // closed, or being closed
		}
		h.retained.Add(1)
		if open {
			h.Unuse()
		}
		set.holds = append(set.holds, h)
	}
}
