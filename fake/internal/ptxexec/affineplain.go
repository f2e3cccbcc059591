package ptxexec

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/nocgo/cuda/fake/internal/ptxexec/lanes"
)

// plainAffineAccess is affineAccess where m.checked(in) is false (no
// Observer, no race checks on in's space), the case of every launch
// without checks: a scalar 4- or 8-byte ld or st, for the threads of
// act, whose address slot has a form of stride size for them and whose
// first and last active thread's addresses lie in one known allocation
// (spanAt's), aligned, is one run of bytes: thread t's at off0 +
// size*(t-t0). whole says act is every lane of every warp (runBlock's
// full); full warps side by side (m.file: all of them when whole, or a
// run of them) move in one call of package lanes, the lanes of a partial
// warp one by one. It reports whether it did (false: nothing
// done, and the lane paths run, to the lane that faults).
//
// It is affineAccess's own code with checks false, a separate function
// so that a launch without checks pays for none of their set-up (the
// deferred calls of affineAccess run at each of its returns) and the
// caller's knowledge of a whole block spares the scan for t0 and t1.
func (m *machine) plainAffineAccess(in *inst, act *blockMask, whole bool) bool {
	if in.vec != 1 || in.size != 4 && in.size != 8 || in.v[0] == sSink {
		return false
	}
	nw := len(m.warps)
	t0, t1 := 0, len(m.threads)-1
	w0, w1 := 0, nw-1 // the warps of t0 and t1
	if !whole {
		var some bool
		if w0, w1, some = activeWarps(act, nw); !some {
			return true
		}
		t0 = 32*w0 + bits.TrailingZeros32(act[w0])
		t1 = 32*w1 + 31 - bits.LeadingZeros32(act[w1])
	}
	data, off0, _, ok := m.affineRun(in, act, t0, t1)
	if !ok {
		return false
	}
	size := uint64(in.size)
	load := in.op != opStGlobal && in.op != opStShared
	if !load {
		m.materialise(in.v[0]) // (a no-op unless the value has a form)
	}
	if whole && m.file.N > 0 && len(m.threads) == warpSize*nw {
		m.moveRun(m.file, in, load, data[off0:off0+uint64(t1+1)*size])
		return true
	}
	for w := w0; w <= w1; w++ {
		a := act[w]
		if a == 0 {
			continue
		}
		o := off0 + size*uint64(32*w-t0) // lane 0's offset (it may lie below data: only set lanes are used)
		if a == allLanes {
			e := w + 1 // warps w..e-1 are full: one call of package lanes when side by side
			for e <= w1 && act[e] == allLanes {
				e++
			}
			if e-w > 1 && m.file.N > 0 {
				f := lanes.Warps{S: m.file.S[w*m.file.Slots*warpSize:], Slots: m.file.Slots, N: e - w}
				m.moveRun(f, in, load, data[o:o+uint64(e-w)*warpSize*size])
				w = e - 1
				continue
			}
			moveWarp(lane32(m.soas[w], in.v[0]), data, o, size, load)
			continue
		}
		moveLanes(lane32(m.soas[w], in.v[0]), a, data, o, size, load)
	}
	return true
}

// affineLdSt runs the affine ld or st in for the threads of act as
// runBlock's loops do: affineAccess when in is checked (pc is the index
// after in's), plainAffineAccess otherwise (whole: act is every lane of
// every warp). It reports whether it did (false: nothing done).
func (m *machine) affineLdSt(in *inst, act *blockMask, whole bool, pc int) bool {
	if m.checked(in) {
		return m.affineAccess(in, act, pc)
	}
	return m.plainAffineAccess(in, act, whole)
}

// affineRun returns where the threads t0..t1 of act access memory in the
// ld or st in, when that is one run of bytes: in's address slot has a
// form of stride in.size (4 or 8) for them, and the first and last
// thread's addresses lie in one known allocation (spanAt's), aligned.
// Thread t's bytes are then data[off0+size*(t-t0):], up to
// data[off0+size*(t1-t0+1)]; a0 is thread t0's address (without in's
// offset). ok false: not one run (or not known to be in bounds), and the
// lane paths decide.
func (m *machine) affineRun(in *inst, act *blockMask, t0, t1 int) (data []byte, off0, a0 uint64, ok bool) {
	base, stride, mask, ok := m.operand(in.a, act, true)
	size := uint64(in.size)
	if !ok || stride != size || mask != math.MaxUint64 {
		return nil, 0, 0, false
	}
	a0 = base + stride*uint64(t0)
	a1 := a0 + stride*uint64(t1-t0)
	data, start, lim, amask, ok := m.spanAt(in, a0)
	if !ok || a1 < a0 {
		return nil, 0, 0, false
	}
	off0, off1 := a0-start, a1-start
	if off0 > off1 || off1 > lim || (a0+uint64(in.imm))&amask != 0 {
		return nil, 0, 0, false
	}
	return data, off0, a0, true
}

// activeWarps returns the first and last of the nw warps with threads in
// act; some false: none has.
func activeWarps(act *blockMask, nw int) (w0, w1 int, some bool) {
	for w0 < nw && act[w0] == 0 {
		w0++
	}
	if w0 == nw {
		return 0, 0, false
	}
	w1 = nw - 1
	for act[w1] == 0 {
		w1--
	}
	return w0, w1, true
}

// moveRun loads in's value register of the warps of f from run, or
// stores it there (load false): 32*in.size bytes a warp, in order.
func (m *machine) moveRun(f lanes.Warps, in *inst, load bool, run []byte) {
	switch {
	case load && in.size == 4:
		f.Load32(in.v[0], run)
	case load:
		f.Load64(in.v[0], run)
	case in.size == 4:
		f.Store32(run, in.v[0])
	default:
		f.Store64(run, in.v[0])
	}
}

// moveWarp loads the 32 lanes of register rv from their bytes in data
// (lane j's at o + size*j, size 4 or 8), or stores them there (load
// false).
func moveWarp(rv *[warpSize]uint64, data []byte, o, size uint64, load bool) {
	switch {
	case load && size == 4:
		lanes.Load32(rv, (*[128]byte)(data[o:]))
	case load:
		lanes.Load64(rv, (*[256]byte)(data[o:]))
	case size == 4:
		lanes.Store32((*[128]byte)(data[o:]), rv)
	default:
		lanes.Store64((*[256]byte)(data[o:]), rv)
	}
}

// moveLanes loads the lanes of a of register rv from their bytes in data
// (lane j's at o + size*j), or stores them there (load false).
func moveLanes(rv *[warpSize]uint64, a uint32, data []byte, o, size uint64, load bool) {
	switch {
	case load && size == 4:
		for ; a != 0; a &= a - 1 {
			j := uint64(bits.TrailingZeros32(a))
			rv[j] = uint64(binary.LittleEndian.Uint32(data[o+4*j:]))
		}
	case load:
		for ; a != 0; a &= a - 1 {
			j := uint64(bits.TrailingZeros32(a))
			rv[j] = binary.LittleEndian.Uint64(data[o+8*j:])
		}
	case size == 4:
		for ; a != 0; a &= a - 1 {
			j := uint64(bits.TrailingZeros32(a))
			binary.LittleEndian.PutUint32(data[o+4*j:], uint32(rv[j]))
		}
	default:
		for ; a != 0; a &= a - 1 {
			j := uint64(bits.TrailingZeros32(a))
			binary.LittleEndian.PutUint64(data[o+8*j:], rv[j])
		}
	}
}
