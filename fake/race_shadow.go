package fake

import "sort"

// The race detector's shadow memory: for each device allocation, a sorted
// list of byte ranges, each with the last write to it (or the free) and
// the reads and atomics since, one per stream slot, in the style of
// FastTrack. A range is split where an access begins or ends inside it and
// merged with its neighbours again when they say the same; an allocation
// that only sees whole-buffer copies keeps one range. The shadow is made
// on the first access the detector records.

// accessKind is what an access does to its bytes.
type accessKind uint8

const (
	accRead     accessKind = iota + 1 // a read whose value is used: reading bytes never written is reported
	accCopyRead                       // a device-to-device copy's source: copies what it finds, written or not
	accWrite
	accAtomic // ordered against other atomics, not against plain accesses
	accFree   // a stream-ordered free: a write of the whole allocation
)

func (k accessKind) String() string {
	switch k {
	case accRead, accCopyRead:
		return "read"
	case accWrite:
		return "write"
	case accAtomic:
		return "atomic"
	case accFree:
		return "free"
	}
	return "access"
}

// raceAccess is one recorded access (or a run of them, of one kernel
// instruction): what a report says of it.
type raceAccess struct {
	op   *raceOp
	kind accessKind
	what string      // "kernel scale", "memcpy HtoD", "cublasSgemm", ...
	site *KernelSite // for kernel accesses: the first thread of the run
}

// same reports whether a and b stand for the same piece of work doing the
// same, so that ranges they cover may be merged.
func (a *raceAccess) same(b *raceAccess) bool {
	return a == b || a != nil && b != nil && a.op == b.op && a.kind == b.kind && a.what == b.what
}

type raceSegment struct {
	lo, hi  uintptr
	written bool          // some access wrote these bytes (or they need no writing)
	w       *raceAccess   // the last write or free
	reads   []*raceAccess // reads and atomics since w
}

func (s *raceSegment) sameState(t *raceSegment) bool {
	if s.written != t.written || !s.w.same(t.w) || len(s.reads) != len(t.reads) {
		return false
	}
	for i := range s.reads {
		if !s.reads[i].same(t.reads[i]) {
			return false
		}
	}
	return true
}

type raceShadow struct{ segs []raceSegment }

// shadowLocked returns a's shadow, made on first use: memory the fake
// poisons (cuMemAlloc, pools, pitched) starts unwritten; managed memory,
// which the host writes unseen, starts written. race.mu held.
func (r *raceState) shadowLocked(a *alloc) *raceShadow {
	if a.race == nil {
		a.race = &raceShadow{segs: []raceSegment{{lo: a.base, hi: a.end(), written: a.managed}}}
	}
	return a.race
}

// split makes lo a segment boundary (when it lies inside the shadow) and
// returns the index of the segment that starts at lo.
func (sh *raceShadow) split(lo uintptr) int {
	i := sort.Search(len(sh.segs), func(i int) bool { return sh.segs[i].hi > lo })
	if i == len(sh.segs) {
		return i
	}
	if s := sh.segs[i]; s.lo < lo {
		left, right := s, s
		left.hi, right.lo = lo, lo
		sh.segs = append(sh.segs, raceSegment{})
		copy(sh.segs[i+2:], sh.segs[i+1:])
		sh.segs[i], sh.segs[i+1] = left, right
		return i + 1
	}
	return i
}

// applyLocked checks acc's access to [lo, hi) of a against what the shadow
// holds, appends the hazards it finds to found, and records acc. race.mu
// held.
func (r *raceState) applyLocked(a *alloc, lo, hi uintptr, acc *raceAccess, found []Hazard) []Hazard {
	sh := r.shadowLocked(a)
	i := sh.split(lo)
	j := sh.split(hi)
	last, lastPrev := -1, (*raceAccess)(nil) // the hazard being extended over neighbouring segments
	note := func(prev *raceAccess, s *raceSegment) {
		if last >= 0 && found[last].Addr+found[last].Size == s.lo && lastPrev == prev {
			found[last].Size += s.hi - s.lo
			return
		}
		key := hazardKey{cur: acc.op, curWhat: acc.what, alloc: a.base}
		if prev != nil {
			key.prev, key.prevWhat = prev.op, prev.what
		}
		if r.seen[key] {
			last = -1
			return
		}
		r.seen[key] = true
		found = append(found, newHazard(a, s.lo, s.hi-s.lo, prev, acc))
		last, lastPrev = len(found)-1, prev
	}
	for k := i; k < j; k++ {
		s := &sh.segs[k]
		if s.w != nil && !s.w.op.before(acc.op) {
			note(s.w, s)
		} else {
			for _, rd := range s.reads {
				if rd.op.before(acc.op) {
					continue
				}
				plainWrite := acc.kind == accWrite || acc.kind == accFree
				if plainWrite || (acc.kind == accAtomic) != (rd.kind == accAtomic) {
					note(rd, s)
					break
				}
			}
		}
		if acc.kind == accRead && !s.written {
			note(nil, s)
		}
		switch acc.kind {
		case accWrite, accFree:
			s.w, s.reads, s.written = acc, nil, true
		case accAtomic:
			s.reads, s.written = withRead(s.reads, acc), true
		default:
			s.reads = withRead(s.reads, acc)
		}
	}
	sh.merge(max(i-1, 0), min(j+1, len(sh.segs)))
	return found
}

// withRead returns reads with acc in place of the earlier read (or
// atomic) of acc's stream slot: that one happens before acc. The result
// is a new slice: split segments share the old one.
func withRead(reads []*raceAccess, acc *raceAccess) []*raceAccess {
	out := make([]*raceAccess, 0, len(reads)+1)
	for _, rd := range reads {
		if rd.op.slot != acc.op.slot || (rd.kind == accAtomic) != (acc.kind == accAtomic) {
			out = append(out, rd)
		}
	}
	return append(out, acc)
}

// merge joins neighbouring segments of segs[from:to] that say the same.
func (sh *raceShadow) merge(from, to int) {
	if to-from < 2 {
		return
	}
	out := sh.segs[:from+1]
	for k := from + 1; k < to; k++ {
		if p := &out[len(out)-1]; p.hi == sh.segs[k].lo && p.sameState(&sh.segs[k]) {
			p.hi = sh.segs[k].hi
			continue
		}
		out = append(out, sh.segs[k])
	}
	out = append(out, sh.segs[to:]...)
	clear(sh.segs[len(out):])
	sh.segs = out
}

// unwrittenLocked returns the ranges of [lo, hi) of a that nothing wrote.
// race.mu held.
func (r *raceState) unwrittenLocked(a *alloc, lo, hi uintptr) [][2]uintptr {
	sh := r.shadowLocked(a)
	var out [][2]uintptr
	i := sort.Search(len(sh.segs), func(i int) bool { return sh.segs[i].hi > lo })
	for ; i < len(sh.segs) && sh.segs[i].lo < hi; i++ {
		if s := sh.segs[i]; !s.written {
			out = append(out, [2]uintptr{max(s.lo, lo), min(s.hi, hi)})
		}
	}
	return out
}

// markUnwrittenLocked records [lo, hi) of a as holding nothing written (a
// copy of unwritten bytes). race.mu held.
func (r *raceState) markUnwrittenLocked(a *alloc, lo, hi uintptr) {
	lo, hi = max(lo, a.base), min(hi, a.end())
	if lo >= hi {
		return
	}
	sh := r.shadowLocked(a)
	i := sh.split(lo)
	j := sh.split(hi)
	for k := i; k < j; k++ {
		sh.segs[k].written = false
	}
	sh.merge(max(i-1, 0), min(j+1, len(sh.segs)))
}
