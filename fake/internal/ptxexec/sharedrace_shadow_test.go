package ptxexec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// byteShadow is the shared-memory check as it was before raceState kept
// its shadow per word: one record per byte, every byte checked in turn.
// TestSharedShadowMatchesBytes holds raceState to its reports.
type byteShadow struct {
	shadow   []shadowByte
	phase    uint32
	warpSync []uint32
	held     []heldWrite
}

func (rs *byteShadow) record(to sharedReporter, me shadowAccess, write, acquires bool, off, n uint64, shared []byte) {
	if len(rs.held) != 0 {
		rs.settle(to, shared)
	}
	if off+n > uint64(len(rs.shadow)) {
		return
	}
	reported, acquired := false, false
	var held *heldWrite
	for b := off; b < off+n; b++ {
		sh := &rs.shadow[b]
		if held == nil && !acquires && sh.w.phase != me.phase && sh.r1.phase != me.phase && sh.r2.phase != me.phase {
			if write {
				sh.w = me
			} else {
				sh.r1, sh.r2 = me, shadowAccess{}
			}
			continue
		}
		if held != nil && sh.w.thread == held.first.thread && sameSite(&sh.w, &held.first) && unordered(&sh.w, &me) {
			held.mask |= 1 << (b - uint64(held.off))
		}
		if acquires && sh.w.atomic() && sh.w.thread != 0 && sh.w.thread != me.thread {
			acquired = true
		}
		if !reported {
			var other *shadowAccess
			switch {
			case unordered(&sh.w, &me) && !(sh.w.atomic() && me.atomic()):
				other = &sh.w
			case write && unordered(&sh.r1, &me) && !(sh.r1.atomic() && me.atomic()):
				other = &sh.r1
			case write && unordered(&sh.r2, &me) && !(sh.r2.atomic() && me.atomic()):
				other = &sh.r2
			}
			switch {
			case other == &sh.w && write && !me.atomic() && !sh.w.atomic() && off+n-b <= uint64(len(held.before)):
				rs.held = append(rs.held, heldWrite{first: sh.w, second: me, off: uint32(b), mask: 1})
				held = &rs.held[len(rs.held)-1]
				copy(held.before[:], shared[b:off+n])
				reported = true
			case other != nil:
				to.reportRace(*other, other == &sh.w, me, write, uint32(b))
				reported = true
			}
		}
		switch {
		case write:
			sh.w = me
		case sh.r1.phase != me.phase || sh.r1.thread == 0:
			sh.r1, sh.r2 = me, shadowAccess{}
		case sh.r1.thread != me.thread && (sh.r2.phase != me.phase ||
			sameWarpShared(sh.r2.thread, sh.r1.thread) && !sameWarpShared(me.thread, sh.r1.thread)):
			sh.r2 = me
		}
	}
	if acquired {
		rs.phase++
	}
}

func (rs *byteShadow) settle(to sharedReporter, shared []byte) {
	for i := range rs.held {
		h := &rs.held[i]
		for j := uint32(0); h.mask>>j != 0; j++ {
			if h.mask>>j&1 != 0 && shared[h.off+j] != h.before[j] {
				to.reportRace(h.first, true, h.second, true, h.off)
				break
			}
		}
	}
	rs.held = rs.held[:0]
}

// shadowReports is a sharedReporter that keeps each pair of sites' first
// report, as machine.reportRace does.
type shadowReports struct {
	seen map[[2]uint32]bool
	got  []string
}

func (r *shadowReports) reportRace(a shadowAccess, firstWrite bool, me shadowAccess, write bool, off uint32) {
	key := [2]uint32{a.site &^ siteAtomic, me.site &^ siteAtomic}
	if r.seen == nil {
		r.seen = map[[2]uint32]bool{}
	}
	if r.seen[key] {
		return
	}
	r.seen[key] = true
	r.got = append(r.got, fmt.Sprintf("%+v w=%v / %+v w=%v @%d", a, firstWrite, me, write, off))
}

// shadowOps are the kinds of shared access the random programs use.
var shadowOps = []sharedOp{
	{site: 1},                                           // ld.shared
	{site: 2, write: true},                              // st.shared
	{site: 3 | siteAtomic, acquires: true},              // ld.volatile.shared
	{site: 4 | siteAtomic, write: true},                 // st.volatile.shared
	{site: 5 | siteAtomic, write: true, acquires: true}, // atom.shared.exch
	{site: 6 | siteAtomic, write: true},                 // atom.shared.add
	{site: 7, write: true},                              // st.shared, another line
	{site: 8},                                           // ld.shared, another line
}

// TestSharedShadowMatchesBytes runs random programs of shared accesses
// (1 to 16 bytes, aligned or not, plain and strong, stores of the same
// or new values, barriers, new blocks, warp collectives, runs of lanes,
// whole segments, a warp's scattered, broadcast and row loads) through
// raceState and through the per-byte byteShadow, and wants the same
// reports in the same order.
func TestSharedShadowMatchesBytes(t *testing.T) {
	const threads = 96
	total, runs, segs, bcast := 0, 0, 0, 0
	defer func() {
		t.Logf("%d reports, %d runs of lanes in one call (%d by whole segments), %d lanes of warp loads", total, runs, segs, bcast)
	}()
	for seed := range uint64(400) {
		rnd := rand.New(rand.NewPCG(seed, 30))
		size := 64 + int(seed%4) // not always whole words
		if seed%2 == 1 {
			size += 192 // four segments
		}
		ws := newShadow(nil, size, threads)
		bs := &byteShadow{shadow: make([]shadowByte, size), warpSync: make([]uint32, threads/warpSize)}
		var wr, br shadowReports
		wmem, bmem := make([]byte, size), make([]byte, size)
		store := func(off, n uint64) {
			v, each := byte(rnd.IntN(3)), rnd.IntN(2) == 0 // often the same value
			for i := off; i < off+n && i < uint64(size); i++ {
				if each {
					v = wmem[i] ^ byte(rnd.IntN(2)) // some bytes change, some not
				}
				wmem[i], bmem[i] = v, v
			}
		}
		ws.phase, bs.phase = 1, 1
		for range 300 {
			switch r := rnd.IntN(40); {
			case r == 0:
				ws.phase++
				bs.phase++
			case r == 2:
				// A new block: none of the old block's records count.
				ws.settle(&wr, wmem)
				bs.settle(&br, bmem)
				ws.startBlock()
				bs.phase++
				clear(bs.shadow)
			case r == 1:
				w := rnd.IntN(threads / warpSize)
				ws.warpSync[w]++
				bs.warpSync[w]++
			case r < 5:
				// A run of lanes of one warp, consecutive addresses.
				op := shadowOps[rnd.IntN(len(shadowOps))]
				n := []uint64{1, 2, 4, 8}[rnd.IntN(4)]
				lanes := 1 + rnd.IntN(8)
				first := rnd.IntN(threads/warpSize)*warpSize + rnd.IntN(warpSize-lanes+1)
				off := uint64(rnd.IntN(size/int(n))) * n
				if n >= 4 && rnd.IntN(2) == 0 {
					// Whole segments (sharedSegWords words), as a warp's
					// or a half-warp's run of floats: quietSegs's case.
					lanes = sharedSegWords * 4 / int(n) * (1 + rnd.IntN(2))
					first = rnd.IntN(threads/warpSize)*warpSize + rnd.IntN(warpSize-lanes+1)
					off = uint64(rnd.IntN(size/(4*sharedSegWords))) * 4 * sharedSegWords
				}
				if off+n*uint64(lanes) > uint64(size) {
					continue
				}
				// As machine.sharedRun and its caller: the run in one call
				// (a store's after it) where it is quiet, else lane by lane.
				if len(ws.held) != 0 {
					ws.settle(&wr, wmem)
				}
				before := slices.Clone(ws.segs)
				whole := ws.run(&wr, op, first, lanes, off, n, wmem)
				if whole {
					runs++
					for i := range before {
						if !before[i].mat && !ws.segs[i].mat && ws.segs[i] != before[i] {
							segs++ // recorded by quietSegs
							break
						}
					}
				}
				for j := range lanes {
					lo := off + uint64(j)*n
					if !whole {
						ws.settle(&wr, wmem)
						me := ws.access(op, first+j)
						ws.record(&wr, me, op.write, op.acquires, lo, n, wmem)
					}
					me := shadowAccess{thread: int32(first+j) + 1, phase: bs.phase, wsync: bs.warpSync[(first+j)/warpSize], site: op.site}
					bs.record(&br, me, op.write, op.acquires, lo, n, bmem)
					if op.write {
						store(lo, n)
					}
				}
			case r < 8:
				// A warp's scattered load, often a broadcast (lanes in a
				// row reading one word), as machine.sharedLanes.
				op := shadowOps[[]int{0, 2, 7}[rnd.IntN(3)]]
				n := []uint64{4, 4, 4, 8, 2}[rnd.IntN(5)]
				w := rnd.IntN(threads / warpSize)
				offs := make([]uint64, warpSize)
				for j := range offs {
					switch r := rnd.IntN(8); {
					case j > 0 && r < 4:
						offs[j] = offs[j-1] // the previous lane's word
					case j > 0 && r < 6 && offs[j-1]+2*n <= uint64(size):
						offs[j] = offs[j-1] + n // the next one (a row of a tile)
					default:
						offs[j] = uint64(rnd.IntN(size/int(n))) * n
					}
				}
				if len(ws.held) != 0 {
					ws.settle(&wr, wmem)
				}
				bcast += len(offs)
				ws.loadLanes(&wr, op, w*warpSize, offs, n, wmem)
				for j, off := range offs {
					tid := w*warpSize + j
					bme := shadowAccess{thread: int32(tid) + 1, phase: bs.phase, wsync: bs.warpSync[w], site: op.site}
					bs.record(&br, bme, op.write, op.acquires, off, n, bmem)
				}
			default:
				op := shadowOps[rnd.IntN(len(shadowOps))]
				n := []uint64{1, 2, 4, 8, 16, 3}[rnd.IntN(6)]
				off := uint64(rnd.IntN(size))
				if rnd.IntN(4) != 0 {
					off &^= min(n, 8) - 1
				}
				tid := rnd.IntN(threads)
				if len(ws.held) != 0 {
					ws.settle(&wr, wmem)
				}
				me := ws.access(op, tid)
				ws.record(&wr, me, op.write, op.acquires, off, n, wmem)
				bme := shadowAccess{thread: int32(tid) + 1, phase: bs.phase, wsync: bs.warpSync[tid/warpSize], site: op.site}
				bs.record(&br, bme, op.write, op.acquires, off, n, bmem)
				if op.write {
					store(off, n)
				}
			}
			require.Equal(t, bs.phase, ws.phase, "seed %d: the phases (acquisitions) agree", seed)
		}
		ws.settle(&wr, wmem)
		bs.settle(&br, bmem)
		require.Equal(t, br.got, wr.got, "seed %d", seed)
		total += len(br.got)
	}
}

// TestSharedShadowBytesOfOneWord: two threads each write their own byte
// of one word with no barrier between, then each reads its own byte:
// the per-word shadow must not take them for a race (it splits the
// word), and a third thread's unordered read of the whole word must
// still meet both writes.
func TestSharedShadowBytesOfOneWord(t *testing.T) {
	rs := newShadow(nil, 8, 64)
	rs.phase = 1
	var got shadowReports
	mem := make([]byte, 8)
	st, ld, ld2 := sharedOp{site: 1, write: true}, sharedOp{site: 2}, sharedOp{site: 3}
	do := func(op sharedOp, tid int, off, n uint64) {
		rs.settle(&got, mem)
		me := rs.access(op, tid)
		rs.record(&got, me, op.write, op.acquires, off, n, mem)
		if op.write {
			mem[off] = byte(tid + 1)
		}
	}
	do(st, 0, 0, 1)
	do(st, 33, 1, 1) // another warp, the next byte
	do(ld, 0, 0, 1)
	do(ld, 33, 1, 1)
	rs.settle(&got, mem)
	assert.Empty(t, got.got, "bytes of one word touched by different threads do not race")
	assert.True(t, rs.split[0], "the word is kept per byte")

	do(ld2, 40, 0, 4)
	rs.settle(&got, mem)
	require.Len(t, got.got, 1, "the word read races with the writes (one report per pair of sites)")
	assert.Contains(t, got.got[0], "@0", "at the first byte, written by thread 0")

	rs.phase++ // a barrier
	do(st, 5, 0, 4)
	assert.False(t, rs.split[0], "a whole-word write after a barrier makes the word one record again")
	do(st, 6, 0, 4)
	rs.settle(&got, mem)
	assert.Len(t, got.got, 2, "and a race on the merged word is still found")
}
