package ptxexec

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/fake/internal/fpu"
)

// TestLockstepPartialWarps: blocks whose size is not a multiple of 32
// (a partial last warp) and a bound that splits a warp give every
// element, and write nothing past the bound.
func TestLockstepPartialWarps(t *testing.T) {
	p, mem := load(t, "90")
	for _, c := range []struct{ block, n uint32 }{{100, 950}, {33, 1000}, {1, 7}, {64, 63}} {
		xs := make([]float32, c.n+64)
		for i := range xs {
			xs[i] = float32(i) * 0.5
		}
		px, py := mem.f32s(xs), mem.f32s(xs)
		out := mem.f32s(make([]float32, len(xs)))
		k := p.Kernels["axpy"]
		grid := (c.n + c.block - 1) / c.block
		require.NoError(t, k.Run(&Launch{Grid: dim(grid), Block: dim(c.block), Params: packAxpy(k, px, py, out, int(c.n)), Mem: mem, SMs: 132}))
		got := mem.readF32(out, len(xs))
		for i := range got {
			want := float32(0)
			if i < int(c.n) {
				want = fpu.FmaF32(2, xs[i], xs[i], fpu.Nearest)
			}
			require.Equal(t, want, got[i], "block %d, n %d, element %d", c.block, c.n, i)
		}
	}
}

// TestLockstepAfterExitInCall: threads that exit inside a call, in a
// warp that goes back to lockstep after a barrier, start the next block
// in the entry again (their call frames dropped): every block gives the
// same result.
func TestLockstepAfterExitInCall(t *testing.T) {
	src := header + `.func f(.param .b32 x)
{
	.reg .b32 %r<3>;
	.reg .pred %p<2>;
	ld.param.b32 %r1, [x];
	and.b32 %r2, %r1, 3;
	setp.eq.s32 %p1, %r2, 1;
	@%p1 exit;
	ret;
}
.visible .entry k(.param .u64 p)
{
	.reg .b64 %rd<5>;
	.reg .b32 %r<8>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r4, %r2, %r3, %r1;
	and.b32 %r5, %r1, 1;
	setp.eq.s32 %p1, %r5, 0;
	@%p1 bra DONE;
	{
	.param .b32 param0;
	st.param.b32 [param0], %r1;
	call.uni f, (param0);
	}
DONE:
	bar.sync 0;
	add.s32 %r6, %r4, 1;
	mul.wide.s32 %rd2, %r4, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r6;
	ret;
}
`
	p, err := Compile(src)
	require.NoError(t, err)
	mem := newMem()
	const blocks, threads = 4, 64
	out := mem.i32s(make([]int32, blocks*threads))
	require.NoError(t, run(t, p, mem, "k", dim(blocks), dim(threads), 0, out))
	got := mem.readI32(out, blocks*threads)
	for i, v := range got {
		want := int32(i + 1)
		if i%threads%4 == 1 {
			want = 0 // exited in f
		}
		require.Equal(t, want, v, "element %d", i)
	}
}
