package fpu

// IntToF16 converts the integer x (a 64-bit pattern; sign-extend narrower
// signed sources first) to binary16 in mode r with one rounding
// (cvt.r.f16.{s,u}N) and returns its bit pattern.
func IntToF16(x uint64, signed bool, r Rounding) uint16 {
	return F64ToF16(intToFloat(binary16, x, signed, r), Nearest) // exact: an f16 value or Inf
}

// IntToBF16 converts the integer x to bfloat16 in mode r with one rounding
// (cvt.r.bf16.{s,u}N) and returns its bit pattern.
func IntToBF16(x uint64, signed bool, r Rounding) uint16 {
	return F64ToBF16(intToFloat(bfloat16, x, signed, r), Nearest) // exact
}

// FlushF16 returns the f16 h with a subnormal flushed to zero of its sign
// (.ftz on .f16 operands and results).
func FlushF16(h uint16) uint16 {
	if h&0x7c00 == 0 {
		return h & 0x8000
	}
	return h
}
