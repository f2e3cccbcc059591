package ptxexec

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWholeBlockFaults runs axpy, whose every instruction runs for the
// whole block (runWhole), with x, y or out shorter than the launch's n,
// so that a block's ld or st of a coalesced run faults part way, and
// matmul (a 2-D block: no forms, its shared loads warp by warp in
// runWhole) with B too short: the block program faults as the general
// scheduler does (the same error: thread, address, line), and without
// a fault leaves the same bytes.
func TestWholeBlockFaults(t *testing.T) {
	p, _ := load(t, "90")
	axpy, mm := p.Kernels["axpy"], p.Kernels["matmul"]
	const n = 3 * 256
	for _, short := range []int{-1, 0, 1, 2} {
		for _, cut := range []int{1, 200, 256, 300} {
			if short < 0 && cut > 1 {
				continue // (nothing is cut)
			}
			t.Run(fmt.Sprintf("axpy/%d/%d", short, cut), func(t *testing.T) {
				_, err := runBothWays(t, p, axpy, dim(3), dim(256), func(m *testMem) []any {
					sizes := [3]int{n, n, n}
					if short >= 0 {
						sizes[short] = n - cut
					}
					x, y, out := m.f32s(f32Ramp(sizes[0], 0.5, 1)), m.f32s(f32Ramp(sizes[1], 0.25, -2)), m.alloc(4*sizes[2])
					return []any{float32(2), x, y, out, int32(n)}
				})
				if short < 0 {
					require.NoError(t, err)
				} else {
					require.Error(t, err)
				}
			})
		}
	}
	const mn = 32
	for _, cut := range []int{0, 1, 100} {
		t.Run(fmt.Sprintf("matmul/%d", cut), func(t *testing.T) {
			_, err := runBothWays(t, p, mm, [3]uint32{mn / 16, mn / 16, 1}, [3]uint32{16, 16, 1}, func(m *testMem) []any {
				a, b := m.f32s(f32Ramp(mn*mn, 0.5, 1)), m.f32s(f32Ramp(mn*mn-cut, 0.25, 0))
				return []any{a, b, m.alloc(4 * mn * mn), int32(mn)}
			})
			require.Equal(t, cut != 0, err != nil, "%v", err)
		})
	}
}
