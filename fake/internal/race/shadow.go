package race

import "sort"

// The detector's shadow memory: for each device allocation, a sorted
// list of byte ranges, each with the last write to it (or the free) and
// the reads and atomics since, one per stream slot, in the style of
// FastTrack. A range is split where an access begins or ends inside it and
// merged with its neighbours again when they say the same; an allocation
// that only sees whole-buffer copies keeps one range. The shadow is made
// on the first access the detector records.

// AccessKind is what an access does to its bytes.
type AccessKind uint8

// The kinds of access.
const (
	Read     AccessKind = iota + 1 // a read whose value is used: reading bytes never written is reported
	CopyRead                       // a device-to-device copy's source: copies what it finds, written or not
	Write
	Atomic // ordered against other atomics, not against plain accesses
	Free   // a stream-ordered free: a write of the whole allocation
	// Alloc is a stream-ordered allocation (cuMemAllocAsync): every use
	// must follow it, as every use must precede a free, but it writes
	// nothing.
	Alloc
)

// String is the kind as a report says it: "read", "write", "atomic" or
// "free".
func (k AccessKind) String() string {
	switch k {
	case Read, CopyRead:
		return "read"
	case Write:
		return "write"
	case Atomic:
		return "atomic"
	case Free:
		return "free"
	case Alloc:
		return "allocation"
	}
	return "access"
}

// access is one recorded access (or a run of them, of one kernel
// instruction): what a report says of it.
type access struct {
	op   *Op
	kind AccessKind
	what string      // "kernel scale", "memcpy HtoD", "cublasSgemm", ...
	site *KernelSite // for kernel accesses: the first thread of the run
}

// same reports whether a and b stand for the same piece of work doing the
// same, so that ranges they cover may be merged.
func (a *access) same(b *access) bool {
	return a == b || a != nil && b != nil && a.op == b.op && a.kind == b.kind && a.what == b.what
}

type segment struct {
	lo, hi  uintptr
	written bool      // some access wrote these bytes (or they need no writing)
	w       *access   // the last write or free
	reads   []*access // reads and atomics since w
}

func (s *segment) sameState(t *segment) bool {
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

// Shadow is the detector's record of one allocation's bytes, kept in the
// allocation by the core (its zero value is the record of bytes nothing
// touched yet) and guarded by the detector's lock.
type Shadow struct{ segs []segment }

// made returns sh, made on first use for m: memory the fake poisons
// (cuMemAlloc, pools, pitched) starts unwritten; memory that others write
// unseen (Memory.Written) starts written. d.mu held.
func (sh *Shadow) made(m Memory) *Shadow {
	if sh.segs == nil {
		sh.segs = []segment{{lo: m.Base, hi: m.end(), written: m.Written}}
	}
	return sh
}

// split makes lo a segment boundary (when it lies inside the shadow) and
// returns the index of the segment that starts at lo.
func (sh *Shadow) split(lo uintptr) int {
	i := sort.Search(len(sh.segs), func(i int) bool { return sh.segs[i].hi > lo })
	if i == len(sh.segs) {
		return i
	}
	if s := sh.segs[i]; s.lo < lo {
		left, right := s, s
		left.hi, right.lo = lo, lo
		sh.segs = append(sh.segs, segment{})
		copy(sh.segs[i+2:], sh.segs[i+1:])
		sh.segs[i], sh.segs[i+1] = left, right
		return i + 1
	}
	return i
}

// applyLocked checks acc's access to [lo, hi) of m against what its
// shadow holds, appends the hazards it finds to found, and records acc.
// d.mu held.
func (d *Detector) applyLocked(m Memory, lo, hi uintptr, acc *access, found []Hazard) []Hazard {
	sh := m.Shadow.made(m)
	i := sh.split(lo)
	j := sh.split(hi)
	last, lastPrev := -1, (*access)(nil) // the hazard being extended over neighbouring segments
	note := func(prev *access, s *segment) {
		if last >= 0 && found[last].Addr+found[last].Size == s.lo && lastPrev == prev {
			found[last].Size += s.hi - s.lo
			return
		}
		key := hazardKey{cur: acc.op, curWhat: acc.what, alloc: m.Base}
		if prev != nil {
			key.prev, key.prevWhat = prev.op, prev.what
		}
		if d.seen[key] {
			last = -1
			return
		}
		d.seen[key] = true
		found = append(found, newHazard(m, s.lo, s.hi-s.lo, prev, acc))
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
				plainWrite := acc.kind == Write || acc.kind == Free || acc.kind == Alloc
				if plainWrite || (acc.kind == Atomic) != (rd.kind == Atomic) {
					note(rd, s)
					break
				}
			}
		}
		if acc.kind == Read && !s.written {
			note(nil, s)
		}
		switch acc.kind {
		case Write, Free:
			s.w, s.reads, s.written = acc, nil, true
		case Alloc:
			s.w, s.reads = acc, nil
		case Atomic:
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
func withRead(reads []*access, acc *access) []*access {
	out := make([]*access, 0, len(reads)+1)
	for _, rd := range reads {
		if rd.op.slot != acc.op.slot || (rd.kind == Atomic) != (acc.kind == Atomic) {
			out = append(out, rd)
		}
	}
	return append(out, acc)
}

// merge joins neighbouring segments of segs[from:to] that say the same.
func (sh *Shadow) merge(from, to int) {
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

// unwritten returns the ranges of [lo, hi) of m that nothing wrote. d.mu
// held.
func (sh *Shadow) unwritten(m Memory, lo, hi uintptr) [][2]uintptr {
	sh.made(m)
	var out [][2]uintptr
	i := sort.Search(len(sh.segs), func(i int) bool { return sh.segs[i].hi > lo })
	for ; i < len(sh.segs) && sh.segs[i].lo < hi; i++ {
		if s := sh.segs[i]; !s.written {
			out = append(out, [2]uintptr{max(s.lo, lo), min(s.hi, hi)})
		}
	}
	return out
}

// markUnwritten records [lo, hi) of m as holding nothing written (a copy
// of unwritten bytes). d.mu held.
func (sh *Shadow) markUnwritten(m Memory, lo, hi uintptr) {
	lo, hi = max(lo, m.Base), min(hi, m.end())
	if lo >= hi {
		return
	}
	sh.made(m)
	i := sh.split(lo)
	j := sh.split(hi)
	for k := i; k < j; k++ {
		sh.segs[k].written = false
	}
	sh.merge(max(i-1, 0), min(j+1, len(sh.segs)))
}
