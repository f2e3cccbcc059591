package lanes

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/fake/internal/fpu"
)

// TestPackedMatchesLanes runs each packed function over runs of every
// length from 0 to 70 elements (the vector steps and the Go tail), at
// every byte offset of 0..3 from an aligned start, on values of every
// float32 class (and fma's hard cases), in place and not, and requires
// element j to be what the register function (AddF32, ...) gives lane j,
// with no byte of the buffer outside d changed.
func TestPackedMatchesLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 33))
	type op struct {
		packed func(d, x, y, z []byte)
		reg    func(d, x, y, z *Reg)
	}
	ops := map[string]op{
		"add": {func(d, x, y, _ []byte) { AddF32s(d, x, y) }, func(d, x, y, _ *Reg) { AddF32(d, x, y) }},
		"sub": {func(d, x, y, _ []byte) { SubF32s(d, x, y) }, func(d, x, y, _ *Reg) { subRef(d, x, y) }},
		"mul": {func(d, x, y, _ []byte) { MulF32s(d, x, y) }, func(d, x, y, _ *Reg) { MulF32(d, x, y) }},
		"fma": {FmaF32s, FmaF32},
	}
	for name, o := range ops {
		for n := 0; n <= 70; n++ {
			for off := range 4 {
				for _, inPlace := range []bool{false, true} {
					var x, y, z Reg
					for j := range x {
						x[j] = uint64(math.Float32bits(float32Value(r)))
						y[j] = uint64(math.Float32bits(float32Value(r)))
						z[j] = uint64(math.Float32bits(float32Value(r)))
					}
					if r.IntN(3) == 0 {
						hardFMA(r, &x, &y, &z)
					}
					buf := make([]byte, off+4*(4*n)+16)
					for i := range buf {
						buf[i] = 0xa5
					}
					run := func(k int) []byte { return buf[off+4*n*k:][:4*n] }
					xs, ys, zs, d := run(0), run(1), run(2), run(3)
					want := make([]uint32, n)
					for j := range n {
						jx, jy, jz := x[j%32], y[j%32], z[j%32]
						binary.LittleEndian.PutUint32(xs[4*j:], uint32(jx))
						binary.LittleEndian.PutUint32(ys[4*j:], uint32(jy))
						binary.LittleEndian.PutUint32(zs[4*j:], uint32(jz))
						var rd, rx, ry, rz Reg
						rx[0], ry[0], rz[0] = jx, jy, jz
						o.reg(&rd, &rx, &ry, &rz)
						want[j] = uint32(rd[0])
					}
					if inPlace {
						d = xs
					}
					before := append([]byte(nil), buf...)
					o.packed(d, xs, ys, zs)
					for j := range n {
						require.Equal(t, want[j], binary.LittleEndian.Uint32(d[4*j:]), "%s n=%d off=%d in place %v: element %d", name, n, off, inPlace, j)
					}
					lo := off + 4*n*3
					if inPlace {
						lo = off
					}
					for i := range buf {
						if i < lo || i >= lo+4*n {
							require.Equal(t, before[i], buf[i], "%s n=%d: byte %d outside d changed", name, n, i)
						}
					}
				}
			}
		}
	}
}

// subRef is sub.rn.f32 lane by lane (the registers have no Sub of
// float32): fpu's, whose results TestGoLoopsAreIEEE checks.
func subRef(d, x, y *Reg) {
	for j := range d {
		d[j] = uint64(math.Float32bits(fpu.SubF32(f32(x[j]), f32(y[j]), fpu.Nearest)))
	}
}

// TestPackedLengths: runs of other lengths, or not of whole float32,
// are refused with a panic (the caller's mistake), before anything is
// written.
func TestPackedLengths(t *testing.T) {
	d := make([]byte, 32)
	require.Panics(t, func() { AddF32s(d, make([]byte, 28), make([]byte, 32)) })
	require.Panics(t, func() { FmaF32s(d, d, d, make([]byte, 36)) })
	require.Panics(t, func() { MulF32s(d[:6], d[:6], d[:6]) })
	require.Panics(t, func() { FillF32s(d[:3], 1) })
	FillF32s(d, 0x3f800000)
	for j := 0; j < 32; j += 4 {
		require.Equal(t, uint32(0x3f800000), binary.LittleEndian.Uint32(d[j:]))
	}
}
