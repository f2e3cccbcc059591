package fpu

import "math/bits"

// Bfe extracts the bit field of len bits at pos from a of the given width
// (32 or 64) (bfe.{u,s}{32,64}); only the low 8 bits of pos and len count.
// Bits past the width read as 0 (unsigned) or as the sign of the field's
// last bit inside the width (signed), and the field is zero- or
// sign-extended. The result is the destination's bit pattern (a signed
// 32-bit result sign-extended to 64 bits).
func Bfe(a uint64, pos, length uint32, width int, signed bool) uint64 {
	pos, length = pos&0xff, length&0xff
	msb := uint32(width - 1)
	if width == 32 {
		a &= 0xffffffff
	}
	var sbit uint64
	if signed && length != 0 {
		top := min(pos+length-1, msb)
		sbit = a >> top & 1
	}
	var d uint64
	for i := uint32(0); i < uint32(width); i++ {
		var bit uint64
		switch {
		case i < length && pos+i <= msb:
			bit = a >> (pos + i) & 1
		default:
			bit = sbit
		}
		d |= bit << i
	}
	if signed && width == 32 {
		d = uint64(int64(int32(uint32(d))))
	}
	return d
}

// Bfi inserts the low len bits of a into b at pos (bfi.b{32,64}); bits that
// would land past the width are dropped; only the low 8 bits of pos and len
// count.
func Bfi(a, b uint64, pos, length uint32, width int) uint64 {
	pos, length = pos&0xff, length&0xff
	for i := uint32(0); i < length && pos+i < uint32(width); i++ {
		m := uint64(1) << (pos + i)
		b = b&^m | (a>>i&1)<<(pos+i)
	}
	if width == 32 {
		b &= 0xffffffff
	}
	return b
}

// Brev32 reverses the bits of a (brev.b32).
func Brev32(a uint32) uint32 { return bits.Reverse32(a) }

// Brev64 reverses the bits of a (brev.b64).
func Brev64(a uint64) uint64 { return bits.Reverse64(a) }

// Popc32 counts the set bits of a (popc.b32).
func Popc32(a uint32) uint32 { return uint32(bits.OnesCount32(a)) }

// Popc64 counts the set bits of a (popc.b64; the result is u32).
func Popc64(a uint64) uint32 { return uint32(bits.OnesCount64(a)) }

// Clz32 counts the leading zeros of a, 32 for 0 (clz.b32).
func Clz32(a uint32) uint32 { return uint32(bits.LeadingZeros32(a)) }

// Clz64 counts the leading zeros of a, 64 for 0 (clz.b64; the result is u32).
func Clz64(a uint64) uint32 { return uint32(bits.LeadingZeros64(a)) }

// Bfind returns the position of the most significant non-sign bit of a of
// the given width (bfind.{u,s}{32,64}): for unsigned values the highest set
// bit, for negative signed values the highest clear bit. With shiftAmt
// (.shiftamt) it returns width-1 minus that position, the left shift that
// normalises a. With no such bit it returns 0xffffffff.
func Bfind(a uint64, width int, signed, shiftAmt bool) uint32 {
	if width == 32 {
		a &= 0xffffffff
		if signed && a>>31 == 1 {
			a = ^a & 0xffffffff
		}
	} else if signed && a>>63 == 1 {
		a = ^a
	}
	if a == 0 {
		return 0xffffffff
	}
	p := uint32(63 - bits.LeadingZeros64(a))
	if shiftAmt {
		return uint32(width-1) - p
	}
	return p
}

// PrmtMode is a mode of prmt.b32.
type PrmtMode uint8

// The prmt modes.
const (
	PrmtDefault PrmtMode = iota // each selector nibble picks a byte, bit 3 replicates its sign
	PrmtF4E                     // .f4e: forward 4 extract
	PrmtB4E                     // .b4e: backward 4 extract
	PrmtRC8                     // .rc8: replicate 8
	PrmtECL                     // .ecl: edge clamp left
	PrmtECR                     // .ecr: edge clamp right
	PrmtRC16                    // .rc16: replicate 16
)

// prmtSelectors gives, for each mode but the default and each value of the
// low two bits of c, the source byte of result bytes 0 to 3 (PTX ISA,
// "prmt").
var prmtSelectors = [7][4][4]uint8{
	PrmtF4E:  {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
	PrmtB4E:  {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
	PrmtRC8:  {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
	PrmtECL:  {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
	PrmtECR:  {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
	PrmtRC16: {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},
}

// Prmt permutes the bytes of {b, a} (bytes 0-3 from a, 4-7 from b) by the
// selector c in mode m (prmt.b32[.mode]).
func Prmt(a, b, c uint32, m PrmtMode) uint32 {
	src := uint64(b)<<32 | uint64(a)
	var d uint32
	for i := 0; i < 4; i++ {
		var byt uint32
		if m == PrmtDefault || int(m) >= len(prmtSelectors) {
			sel := c >> (4 * i) & 0xf
			byt = uint32(src >> (8 * (sel & 7)) & 0xff)
			if sel&8 != 0 { // replicate the sign bit of the byte
				byt = 0xff * (byt >> 7)
			}
		} else {
			byt = uint32(src >> (8 * prmtSelectors[m][c&3][i]) & 0xff)
		}
		d |= byt << (8 * i)
	}
	return d
}

// Lop3 returns the bitwise function of a, b and c given by its truth table
// lut (lop3.b32): bit (a<<2 | b<<1 | c) of lut is the result for those
// input bits, so lut = F(0xF0, 0xCC, 0xAA).
func Lop3(a, b, c uint32, lut uint8) uint32 {
	var d uint32
	for i := uint(0); i < 8; i++ {
		if lut>>i&1 == 0 {
			continue
		}
		m := ^uint32(0)
		m &= pick(a, i&4 != 0)
		m &= pick(b, i&2 != 0)
		m &= pick(c, i&1 != 0)
		d |= m
	}
	return d
}

func pick(x uint32, set bool) uint32 {
	if set {
		return x
	}
	return ^x
}
