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
