package ptxexec

import (
	"math"

	"github.com/nocgo/cuda/fake/internal/fpu"
	"github.com/nocgo/cuda/internal/ptx"
)

// f16 and bf16 arithmetic, as cuda_fp16.h and cuda_bf16.h emit it for
// sm_80 and sm_90: add, sub, mul, fma, min, max, neg and abs on .f16,
// .f16x2, .bf16 and .bf16x2 (an x2 instruction works on the two 16-bit
// halves of a 32-bit register independently), setp on them, and cvt
// between them, .f32, .f64 and the integers in every rounding mode (cvt
// with two .f32 sources packs two conversions into an x2 register).
// Every result is correctly rounded (package fpu); NaN results are the
// canonical 0x7fff.

// Operand kinds of the 16-bit float types (inst.kind): bits is 16, or 32
// for the x2 forms.
const (
	kH  = 4 + iota // .f16, .f16x2
	kBH            // .bf16, .bf16x2
)

// fRelu is .relu: negative results are +0, NaN the canonical NaN.
const fRelu = 1 << 7

// Operations of opHalf (inst.size).
const (
	hAdd = iota
	hSub
	hMul
	hFma
	hMin
	hMax
	hNeg
	hAbs
)

var halfOps = map[string]struct{ op, nsrc int }{
	"add": {hAdd, 2}, "sub": {hSub, 2}, "mul": {hMul, 2}, "fma": {hFma, 3},
	"min": {hMin, 2}, "max": {hMax, 2}, "neg": {hNeg, 1}, "abs": {hAbs, 1},
}

// isHalf reports an instruction whose type modifier is a 16-bit float.
func isHalf(ms []string) bool {
	for _, m := range ms {
		switch m {
		case "f16", "f16x2", "bf16", "bf16x2":
			return true
		}
	}
	return false
}

func isFloat(k uint8) bool { return k == kF || k == kH || k == kBH }

// half decodes the arithmetic instructions on 16-bit floats.
func (d *decoder) half(s *ptx.Stmt, m mods, in *inst) error {
	op, ok := halfOps[s.Op]
	if !ok {
		return d.fail("%s on 16-bit floats is not supported", s.Op)
	}
	in.mode = uint8(m.roundMode())
	if in.mode != rn && op.op <= hFma {
		return d.fail("%s on 16-bit floats rounds to nearest only", s.Op)
	}
	if m.take("ftz") != "" {
		in.flags |= fFTZ
	}
	if m.take("sat") != "" {
		in.flags |= fSat
	}
	if m.take("relu") != "" {
		in.flags |= fRelu
	}
	if m.take("NaN") != "" {
		in.b2 = 1
	}
	if err := d.oneType(m, in); err != nil {
		return err
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	switch {
	case in.kind == kBH && in.flags&(fFTZ|fSat) != 0:
		return d.fail(".ftz and .sat are not allowed on bf16")
	case in.flags&fSat != 0 && op.op > hFma, in.flags&fRelu != 0 && op.op != hFma && op.op != hMin && op.op != hMax:
		return d.fail("unsupported modifier for %s", s.Op)
	case in.b2 != 0 && op.op != hMin && op.op != hMax:
		return d.fail(".NaN on %s", s.Op)
	}
	in.op, in.size = opHalf, uint8(op.op)
	if err := d.args(s, op.nsrc+1); err != nil {
		return err
	}
	var err error
	if in.d, err = d.dst(s.Args[0]); err != nil {
		return err
	}
	return d.srcs(s, in, 1, in.kind, in.bits)
}

// halfValue is the exact value of a 16-bit float of kind k.
func halfValue(k uint8, h uint16) float32 {
	if k == kBH {
		return fpu.BF16ToF32(h)
	}
	return fpu.F16ToF32(h)
}

// toHalf rounds x (exact in float64) to kind k.
func toHalf(k uint8, x float64, r fpu.Rounding) uint16 {
	if k == kBH {
		return fpu.F64ToBF16(x, r)
	}
	return fpu.F64ToF16(x, r)
}

// halfLane computes one 16-bit lane of opHalf.
func halfLane(in *inst, a, b, c uint16) uint16 {
	k := in.kind
	ftz := in.flags&fFTZ != 0
	if ftz {
		a, b, c = fpu.FlushF16(a), fpu.FlushF16(b), fpu.FlushF16(c)
	}
	r := fpu.Rounding(in.mode)
	var v uint16
	bf := k == kBH
	switch in.size {
	case hAdd:
		v = pick16(bf, fpu.AddBF16, fpu.AddF16)(a, b, r)
	case hSub:
		v = pick16(bf, fpu.SubBF16, fpu.SubF16)(a, b, r)
	case hMul:
		v = pick16(bf, fpu.MulBF16, fpu.MulF16)(a, b, r)
	case hFma:
		if bf {
			v = fpu.FmaBF16(a, b, c, r)
		} else {
			v = fpu.FmaF16(a, b, c, r)
		}
	case hMin, hMax:
		x, y := halfValue(k, a), halfValue(k, b)
		var f float32
		switch {
		case in.size == hMin && in.b2 != 0:
			f = fpu.MinNaNF32(x, y)
		case in.size == hMin:
			f = fpu.MinF32(x, y)
		case in.b2 != 0:
			f = fpu.MaxNaNF32(x, y)
		default:
			f = fpu.MaxF32(x, y)
		}
		v = toHalf(k, float64(f), fpu.Nearest) // exact
	case hNeg:
		v = a ^ 0x8000
	case hAbs:
		v = a &^ 0x8000
	}
	nan := v&0x7fff > 0x7c00 && !bf || v&0x7fff > 0x7f80 && bf
	if ftz {
		v = fpu.FlushF16(v)
	}
	switch {
	case in.flags&fSat != 0:
		switch {
		case nan || v&0x8000 != 0:
			v = 0
		case halfValue(k, v) > 1:
			v = toHalf(k, 1, fpu.Nearest)
		}
	case in.flags&fRelu != 0:
		switch {
		case nan:
			v = fpu.NaN16
		case v&0x8000 != 0:
			v = 0
		}
	}
	return v
}

func pick16(bf bool, b, h func(x, y uint16, r fpu.Rounding) uint16) func(x, y uint16, r fpu.Rounding) uint16 {
	if bf {
		return b
	}
	return h
}

// halfOp computes opHalf on one or (x2) two lanes.
func halfOp(in *inst, a, b, c uint64) uint64 {
	v := uint64(halfLane(in, uint16(a), uint16(b), uint16(c)))
	if in.bits == 32 {
		v |= uint64(halfLane(in, uint16(a>>16), uint16(b>>16), uint16(c>>16))) << 16
	}
	return v
}

// setpHalf computes setp on 16-bit floats: the comparison of the low
// halves, and for x2 of the high halves.
func (m *machine) setpHalf(in *inst, r []uint64) {
	cmp := func(x, y uint16) bool {
		if in.flags&fFTZ != 0 {
			x, y = fpu.FlushF16(x), fpu.FlushF16(y)
		}
		return fpu.CompareF32(fpu.Compare(in.mode), halfValue(in.kind, x), halfValue(in.kind, y))
	}
	a, b := r[in.a], r[in.b]
	lo := cmp(uint16(a), uint16(b))
	if in.bits != 32 {
		if in.k2 == 0 {
			r[in.d] = b2u(lo)
			if in.v[0] >= 0 {
				r[in.v[0]] = b2u(!lo)
			}
			return
		}
		m.combine(in, r, lo)
		return
	}
	hi := cmp(uint16(a>>16), uint16(b>>16))
	c := in.k2 == 0 || r[in.c] != 0
	if in.flags&fCombNeg != 0 {
		c = !c
	}
	op := func(x bool) bool {
		switch in.k2 {
		case 0:
			return x
		case 1:
			return x && c
		case 2:
			return x || c
		}
		return x != c
	}
	r[in.d] = b2u(op(lo))
	if in.v[0] >= 0 {
		r[in.v[0]] = b2u(op(hi))
	}
}

// cvtHalf is cvt where the source or the destination is a 16-bit float.
func cvtHalf(in *inst, a uint64) uint64 {
	r := fpu.Rounding(in.mode)
	// The exact value of a float source.
	var x float64
	switch in.k2 {
	case kH, kBH:
		x = float64(halfValue(in.k2, uint16(a)))
	case kF:
		if in.b2 == 32 {
			f := f32(a)
			if in.flags&fFTZ != 0 {
				f = fpu.FlushF32(f)
			}
			x = float64(f)
		} else {
			x = f64(a)
		}
	}
	if in.kind == kH || in.kind == kBH {
		var h uint16
		switch {
		case in.k2 == kU || in.k2 == kS:
			v := a & widthMask(in.b2)
			if in.k2 == kS {
				v = uint64(sx(a, in.b2))
			}
			if in.kind == kBH {
				h = fpu.IntToBF16(v, in.k2 == kS, r)
			} else {
				h = fpu.IntToF16(v, in.k2 == kS, r)
			}
		case x != x:
			h = fpu.NaN16
		default:
			if isIntRound(in) {
				x = fpu.RoundToIntegerF64(x, r)
			}
			h = toHalf(in.kind, x, r)
		}
		return uint64(finishHalf(in, h))
	}
	// A 16-bit float to a wider float or an integer: exact, but for the
	// integer rounding and the saturation of float-to-integer cvt.
	f := float32(x)
	if x != x {
		f = float32(math.NaN())
	}
	switch {
	case in.kind == kF && in.bits == 32:
		if isIntRound(in) {
			f = fpu.RoundToIntegerF32(f, r)
		}
		if in.flags&fSat != 0 {
			f = fpu.SaturateF32(f)
		}
		return u32f(f)
	case in.kind == kF:
		y := fpu.F32ToF64(f)
		if isIntRound(in) {
			y = fpu.RoundToIntegerF64(y, r)
		}
		if in.flags&fSat != 0 {
			y = fpu.SaturateF64(y)
		}
		return u64f(y)
	}
	return fpu.F32ToInt(f, r, int(in.bits), in.kind == kS)
}

// finishHalf applies .sat, .relu and .satfinite to a converted value.
func finishHalf(in *inst, h uint16) uint16 {
	nan := in.kind == kH && h&0x7fff > 0x7c00 || in.kind == kBH && h&0x7fff > 0x7f80
	inf := in.kind == kH && h&0x7fff == 0x7c00 || in.kind == kBH && h&0x7fff == 0x7f80
	switch {
	case in.flags&fSat != 0:
		switch {
		case nan || h&0x8000 != 0:
			return 0
		case halfValue(in.kind, h) > 1:
			return toHalf(in.kind, 1, fpu.Nearest)
		}
	case in.flags&fRelu != 0:
		switch {
		case nan:
			return fpu.NaN16
		case h&0x8000 != 0:
			return 0
		}
	}
	if in.vec == 2 && inf { // .satfinite (inst.vec 2): ±Inf to ±max
		return h&0x8000 | map[bool]uint16{true: 0x7bff, false: 0x7f7f}[in.kind == kH]
	}
	return h
}
