package ptxexec

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// patternPTX copies in[idx] to out[idx] for each thread below n, idx =
// ((global thread index * stride) ^ xor) + off, in words of WORD bytes.
const patternPTX = `
.version 7.8
.target sm_90
.address_size 64
.visible .entry pattern(.param .u64 pin, .param .u64 pout, .param .u32 pstride, .param .u32 pxor, .param .u32 poff, .param .u32 pn)
{
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [pin];
	ld.param.u64 %rd2, [pout];
	ld.param.u32 %r1, [pstride];
	ld.param.u32 %r2, [pxor];
	ld.param.u32 %r3, [poff];
	ld.param.u32 %r4, [pn];
	mov.u32 %r5, %ctaid.x;
	mov.u32 %r6, %ntid.x;
	mov.u32 %r7, %tid.x;
	mad.lo.s32 %r8, %r5, %r6, %r7;
	setp.ge.u32 %p1, %r8, %r4;
	@%p1 bra DONE;
	mul.lo.s32 %r9, %r8, %r1;
	xor.b32 %r9, %r9, %r2;
	add.s32 %r9, %r9, %r3;
	mul.wide.u32 %rd3, %r9, WORD;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.uBITS %VAL, [%rd4];
	add.s64 %rd5, %rd2, %rd3;
	st.global.uBITS [%rd5], %VAL;
DONE:
	ret;
}
`

// patternRecorder records the accesses it is told of; as a
// GlobalRaceObserver (perLaneRecorder) it makes the launch check each
// thread's access, which takes the lane-by-lane path.
type patternRecorder struct {
	mu   sync.Mutex
	seen []Access
}

func (r *patternRecorder) Global(a Access) {
	r.mu.Lock()
	r.seen = append(r.seen, a)
	r.mu.Unlock()
}

func (r *patternRecorder) accesses() []Access {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// perLaneRecorder keeps a full warp's access (the in-kernel checks
// report one where all lanes' words follow one another, Access.Lanes) a
// lane at a time.
type perLaneRecorder struct{ patternRecorder }

func (*perLaneRecorder) GlobalRace(GlobalRace) {}

func (r *perLaneRecorder) Global(a Access) {
	if a.Lanes <= 1 {
		r.patternRecorder.Global(a)
		return
	}
	n := a.Size / a.Lanes
	for j := range a.Lanes {
		l := a
		l.Addr, l.Size, l.Lanes = a.Addr+uint64(j*n), n, 0
		l.Thread[0] += j
		r.patternRecorder.Global(l)
	}
}

// byteRange is [lo, hi) of one kind.
type byteRange struct {
	kind   AccessKind
	lo, hi uint64
}

// ranges returns the union of the accesses' bytes, per kind, as sorted
// disjoint ranges.
func ranges(seen []Access) []byteRange {
	rs := make([]byteRange, 0, len(seen))
	for _, a := range seen {
		rs = append(rs, byteRange{a.Kind, a.Addr, a.Addr + uint64(a.Size)})
	}
	slices.SortFunc(rs, func(a, b byteRange) int {
		if a.kind != b.kind {
			return int(a.kind) - int(b.kind)
		}
		if a.lo != b.lo {
			if a.lo < b.lo {
				return -1
			}
			return 1
		}
		return 0
	})
	var out []byteRange
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].kind == r.kind && r.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

type accessPattern struct {
	name               string
	word               int
	stride, xor, off   uint32
	n                  uint32 // threads that copy
	words              int    // the arrays' length, in words
	fault              bool   // some lane's address is out of bounds
	coalesced, scatter bool   // every full warp's access is one Access / one per lane
	runs               int    // else: how many Accesses (runs of lanes) in all
}

var accessPatterns = []accessPattern{
	{name: "coalesced32", word: 4, stride: 1, n: 256, words: 256, coalesced: true},
	{name: "coalesced64", word: 8, stride: 1, n: 256, words: 256, coalesced: true},
	{name: "offset", word: 4, stride: 1, off: 3, n: 256, words: 260, coalesced: true},
	{name: "partial-warp", word: 4, stride: 1, n: 200, words: 256, runs: 2 * 7}, // 6 full warps and one of 8 lanes
	{name: "strided", word: 4, stride: 2, n: 256, words: 512, scatter: true},
	{name: "strided64", word: 8, stride: 3, n: 256, words: 768, scatter: true},
	{name: "scattered", word: 4, stride: 1, xor: 5, n: 256, words: 256, scatter: true},
	{name: "reversed", word: 4, stride: 1, xor: 31, n: 256, words: 256, scatter: true},
	{name: "pairs", word: 4, stride: 1, xor: 2, n: 256, words: 256, runs: 2 * 8 * 16}, // lanes 0-1 at words 2-3, 2-3 at 0-1, ...
	{name: "broadcast", word: 4, stride: 0, off: 7, n: 256, words: 8, scatter: true},
	// A block program's warps load before any stores: block 0's 4 warps
	// load and store, block 1's load up to the lane that faults.
	{name: "out-of-bounds", word: 4, stride: 1, n: 256, words: 200, fault: true, runs: 2*4 + 2 + 1},         // block 1: 2 full warps and 8 lanes read, a fault
	{name: "out-of-bounds-partial", word: 4, stride: 1, n: 250, words: 230, fault: true, runs: 2*4 + 3 + 1}, // block 1: 3 full warps and 6 of 26 lanes read, a fault
}

// patternRun is what a run of a pattern gave.
type patternRun struct {
	seen      []Access
	out       []byte
	err       error
	pin, pout uint64
}

// runPattern runs pc's kernel with observer obs.
func runPattern(t *testing.T, pc accessPattern, obs interface {
	Observer
	accesses() []Access
}, globalRaces bool) patternRun {
	bits := fmt.Sprint(8 * pc.word)
	val := "%r10"
	if pc.word == 8 {
		val = "%rd6"
	}
	src := strings.NewReplacer("WORD", fmt.Sprint(pc.word), "BITS", bits, "%VAL", val).Replace(patternPTX)
	p, err := Compile(src)
	require.NoError(t, err)
	mem := newMem()
	in := make([]byte, pc.words*pc.word)
	for i := range in {
		in[i] = byte(i*7 + 1)
	}
	pin, pout := mem.alloc(len(in)), mem.alloc(len(in))
	copy(mem.bytes(pin), in)
	k := p.Kernels["pattern"]
	err = k.Run(&Launch{Grid: dim(2), Block: dim(128), Mem: mem, SMs: 132, Observe: obs, GlobalRaces: globalRaces,
		Params: params(t, k, pin, pout, pc.stride, pc.xor, pc.off, pc.n)})
	return patternRun{obs.accesses(), slices.Clone(mem.bytes(pout)), err, pin, pout}
}

// TestObservedWarpRangesMatchLanes: for a table of access patterns, the
// warp-wide paths tell an Observer of exactly the bytes, with exactly the
// kinds, that the lane-by-lane path (the one the in-kernel global checks
// take) tells it of, compute the same, and fault the same; a full warp's
// coalesced access is one Access (its first lane's thread, its 32 words),
// a strided or scattered one is one Access per lane.
func TestObservedWarpRangesMatchLanes(t *testing.T) {
	for _, pc := range accessPatterns {
		t.Run(pc.name, func(t *testing.T) {
			w := runPattern(t, pc, &patternRecorder{}, false)
			l := runPattern(t, pc, &perLaneRecorder{}, true)
			warp, out, err := w.seen, w.out, w.err
			lanes, laneOut, laneErr := l.seen, l.out, l.err
			if pc.fault {
				require.Error(t, err)
				require.Error(t, laneErr)
				assert.Equal(t, laneErr.Error(), err.Error())
			} else {
				require.NoError(t, err)
				require.NoError(t, laneErr)
			}
			assert.Equal(t, laneOut, out, "what the kernel wrote")
			require.NotEmpty(t, warp)
			assert.Equal(t, ranges(lanes), ranges(warp), "the bytes recorded, per kind")
			for _, a := range lanes {
				assert.EqualValues(t, pc.word, a.Size, "the lane-by-lane path reports each thread's access")
			}
			words := map[AccessKind]int{}
			for _, a := range warp {
				require.Zero(t, a.Size%uint32(pc.word))
				words[a.Kind] += int(a.Size) / pc.word
				assert.EqualValues(t, a.Size/uint32(pc.word), max(a.Lanes, 1), "Lanes counts the run's lanes")
				// Thread is the first lane of the run: its index gives Addr.
				i := a.Block[0]*128 + a.Thread[0]
				base := w.pin
				if a.Kind == Write {
					base = w.pout
				}
				assert.Equal(t, base+uint64(((i*pc.stride)^pc.xor)+pc.off)*uint64(pc.word), a.Addr, "the first lane's address")
				assert.NotZero(t, a.Line)
				assert.Contains(t, a.Instr, map[AccessKind]string{Read: "ld.global", Write: "st.global"}[a.Kind])
			}
			laneWords := map[AccessKind]int{}
			for _, a := range lanes {
				laneWords[a.Kind]++
			}
			assert.Equal(t, laneWords, words, "every thread's word is in exactly one Access")
			switch {
			case pc.coalesced:
				assert.Len(t, warp, 2*int(pc.n)/warpSize, "one Access per warp and instruction")
				for _, a := range warp {
					assert.EqualValues(t, warpSize*pc.word, a.Size)
					assert.Zero(t, a.Thread[0]%warpSize, "the first lane's thread")
				}
			case pc.scatter:
				assert.Len(t, warp, len(lanes), "one Access per lane")
			default:
				assert.Len(t, warp, pc.runs, "runs of consecutive lanes are one Access")
			}
		})
	}
}
