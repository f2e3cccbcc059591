package ptxexec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var archs = []string{"80", "90"}

func TestAxpy(t *testing.T) {
	for _, arch := range archs {
		p, mem := load(t, arch)
		const n = 1000
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = float32(i)*0.5, float32(n-i)
		}
		px, py, out := mem.f32s(x), mem.f32s(y), mem.f32s(make([]float32, n+8))
		require.NoError(t, run(t, p, mem, "axpy", dim((n+255)/256), dim(256), 0, float32(3), px, py, out, int32(n)))
		got := mem.readF32(out, n+8)
		for i := 0; i < n; i++ {
			// ptxas may contract a*x+y into an fma; NVRTC emitted fma.rn here.
			require.Equal(t, fma32(3, x[i], y[i], rn), got[i], "element %d", i)
		}
		for i := n; i < n+8; i++ {
			assert.Zero(t, got[i], "element %d past n written", i)
		}
	}
}
