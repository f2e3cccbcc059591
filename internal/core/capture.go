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
// retains the objects for it: at once for work on the capture's origin
// stream, and, for work on another stream (one that may have joined the
// capture through an event), after asking the driver which capture the
// stream is in (cuStreamGetCaptureInfo). CaptureEnded hands them to the
// graph that EndCapture made. Outside captures, Keep costs one atomic load.

// captures is a context's table of the captures begun through this
// library, by origin stream.
type captures struct {
	active   atomic.Int32 // len(byOrigin), read without the lock by Keep
	mu       sync.Mutex
	byOrigin map[*Queue]*captureSet
}

// captureSet is what one capture's work refers to.
type captureSet struct {
	id    uint64 // the capture's id, once a joined stream's Keep asked for it (0 before)
	holds []*Hold
	ended bool // CaptureEnded took the holds: a late Keep adds none
}

// CaptureBegun notes that a capture began on q (cuStreamBeginCapture
// succeeded): from now on Keep retains, for it, the objects of the work
// captured.
func (q *Queue) CaptureBegun() {
	t := &q.Hold.c.captures
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byOrigin == nil {
		t.byOrigin = map[*Queue]*captureSet{}
	}
	if _, ok := t.byOrigin[q]; !ok {
		t.byOrigin[q] = &captureSet{}
		t.active.Add(1)
	}
}

// CaptureEnded ends the capture begun on q (cuStreamEndCapture ended it,
// with a graph or without) and returns the holds Keep retained for it: the
// caller owns those retentions, to hand to the graph made or to Release.
func (q *Queue) CaptureEnded() []*Hold {
	t := &q.Hold.c.captures
	t.mu.Lock()
	defer t.mu.Unlock()
	set := t.byOrigin[q]
	if set == nil {
		return nil
	}
	delete(t.byOrigin, q)
	t.active.Add(-1)
	set.ended = true
	return set.holds
}

// CapturesGone lets go of what the capture begun on q retained, for a
// stream destroyed while capturing: no graph can come of it.
func (q *Queue) CapturesGone() {
	for _, h := range q.CaptureEnded() {
		h.Release()
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
	t.mu.Lock()
	set := t.byOrigin[q]
	t.mu.Unlock()
	if set == nil {
		set = q.joined()
	}
	if set == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if set.ended {
		return // the capture ended meanwhile
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

// captureInfo is the driver call that says which capture a stream is in.
type captureInfo interface {
	StreamGetCaptureInfo(uintptr) (backend.CaptureStatus, uint64, error)
}

// joined returns the set of the capture begun through this library that q
// (not an origin) joined, or nil when it is in none: it asks the driver
// for q's capture id, and for each origin's the first time. A driver that
// cannot say retains nothing.
func (q *Queue) joined() *captureSet {
	g, ok := q.Hold.c.API.(captureInfo)
	if !ok {
		return nil
	}
	st, id, err := g.StreamGetCaptureInfo(q.Handle)
	if err != nil || st == backend.CaptureStatusNone || id == 0 {
		return nil
	}
	t := &q.Hold.c.captures
	t.mu.Lock()
	defer t.mu.Unlock()
	for origin, set := range t.byOrigin {
		if set.id == 0 {
			if _, oid, err := g.StreamGetCaptureInfo(origin.Handle); err == nil {
				set.id = oid
			}
		}
		if set.id == id {
			return set
		}
	}
	return nil
}
