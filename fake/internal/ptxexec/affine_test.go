package ptxexec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAffineTranslation checks which of axpy's instructions keep the
// affine form (the index, the predicate, the byte offset and the three
// addresses) and that, run on one block, the addresses are never
// written to the warps' registers: the loads and the store read them as
// base and stride.
func TestAffineTranslation(t *testing.T) {
	p, mem := load(t, "90")
	k := p.Kernels["axpy"]
	bp := k.blockProgram(&Launch{})
	require.NotNil(t, bp)
	var affine []string
	for i := range k.fn.code {
		if bp.affine[i] {
			affine = append(affine, strings.Fields(k.fn.stmts[i].String())[0])
		}
	}
	assert.Equal(t, []string{"mad.lo.s32", "setp.ge.s32", "mul.wide.s32", "add.s64", "add.s64", "add.s64"}, affine)

	const n = 256
	xs, ys := f32Ramp(n, 0.37, -3), f32Ramp(n, 0.11, 1)
	px, py, out := mem.f32s(xs), mem.f32s(ys), mem.alloc(4*n)
	l := &Launch{Grid: dim(2), Block: dim(n), Params: packAxpy(k, px, py, out, 2*n-10), Mem: mem, SMs: 1}
	m := k.newMachine(l, n, nil)
	m.setBlock(0)
	m.startBlock()
	require.NoError(t, m.runBlock()) // the first block fills the allocation cache
	m.startBlock()
	require.NoError(t, m.runBlock())
	require.True(t, m.aff)
	for i := range k.fn.code {
		in := &k.fn.code[i]
		if in.op != opLdGlobal && in.op != opStGlobal {
			continue
		}
		f := m.forms[bp.fidx[in.a]]
		assert.True(t, f.ok && !f.mat, "the address of %v: a form only", k.fn.stmts[i])
		assert.Equal(t, uint64(4), f.stride)
	}
	got := mem.readF32(out, n)
	for i := range n {
		require.Equal(t, 2*xs[i]+ys[i], got[i], "element %d", i)
	}

	// A 2-D block keeps no forms: %tid.x is not the thread's index.
	l2 := &Launch{Grid: dim(1), Block: [3]uint32{32, 2, 1}, Params: l.Params, Mem: mem}
	m2 := k.newMachine(l2, 64, nil)
	m2.setBlock(0)
	m2.startBlock()
	require.NoError(t, m2.runBlock())
	assert.False(t, m2.aff)
}

// runBothWays runs k on its block program and on the general scheduler
// (Launch.scheduler) on fresh memory from args, and the block program
// also with the race checks on (which keep no affine forms), and checks
// that all end with the same error and, without one, the same bytes; it
// returns the block program's memory and error.
func runBothWays(t *testing.T, p *Program, k *Kernel, grid, block [3]uint32, args func(m *testMem) []any) (*testMem, error) {
	t.Helper()
	require.NotNil(t, k.blockProgram(&Launch{}))
	run := func(scheduler, checks bool) (*testMem, error) {
		mem := newMem()
		mem.bind(p)
		err := k.Run(&Launch{Grid: grid, Block: block, Params: params(t, k, args(mem)...), Mem: mem, SMs: 4,
			scheduler: scheduler, SharedRaces: checks, GlobalRaces: checks})
		return mem, err
	}
	fast, errFast := run(false, false)
	for _, other := range [][2]bool{{true, false}, {false, true}} {
		general, errGeneral := run(other[0], other[1])
		assert.Equal(t, errGeneral, errFast, "scheduler %v, race checks %v", other[0], other[1])
		if errFast != nil {
			continue // (which stores ran before the fault: warp by warp, or instruction by instruction)
		}
		require.Len(t, fast.allocs, len(general.allocs))
		for i := range fast.allocs {
			assert.True(t, bytes.Equal(general.allocs[i].data, fast.allocs[i].data), "allocation %d differs (scheduler %v, race checks %v)", i, other[0], other[1])
		}
	}
	return fast, errFast
}

// affineWrap stores, for thread t, i*4 as mul.wide.s32 makes it of
// i = base + t (+ %ctaid.x, 0: so that the block computes it, not the
// launch; a 32-bit add that wraps past 2^31 within the block when base
// is near it), and loads p[i - base] through the address
// p + (i*4 - base*4): for the threads whose i wrapped that address lies
// 2^34 bytes below p, and the load faults. (Its first load, of p[0],
// puts p's allocation in the machine's cache.)
const affineWrap = `.visible .entry wrap(.param .u64 out, .param .u32 base, .param .u64 p, .param .u32 load)
{
	.reg .pred %p<3>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<14>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [base];
	ld.param.u64 %rd2, [p];
	ld.param.u32 %r6, [load];
	mov.u32 %r2, %tid.x;
	mov.u32 %r7, %ctaid.x;
	add.s32 %r3, %r1, %r2;
	add.s32 %r8, %r3, %r7;
	ld.global.u32 %r4, [%rd2];
	mul.wide.s32 %rd3, %r8, 4;
	mul.wide.u32 %rd4, %r2, 8;
	add.s64 %rd5, %rd1, %rd4;
	st.global.u64 [%rd5], %rd3;
	setp.eq.s32 %p1, %r6, 0;
	@%p1 bra DONE;
	mul.wide.s32 %rd9, %r1, 4;
	sub.s64 %rd10, %rd3, %rd9;
	add.s64 %rd11, %rd2, %rd10;
	ld.global.u32 %r5, [%rd11];
	st.global.u32 [%rd5+4], %r5;
DONE:
	ret;
}
`

// TestAffineWrap runs affineWrap with an index that stays below 2^31
// and with one that wraps in the block: the results are the exact
// sign-extended products either way (the wrapping block falls back to
// the warps' registers), and the load faults at the first thread whose
// index wrapped, as on the general scheduler.
func TestAffineWrap(t *testing.T) {
	p, err := Compile(header + affineWrap)
	require.NoError(t, err)
	k := p.Kernels["wrap"]
	const threads = 256
	for _, base := range []uint32{5, 0x7fffffff - 300, 0x7fffffff - 100, 0xfffffff0} {
		for _, load := range []uint32{0, 1} {
			t.Run(fmt.Sprintf("base=%#x/load=%d", base, load), func(t *testing.T) {
				var out uint64
				mem, err := runBothWays(t, p, k, dim(1), dim(threads), func(m *testMem) []any {
					out = m.alloc(8 * threads)
					src := make([]int32, threads)
					for i := range src {
						src[i] = int32(1000 + i)
					}
					return []any{out, base, m.i32s(src), load}
				})
				wraps := base <= 0x7fffffff && base+threads-1 > 0x7fffffff
				if load == 1 && wraps {
					require.Error(t, err)
					first := 0x80000000 - base // the first thread whose i is negative
					assert.Contains(t, err.Error(), fmt.Sprintf("thread [%d 0 0]", first))
					return
				}
				require.NoError(t, err)
				b := mem.bytes(out)
				for i := range uint32(threads) {
					want := int64(int32(base+i)) * 4
					got := int64(binary.LittleEndian.Uint64(b[8*i:]))
					if load == 1 {
						want = want&0xffffffff | int64(1000+i)<<32
					}
					require.Equal(t, want, got, "thread %d", i)
				}
			})
		}
	}
}

// affineCmp's threads compute v = base + stride*t and set a predicate
// from v CMP u: a guarded store of v (a range of threads, or all but
// one) and, through selp (which reads the predicate's lanes), 1 or 2 for
// every thread.
const affineCmp = `.visible .entry cmp_{{M}}_{{T}}(.param .u64 out, .param .u32 base, .param .u32 stride, .param .u32 u)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [base];
	ld.param.u32 %r2, [stride];
	ld.param.u32 %r3, [u];
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r4, %r2, %r1;
	setp.{{M}}.{{T}} %p1, %r5, %r3;
	mul.wide.u32 %rd2, %r4, 4;
	add.s64 %rd3, %rd1, %rd2;
	@%p1 st.global.u32 [%rd3+4096], %r5;
	selp.u32 %r6, 1, 2, %p1;
	st.global.u32 [%rd3], %r6;
	ret;
}
`

// TestAffineSetp runs every integer comparison of an affine value
// against a uniform one, signed and unsigned, over ranges that start,
// end or flip inside a warp, strides up and down, equality hitting one
// thread, and values that wrap within the block: the same memory as the
// general scheduler, and the values a Go loop computes.
func TestAffineSetp(t *testing.T) {
	var src strings.Builder
	src.WriteString(header)
	modes := []string{"eq", "ne", "lt", "le", "gt", "ge"}
	for _, m := range modes {
		for _, ty := range []string{"s32", "u32"} {
			src.WriteString(strings.NewReplacer("{{M}}", m, "{{T}}", ty).Replace(affineCmp))
		}
	}
	p, err := Compile(src.String())
	require.NoError(t, err)
	cases := [][3]uint32{
		{0, 1, 100}, {1000, ^uint32(2), 400}, {5, 0, 5}, {10, 7, 10 + 7*33}, {10, 7, 11},
		{0x7fffff80, 1, 0x7fffffa0}, {0xffffff80, 1, 3}, {0, ^uint32(0), 0}, {0x80000010, ^uint32(0), 0x80000000},
	}
	for _, m := range modes {
		for _, ty := range []string{"s32", "u32"} {
			k := p.Kernels["cmp_"+m+"_"+ty]
			for _, block := range []uint32{256, 200} {
				for _, c := range cases {
					t.Run(fmt.Sprintf("%s.%s/%d/%v", m, ty, block, c), func(t *testing.T) {
						var out uint64
						mem, err := runBothWays(t, p, k, dim(2), dim(block), func(mm *testMem) []any {
							out = mm.alloc(8192)
							return []any{out, c[0], c[1], c[2]}
						})
						require.NoError(t, err)
						b := mem.bytes(out)
						for i := range block {
							v := c[0] + c[1]*i
							pred := cmpUnsigned(cmpNames[m], uint64(v), uint64(c[2]))
							if ty == "s32" {
								pred = cmpSigned(cmpNames[m], int64(int32(v)), int64(int32(c[2])))
							}
							want, wantV := uint32(2), uint32(0)
							if pred {
								want, wantV = 1, v
							}
							require.Equal(t, want, binary.LittleEndian.Uint32(b[4*i:]), "thread %d", i)
							require.Equal(t, wantV, binary.LittleEndian.Uint32(b[4096+4*i:]), "thread %d", i)
						}
					})
				}
			}
		}
	}
}

// TestAffinePartialRuns runs block_sum's tree (whose last steps run a
// prefix of a warp: a run copied without lane-by-lane checks) with
// blocks of 256 down to 16 threads (a partial warp), on both paths.
func TestAffinePartialRuns(t *testing.T) {
	p, _ := load(t, "90")
	k := p.Kernels["block_sum"]
	for _, block := range []uint32{256, 128, 64, 32, 16} {
		t.Run(fmt.Sprint(block), func(t *testing.T) {
			var total uint64
			mem, err := runBothWays(t, p, k, dim(4), dim(block), func(m *testMem) []any {
				total = m.f32s([]float32{0})
				return []any{m.f32s(f32Ramp(int(4*block), 1, 0)), total, int32(4*block - 3)}
			})
			require.NoError(t, err)
			want := float32(0)
			for i, v := range f32Ramp(int(4*block), 1, 0) {
				if i < int(4*block-3) {
					want += v
				}
			}
			assert.Equal(t, want, mem.readF32(total, 1)[0])
		})
	}
}

// affineShrink's threads below s compute r = 4*s in a loop that halves s:
// each round a smaller group rewrites r's form, and the threads that
// dropped out keep their last value, 4 times the smallest s above them,
// which they store after the loop.
const affineShrink = `.visible .entry shrink(.param .u64 out)
{
	.reg .pred %p<4>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r2, %tid.x;
	mov.u32 %r9, 128;
LOOP:
	setp.ge.s32 %p3, %r2, %r9;
	@%p3 bra SKIP;
	mul.wide.s32 %rd9, %r9, 4;
SKIP:
	shr.u32 %r9, %r9, 1;
	setp.ne.s32 %p2, %r9, 0;
	@%p2 bra LOOP;
	setp.ge.u32 %p1, %r2, 128;
	@%p1 bra DONE;
	mul.wide.u32 %rd2, %r2, 8;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u64 [%rd3], %rd9;
DONE:
	ret;
}
`

// TestAffineShrinkingGroups runs affineShrink: a form rewritten by fewer
// threads is first written to the registers of those it leaves.
func TestAffineShrinkingGroups(t *testing.T) {
	p, err := Compile(header + affineShrink)
	require.NoError(t, err)
	k := p.Kernels["shrink"]
	require.True(t, k.blockProgram(&Launch{}).affine[3], "the loop's mul.wide keeps a form")
	var out uint64
	mem, err := runBothWays(t, p, k, dim(2), dim(256), func(m *testMem) []any {
		out = m.alloc(8 * 128)
		return []any{out}
	})
	require.NoError(t, err)
	b := mem.bytes(out)
	for i := range 128 {
		s := 1
		for s <= i {
			s *= 2
		}
		require.Equal(t, uint64(4*s), binary.LittleEndian.Uint64(b[8*i:]), "thread %d", i)
	}
}

// affineSquare's mad.lo of %tid.x by itself is quadratic in the thread
// index: it runs on lanes, reading %ctaid.x's register, which a block
// keeping affine forms writes only then.
const affineSquare = `.visible .entry square(.param .u64 out)
{
	.reg .b32 %r<10>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r4, %r2, %r3, %r1;
	mad.lo.s32 %r5, %r1, %r1, %r2;
	mul.wide.u32 %rd2, %r4, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r5;
	ret;
}
`

// TestAffineFallbackReadsBlockSlots runs affineSquare over 3 blocks:
// thread t of block b stores t*t + b.
func TestAffineFallbackReadsBlockSlots(t *testing.T) {
	p, err := Compile(header + affineSquare)
	require.NoError(t, err)
	k := p.Kernels["square"]
	bp := k.blockProgram(&Launch{})
	assert.Empty(t, bp.laneBlock, "%ctaid.x is read only by affine instructions")
	var out uint64
	mem, err := runBothWays(t, p, k, dim(3), dim(64), func(m *testMem) []any {
		out = m.alloc(4 * 3 * 64)
		return []any{out}
	})
	require.NoError(t, err)
	got := mem.readI32(out, 3*64)
	for b := range 3 {
		for i := range 64 {
			require.Equal(t, int32(i*i+b), got[64*b+i], "block %d thread %d", b, i)
		}
	}
}

// affineWiden stores, for thread t, i = base + t + %ctaid.x converted by
// cvt.s64.s32, cvt.u64.u32 and cvt.u16.u32 (then widened back).
const affineWiden = `.visible .entry widen(.param .u64 out, .param .u32 base)
{
	.reg .b16 %h<2>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<14>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [base];
	mov.u32 %r2, %tid.x;
	mov.u32 %r7, %ctaid.x;
	add.s32 %r3, %r1, %r2;
	add.s32 %r8, %r3, %r7;
	cvt.s64.s32 %rd2, %r8;
	cvt.u64.u32 %rd3, %r8;
	cvt.u16.u32 %h1, %r8;
	cvt.u64.u16 %rd4, %h1;
	mul.wide.u32 %rd5, %r2, 24;
	add.s64 %rd6, %rd1, %rd5;
	st.global.u64 [%rd6], %rd2;
	st.global.u64 [%rd6+8], %rd3;
	st.global.u64 [%rd6+16], %rd4;
	ret;
}
`

// TestAffineCvt runs affineWiden with indices that wrap past 2^31 (the
// signed widening is not affine there), past 2^32 (the unsigned one) and
// past 2^16 (the narrowing keeps the form) within the block, and with
// none: the same values as the general scheduler and a Go loop.
func TestAffineCvt(t *testing.T) {
	p, err := Compile(header + affineWiden)
	require.NoError(t, err)
	k := p.Kernels["widen"]
	bp := k.blockProgram(&Launch{})
	n := 0
	for i := range k.fn.code {
		if k.fn.code[i].op == opCvt && bp.affine[i] {
			n++
		}
	}
	assert.Equal(t, 4, n, "the cvt instructions keep forms")
	const threads = 256
	for _, base := range []uint32{5, 0xffff - 20, 0x7fffffff - 100, 0xffffffff - 100} {
		t.Run(fmt.Sprintf("%#x", base), func(t *testing.T) {
			var out uint64
			mem, err := runBothWays(t, p, k, dim(1), dim(threads), func(m *testMem) []any {
				out = m.alloc(24 * threads)
				return []any{out, base}
			})
			require.NoError(t, err)
			b := mem.bytes(out)
			for i := range uint32(threads) {
				v := base + i
				require.Equal(t, uint64(int64(int32(v))), binary.LittleEndian.Uint64(b[24*i:]), "thread %d", i)
				require.Equal(t, uint64(v), binary.LittleEndian.Uint64(b[24*i+8:]), "thread %d", i)
				require.Equal(t, uint64(uint16(v)), binary.LittleEndian.Uint64(b[24*i+16:]), "thread %d", i)
			}
		})
	}
}
