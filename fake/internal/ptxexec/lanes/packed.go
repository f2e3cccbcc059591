package lanes

import (
	"encoding/binary"
	"math"

	"github.com/nocgo/cuda/fake/internal/fpu"
)

// Packed float32 arithmetic over memory, for the interpreter's fused runs
// (ptxexec's fused.go): d, x, y and z are runs of little-endian float32,
// 4 bytes each, element j at bytes 4j..4j+3, all of one length (a
// multiple of 4; the functions panic otherwise). The results are those of
// AddF32, MulF32 and FmaF32 element by element (IEEE 754 single
// precision, rounded to nearest even, subnormals kept, a NaN result the
// canonical 0x7fffffff). d may be one of the sources itself (each element
// is read before it is written) but must not overlap one otherwise.

// AddF32s sets d's elements to x's plus y's: add.rn.f32.
func AddF32s(d, x, y []byte) { packed2(d, x, y, addF32sAVX2, fpu.AddF32) }

// SubF32s sets d's elements to x's minus y's: sub.rn.f32.
func SubF32s(d, x, y []byte) { packed2(d, x, y, subF32sAVX2, fpu.SubF32) }

// MulF32s sets d's elements to x's times y's: mul.rn.f32.
func MulF32s(d, x, y []byte) { packed2(d, x, y, mulF32sAVX2, fpu.MulF32) }

// packed2 runs a two-source operation over the runs: vec, its vector
// code, over the whole steps of eight, then op element by element.
func packed2(d, x, y []byte, vec func(d, x, y *byte, n int), op func(a, b float32, r fpu.Rounding) float32) {
	n := packedLen(d, x, y, y)
	if vector && n >= 8 {
		vec(&d[0], &x[0], &y[0], n/8)
	}
	for j := goFrom(n); j < n; j++ {
		put32(d, j, op(get32(x, j), get32(y, j), fpu.Nearest))
	}
}

// FmaF32s sets d's elements to x's times y's plus z's, rounded once:
// fma.rn.f32.
func FmaF32s(d, x, y, z []byte) {
	n := packedLen(d, x, y, z)
	if vector && n >= 8 {
		fmaF32sAVX2(&d[0], &x[0], &y[0], &z[0], n/8)
	}
	for j := goFrom(n); j < n; j++ {
		put32(d, j, fmaF32One(get32(x, j), get32(y, j), get32(z, j)))
	}
}

// FillF32s sets every element of d (a multiple of 4 bytes long) to the
// bits v.
func FillF32s(d []byte, v uint32) {
	if len(d)%4 != 0 {
		panic("lanes: FillF32s: not a run of float32")
	}
	n := len(d) / 4
	if vector && n >= 8 {
		fillF32sAVX2(&d[0], v, n/8)
	}
	for j := goFrom(n); j < n; j++ {
		binary.LittleEndian.PutUint32(d[4*j:], v)
	}
}

// goFrom returns the first of n elements the Go loop does: those after
// the whole steps of eight where the vector code ran, all otherwise.
func goFrom(n int) int {
	if vector {
		return n &^ 7
	}
	return 0
}

// packedLen returns the elements of the runs d, x, y, z after checking
// that they are runs of float32 of one length.
func packedLen(d, x, y, z []byte) int {
	if len(d)%4 != 0 || len(x) != len(d) || len(y) != len(d) || len(z) != len(d) {
		panic("lanes: packed float32 runs of different lengths")
	}
	return len(d) / 4
}

func get32(b []byte, j int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
}

func put32(b []byte, j int, f float32) {
	binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(f))
}
