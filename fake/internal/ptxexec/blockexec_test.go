package ptxexec

import (
	"math/rand/v2"
	"testing"

	"github.com/nocgo/cuda/fake/internal/ptxexec/lanes"
	"github.com/stretchr/testify/require"
)

// TestRunWarpsMatchesRunFull runs every instruction form runWarps takes
// over a file of warps in one call, and runFull on a copy warp by warp,
// and requires the same registers; the forms runWarps leaves to runFull
// must change nothing.
func TestRunWarpsMatchesRunFull(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const slots, nw = 6, 5
	var forms []inst
	for _, op := range []uint8{opAddI, opSubI, opAnd, opOr, opXor, opMulLo, opMulWideU, opMadLo, opMadWideU, opMulWideS, opMadWideS} {
		for _, bits := range []uint8{16, 32, 64} {
			for _, kind := range []uint8{kU, kS} {
				forms = append(forms, inst{op: op, bits: bits, kind: kind, mask: widthMask(bits)})
			}
		}
		forms = append(forms, inst{op: op, bits: 32, kind: kS, mask: ^uint64(0)}) // mul.wide's 64-bit result
	}
	for _, op := range []uint8{opAddF32, opMulF32, opFmaF32} {
		forms = append(forms, inst{op: op, bits: 32, kind: kF, mask: widthMask(32)}, inst{op: op, bits: 32, kind: kF, flags: fFTZ})
	}
	for _, mode := range []uint8{cmpEQ, cmpNE, cmpLT, cmpLE, cmpGT, cmpGE} {
		for _, bits := range []uint8{16, 32, 64} {
			for _, kind := range []uint8{kU, kS} {
				forms = append(forms, inst{op: opSetpI, mode: mode, bits: bits, kind: kind, v: [4]int32{-1}, mask: 1})
			}
		}
	}
	took := 0
	for i, in := range forms {
		in.guard = -1
		in.d, in.a, in.b, in.c = int32(r.IntN(slots)), int32(r.IntN(slots)), int32(r.IntN(slots)), int32(r.IntN(slots))
		file := make([]uint64, slots*nw*warpSize)
		for j := range file {
			if r.IntN(2) == 0 {
				file[j] = r.Uint64() & in.mask
			} else {
				file[j] = r.Uint64()
			}
		}
		want := append([]uint64(nil), file...)
		did := runWarps(lanes.Warps{S: file, Slots: slots, N: nw}, &in)
		if !did {
			require.Equal(t, want, file, "form %d (op %d) changed registers it did not run", i, in.op)
			continue
		}
		took++
		for w := range nw {
			require.True(t, runFull(want[w*slots*warpSize:(w+1)*slots*warpSize], &in), "form %d: runFull knows what runWarps ran", i)
		}
		require.Equal(t, want, file, "form %d: op %d bits %d kind %d mode %d", i, in.op, in.bits, in.kind, in.mode)
	}
	require.Greater(t, took, len(forms)/2)
}
