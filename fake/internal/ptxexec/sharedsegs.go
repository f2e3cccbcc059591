package ptxexec

// Segment records of the shared-memory checks. Most shared accesses of a
// kernel are whole runs of a warp's lanes (a tile's row, a reduction
// step's s[tid]), so raceState keeps, for each sharedSegWords words of
// shared memory, one record of such runs (sseg) until an access that is
// not one touches the segment: then its words get their own records
// (materialise), what the word records would have held had they been
// kept all along. A run of lanes that covers whole segments that are
// still one record each, whose lanes' checks are all quiet (nothing of
// this barrier phase by another thread), costs one look at each segment
// instead of one at each word (quietSegs). A new block starts with every
// segment one empty record again (startBlock): a block's threads are
// not those of the block before, and nothing of that block is ordered
// with or races with this one's.

// sharedSegWords is how many 4-byte words of shared memory one sseg
// covers: 16, a half-warp's floats (a 16-wide tile's row), so that a
// full warp's run of floats is two segments.
const sharedSegWords = 16

// sseg is the record of sharedSegWords words of shared memory while
// their records are those of whole runs of lanes: w, the last write, and
// r, the one read since, are the accesses of the run's first lane, and
// word k's are those of lane k/wPer (k/rPer) of the run (its thread
// that many after); thread 0: none; no word has a second reader and none
// is split. mat: the words have their own records in raceState.words,
// and the segment's are not used.
type sseg struct {
	w, r       shadowAccess
	wPer, rPer uint8 // words a lane
	mat        bool
}

// startBlock starts a new block for the checks: a new barrier phase, and
// every segment one empty record (the words of segments with records of
// their own are no longer split), where the block before recorded any.
func (rs *raceState) startBlock() {
	rs.phase++
	if !rs.segsUsed {
		return
	}
	rs.segsUsed = false
	for s := range rs.segs {
		if rs.segs[s].mat {
			lo := s * sharedSegWords
			clear(rs.split[lo:min(lo+sharedSegWords, len(rs.split))])
		}
		rs.segs[s] = sseg{}
	}
}

// materialise gives the words [w0, w1) records of their own where their
// segment is one record; the usual case, words of one segment that has
// them already, is a look at the segment (materialised, inline).
func (rs *raceState) materialise(w0, w1 uint64) {
	if !rs.materialised(w0, w1) {
		rs.materialiseSegs(w0, w1)
	}
}

// materialised reports whether the words [w0, w1) lie in one segment
// that has records of its own.
func (rs *raceState) materialised(w0, w1 uint64) bool {
	s := w0 / sharedSegWords
	return s < uint64(len(rs.segs)) && rs.segs[s].mat && (w1-1)/sharedSegWords == s
}

// materialiseSegs is materialise's loop over the segments.
func (rs *raceState) materialiseSegs(w0, w1 uint64) {
	for s := w0 / sharedSegWords; s*sharedSegWords < w1 && s < uint64(len(rs.segs)); s++ {
		seg := &rs.segs[s]
		if seg.mat {
			continue
		}
		lo := s * sharedSegWords
		ws := rs.words[lo:min(lo+sharedSegWords, uint64(len(rs.words)))]
		for k := range ws {
			ws[k] = shadowByte{}
			if seg.w.thread != 0 {
				ws[k].w = seg.w
				ws[k].w.thread += int32(k / int(seg.wPer))
			}
			if seg.r.thread != 0 {
				ws[k].r1 = seg.r
				ws[k].r1.thread += int32(k / int(seg.rPer))
			}
		}
		seg.mat = true
		rs.segsUsed = true
	}
}

// quietSegs records access op by a run of lanes (thread first+j at off +
// j*size, one warp's) in one step a segment where the run covers whole
// segments that are one record each and every lane's check is quiet
// (shadowByte.quiet of each word): what recordRun would record, word by
// word. It reports whether it applied; false: it recorded nothing.
func (rs *raceState) quietSegs(op sharedOp, first, lanes int, off, size uint64) bool {
	if off&3 != 0 || size&3 != 0 || size == 0 || op.acquires || lanes <= 0 {
		return false
	}
	k := size >> 2
	w0, n := off>>2, uint64(lanes)*k
	if w0%sharedSegWords != 0 || n%sharedSegWords != 0 || sharedSegWords%k != 0 || w0+n > uint64(len(rs.words)) {
		return false
	}
	per := uint8(k)
	segs := rs.segs[w0/sharedSegWords : (w0+n)/sharedSegWords]
	ph := rs.phase
	step := int32(sharedSegWords / k) // lanes a segment
	quiet := func(a *shadowAccess, aPer uint8, t int32) bool {
		return a.thread == 0 || a.phase != ph || a.thread == t && aPer == per
	}
	t := int32(first) + 1
	for i := range segs {
		seg := &segs[i]
		if seg.mat || !quiet(&seg.w, seg.wPer, t) || !quiet(&seg.r, seg.rPer, t) {
			return false
		}
		t += step
	}
	me := rs.access(op, first)
	rs.segsUsed = true
	for i := range segs {
		seg := &segs[i]
		switch {
		case op.write:
			seg.w, seg.wPer = me, per
		case seg.r.phase != ph:
			seg.r, seg.rPer = me, per
		}
		me.thread += step
	}
	return true
}
