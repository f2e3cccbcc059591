package lanes

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWarpsMatchEachWarp runs every Warps method over files of 1 to 9
// warps, with the registers in place and apart, and requires each warp's
// registers to be what the single-warp function leaves, nothing else in
// the file (or past it) changed.
func TestWarpsMatchEachWarp(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	type op struct {
		multi  func(f Warps, d, x, y, z int32, s uint64)
		single func(d, x, y, z *Reg, s uint64)
	}
	ops := map[string]op{
		"Add":        {func(f Warps, d, x, y, z int32, s uint64) { f.Add(d, x, y, s) }, func(d, x, y, z *Reg, s uint64) { Add(d, x, y, s) }},
		"Sub":        {func(f Warps, d, x, y, z int32, s uint64) { f.Sub(d, x, y, s) }, func(d, x, y, z *Reg, s uint64) { Sub(d, x, y, s) }},
		"And":        {func(f Warps, d, x, y, z int32, s uint64) { f.And(d, x, y) }, func(d, x, y, z *Reg, s uint64) { And(d, x, y) }},
		"Or":         {func(f Warps, d, x, y, z int32, s uint64) { f.Or(d, x, y) }, func(d, x, y, z *Reg, s uint64) { Or(d, x, y) }},
		"Xor":        {func(f Warps, d, x, y, z int32, s uint64) { f.Xor(d, x, y) }, func(d, x, y, z *Reg, s uint64) { Xor(d, x, y) }},
		"MulLo32":    {func(f Warps, d, x, y, z int32, s uint64) { f.MulLo32(d, x, y, s) }, func(d, x, y, z *Reg, s uint64) { MulLo32(d, x, y, s) }},
		"MadLo32":    {func(f Warps, d, x, y, z int32, s uint64) { f.MadLo32(d, x, y, z, s) }, func(d, x, y, z *Reg, s uint64) { MadLo32(d, x, y, z, s) }},
		"MulWideS32": {func(f Warps, d, x, y, z int32, s uint64) { f.MulWideS32(d, x, y) }, func(d, x, y, z *Reg, s uint64) { MulWideS32(d, x, y) }},
		"MadWideS32": {func(f Warps, d, x, y, z int32, s uint64) { f.MadWideS32(d, x, y, z) }, func(d, x, y, z *Reg, s uint64) { MadWideS32(d, x, y, z) }},
		"LessS32":    {func(f Warps, d, x, y, z int32, s uint64) { f.LessS32(d, x, y, s&1) }, func(d, x, y, z *Reg, s uint64) { LessS32(d, x, y, s&1) }},
		"LessS64":    {func(f Warps, d, x, y, z int32, s uint64) { f.LessS64(d, x, y, s&1) }, func(d, x, y, z *Reg, s uint64) { LessS64(d, x, y, s&1) }},
		"LessU64":    {func(f Warps, d, x, y, z int32, s uint64) { f.LessU64(d, x, y, s&1) }, func(d, x, y, z *Reg, s uint64) { LessU64(d, x, y, s&1) }},
		"AddF32":     {func(f Warps, d, x, y, z int32, s uint64) { f.AddF32(d, x, y) }, func(d, x, y, z *Reg, s uint64) { AddF32(d, x, y) }},
		"MulF32":     {func(f Warps, d, x, y, z int32, s uint64) { f.MulF32(d, x, y) }, func(d, x, y, z *Reg, s uint64) { MulF32(d, x, y) }},
		"FmaF32":     {func(f Warps, d, x, y, z int32, s uint64) { f.FmaF32(d, x, y, z) }, func(d, x, y, z *Reg, s uint64) { FmaF32(d, x, y, z) }},
	}
	masks := []uint64{math.MaxUint64, math.MaxUint32, 0xffff}
	for name, o := range ops {
		t.Run(name, func(t *testing.T) {
			for round := range 200 {
				n, slots := 1+round%9, 5
				file := make([]uint64, (n*slots+1)*32) // one register of guard words past the file
				for w := range n {
					for s := range slots {
						values(r, (*Reg)(file[(w*slots+s)*32:]))
					}
				}
				for j := n * slots * 32; j < len(file); j++ {
					file[j] = guardWord
				}
				d, x, y, z := int32(r.IntN(slots)), int32(r.IntN(slots)), int32(r.IntN(slots)), int32(r.IntN(slots))
				s := masks[r.IntN(len(masks))]
				want := append([]uint64(nil), file...)
				for w := range n {
					at := func(s int32) *Reg { return (*Reg)(want[(w*slots+int(s))*32:]) }
					o.single(at(d), at(x), at(y), at(z), s)
				}
				o.multi(Warps{S: file[:n*slots*32], Slots: slots, N: n}, d, x, y, z, s)
				require.Equal(t, want, file, "round %d: %d warps, d=%d x=%d y=%d z=%d", round, n, d, x, y, z)
			}
		})
	}
	require.Panics(t, func() { Warps{S: make([]uint64, 64), Slots: 2, N: 2}.Add(0, 1, 1, 0) }, "N past the file")
	require.Panics(t, func() { Warps{S: make([]uint64, 64), Slots: 2, N: 1}.Add(0, 2, 1, 0) }, "a register past Slots")
}

// TestWarpsMemory checks Warps' Consecutive against its definition
// (including a break at a warp's edge and in a warp), and Load32,
// Store32, Load64 and Store64 against the single-warp functions.
func TestWarpsMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for round := range 300 {
		n, slots := 1+round%9, 3
		file := make([]uint64, n*slots*32)
		f := Warps{S: file, Slots: slots, N: n}
		step := []uint64{0, 4, 8, 1 << 40}[r.IntN(4)]
		base := r.Uint64()
		a := int32(r.IntN(slots))
		for w := range n {
			for j := range 32 {
				f.at(w, a)[j] = base + uint64(32*w+j)*step
			}
		}
		require.True(t, f.Consecutive(a, step), "round %d", round)
		w, j := r.IntN(n), r.IntN(32)
		if r.IntN(2) == 0 {
			j = 0 // a warp's first lane: only the step from the warp before shows it
		}
		f.at(w, a)[j]++
		require.False(t, f.Consecutive(a, step), "round %d: warp %d lane %d off by one", round, w, j)

		src := make([]byte, 256*n+8)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		d := int32(r.IntN(slots))
		f.Load32(d, src)
		for w := range n {
			var want Reg
			Load32(&want, (*[128]byte)(src[128*w:]))
			require.Equal(t, want, *f.at(w, d))
		}
		f.Load64(d, src)
		for w := range n {
			var want Reg
			Load64(&want, (*[256]byte)(src[256*w:]))
			require.Equal(t, want, *f.at(w, d))
		}
		for w := range n {
			values(r, f.at(w, d))
		}
		got, want := make([]byte, len(src)), make([]byte, len(src))
		f.Store32(got, d)
		for w := range n {
			Store32((*[128]byte)(want[128*w:]), f.at(w, d))
		}
		require.Equal(t, want, got)
		f.Store64(got, d)
		for w := range n {
			Store64((*[256]byte)(want[256*w:]), f.at(w, d))
		}
		require.Equal(t, want, got)
	}
}
