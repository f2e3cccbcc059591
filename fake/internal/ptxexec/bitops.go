package ptxexec

import (
	"github.com/nocgo/cuda/fake/internal/fpu"
	"github.com/nocgo/cuda/internal/ptx"
)

// The bit and byte instructions NVRTC and inline PTX use beyond the basic
// arithmetic: bfind, fns, lop3, dp4a and dp2a (prmt and shf are in
// decode.go).

// bitOp decodes bfind{.shiftamt}.{u,s}{32,64} d, a; fns.b32 d, mask,
// base, offset; lop3.b32 d, a, b, c, lut; dp4a.atype.btype d, a, b, c;
// dp2a.{lo,hi}.atype.btype d, a, b, c.
func (d *decoder) bitOp(s *ptx.Stmt, m mods, in *inst) error {
	var err error
	switch s.Op {
	case "bfind":
		if m.take("shiftamt") != "" {
			in.flags |= fSat // reused: .shiftamt
		}
		if err := d.oneType(m, in); err != nil {
			return err
		}
		if err := d.noMore(m); err != nil {
			return err
		}
		if in.bits < 32 || in.kind == kF || in.kind == kPred || m.types[0][0] == 'b' {
			return d.fail("bfind of .%s", m.types[0])
		}
		if err := d.args(s, 2); err != nil {
			return err
		}
		in.op = opBfind
		if in.d, err = d.dst(s.Args[0]); err != nil {
			return err
		}
		in.a, err = d.src(s.Args[1], in.kind, in.bits)
		in.mask = 0xffffffff
		return err
	case "fns":
		// cooperative groups' coalesced_group (thread_rank, shfl by rank)
		// finds a lane with it (__fns), where -G keeps it.
		if err := d.oneType(m, in); err != nil {
			return err
		}
		if err := d.noMore(m); err != nil {
			return err
		}
		if in.bits != 32 || in.kind != kU {
			return d.fail("fns of .%s", m.types[0])
		}
		if err := d.args(s, 4); err != nil {
			return err
		}
		in.op, in.mask = opFns, 0xffffffff
		if in.d, err = d.dst(s.Args[0]); err != nil {
			return err
		}
		return d.srcs(s, in, 1, kU, 32)
	case "lop3":
		if err := d.oneType(m, in); err != nil {
			return err
		}
		if err := d.noMore(m); err != nil {
			return err
		}
		if in.bits != 32 || in.kind != kU {
			return d.fail("lop3 of .%s", m.types[0])
		}
		if err := d.args(s, 5); err != nil {
			return err
		}
		lut := s.Args[4]
		if lut.Kind != ptx.OpImm || lut.Int < 0 || lut.Int > 255 {
			return d.fail("lop3 needs an immediate truth table 0..255")
		}
		in.op, in.imm = opLop3, lut.Int
		if in.d, err = d.dst(s.Args[0]); err != nil {
			return err
		}
		return d.srcs(&ptx.Stmt{Args: s.Args[:4]}, in, 1, kU, 32)
	case "dp4a", "dp2a":
		in.op = opDp4a
		if s.Op == "dp2a" {
			in.op = opDp2a
			switch m.take("lo", "hi") {
			case "lo":
			case "hi":
				in.mode = 1
			default:
				return d.fail("dp2a needs .lo or .hi")
			}
		}
		if err := d.noMore(m); err != nil {
			return err
		}
		if len(m.types) != 2 {
			return d.fail("%s needs two types", s.Op)
		}
		for i, t := range m.types {
			if t != "u32" && t != "s32" {
				return d.fail("%s of .%s", s.Op, t)
			}
			if t == "s32" {
				in.k2 |= 1 << i // bit 0: a signed, bit 1: b signed
			}
		}
		in.kind, in.bits, in.mask = kU, 32, 0xffffffff
		if err := d.args(s, 4); err != nil {
			return err
		}
		if in.d, err = d.dst(s.Args[0]); err != nil {
			return err
		}
		return d.srcs(s, in, 1, kU, 32)
	}
	return d.fail("unsupported instruction %s", s.Op)
}

// dot computes dp4a and dp2a: the sum of c and the products of a's and
// b's bytes (dp2a: a's two halves with two bytes of b), each extended as
// its operand's type says, modulo 2^32.
func dot(in *inst, a, b, c uint64) uint64 {
	sa, sb := in.k2&1 != 0, in.k2&2 != 0
	ext := func(v uint64, width uint, signed bool) int64 {
		v &= 1<<width - 1
		if signed && v>>(width-1) != 0 {
			return int64(v) - 1<<width
		}
		return int64(v)
	}
	sum := int64(int32(uint32(c)))
	if in.op == opDp4a {
		for i := uint(0); i < 4; i++ {
			sum += ext(a>>(8*i), 8, sa) * ext(b>>(8*i), 8, sb)
		}
	} else {
		off := uint(0)
		if in.mode == 1 {
			off = 16
		}
		for i := uint(0); i < 2; i++ {
			sum += ext(a>>(16*i), 16, sa) * ext(b>>(off+8*i), 8, sb)
		}
	}
	return uint64(sum) & 0xffffffff
}

// bitResult computes bfind, fns and lop3.
func bitResult(in *inst, a, b, c uint64) uint64 {
	if in.op == opFns {
		return uint64(fns(uint32(a), uint32(b), int32(uint32(c))))
	}
	if in.op == opBfind {
		return uint64(fpu.Bfind(a, int(in.bits), in.kind == kS, in.flags&fSat != 0))
	}
	return uint64(fpu.Lop3(uint32(a), uint32(b), uint32(c), uint8(in.imm)))
}

// fns is fns.b32: the bit position of the offset-th set bit of mask
// counting from bit base (upwards for a positive offset, downwards for a
// negative one; offset 0 asks whether bit base itself is set), or
// 0xffffffff when there is none (PTX ISA, "fns"). A base above 31 is
// undefined in PTX; here it finds nothing.
func fns(mask, base uint32, offset int32) uint32 {
	if base > 31 {
		return 0xffffffff
	}
	if offset == 0 {
		if mask>>base&1 == 1 {
			return base
		}
		return 0xffffffff
	}
	inc, count := 1, int64(offset)-1
	if offset < 0 {
		inc, count = -1, -int64(offset)-1
	}
	for pos := int(base); pos >= 0 && pos < 32; pos += inc {
		if mask>>uint(pos)&1 == 1 {
			if count == 0 {
				return uint32(pos)
			}
			count--
		}
	}
	return 0xffffffff
}
