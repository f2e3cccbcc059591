package fpu

import (
	"math"
	"math/bits"
)

// Int is the set of PTX integer register types.
type Int interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Signed is the set of PTX signed integer types.
type Signed interface {
	~int8 | ~int16 | ~int32 | ~int64
}

// Div returns a/b truncated (div.{s,u}N). Division by zero gives all ones:
// the maximum for unsigned types and -1 for signed ones, as the H200 does.
// The most negative value divided by -1 wraps to itself.
func Div[T Int](a, b T) T {
	if b == 0 {
		return ^T(0)
	}
	return a / b // Go wraps MinInt / -1 to MinInt, with no panic
}

// Rem returns a%b with the sign of a (rem.{s,u}N). Remainder by zero gives
// the dividend, as the H200 does; the most negative value % -1 is 0.
func Rem[T Int](a, b T) T {
	if b == 0 {
		return a
	}
	return a % b // Go gives MinInt % -1 = 0, with no panic
}

// Shl returns a << n (shl.bN); amounts of the width or more give 0.
func Shl[T Int](a T, n uint32) T { return a << n }

// Shr returns a >> n (shr.{s,u}N); amounts of the width or more give 0 for
// unsigned types and the sign fill for signed ones.
func Shr[T Int](a T, n uint32) T { return a >> n }

// Abs returns |a| (abs.sN); the most negative value stays itself.
func Abs[T Signed](a T) T {
	if a < 0 {
		return -a
	}
	return a
}

// Sad returns c + |a-b| (sad.{s,u}N), wrapping.
func Sad[T Int](a, b, c T) T {
	if a < b {
		return c + (b - a)
	}
	return c + (a - b)
}

// AddSatS32 returns a+b clamped to the int32 range (add.sat.s32).
func AddSatS32(a, b int32) int32 {
	return clampS32(int64(a) + int64(b))
}

// SubSatS32 returns a-b clamped to the int32 range (sub.sat.s32).
func SubSatS32(a, b int32) int32 {
	return clampS32(int64(a) - int64(b))
}

func clampS32(v int64) int32 {
	switch {
	case v > math.MaxInt32:
		return math.MaxInt32
	case v < math.MinInt32:
		return math.MinInt32
	}
	return int32(v)
}

// MulHiU32 returns the high 32 bits of the 64-bit product (mul.hi.u32).
func MulHiU32(a, b uint32) uint32 { return uint32(uint64(a) * uint64(b) >> 32) }

// MulHiS32 returns the high 32 bits of the signed 64-bit product
// (mul.hi.s32).
func MulHiS32(a, b int32) int32 { return int32(int64(a) * int64(b) >> 32) }

// MulHiU64 returns the high 64 bits of the 128-bit product (mul.hi.u64).
func MulHiU64(a, b uint64) uint64 {
	hi, _ := bits.Mul64(a, b)
	return hi
}

// MulHiS64 returns the high 64 bits of the signed 128-bit product
// (mul.hi.s64).
func MulHiS64(a, b int64) int64 {
	hi, _ := bits.Mul64(uint64(a), uint64(b))
	// Two's complement correction of the unsigned product.
	if a < 0 {
		hi -= uint64(b)
	}
	if b < 0 {
		hi -= uint64(a)
	}
	return int64(hi)
}

// Mul24Lo returns the low 32 bits of the product of the low 24 bits of a and
// b, sign-extended from 24 bits when signed (mul24.lo.{s,u}32).
func Mul24Lo(a, b uint32, signed bool) uint32 {
	return uint32(mul24(a, b, signed))
}

// Mul24Hi returns bits 16 to 47 of the 48-bit product of the low 24 bits of a
// and b (mul24.hi.{s,u}32).
func Mul24Hi(a, b uint32, signed bool) uint32 {
	return uint32(mul24(a, b, signed) >> 16)
}

func mul24(a, b uint32, signed bool) int64 {
	if signed {
		return int64(int32(a<<8)>>8) * int64(int32(b<<8)>>8)
	}
	return int64(uint64(a&0xffffff) * uint64(b&0xffffff))
}

// AddCarry32 returns a+b+carry and the carry out (add.cc, addc; carry is 0
// or 1). The 64-bit form is math/bits.Add64.
func AddCarry32(a, b, carry uint32) (sum, carryOut uint32) { return bits.Add32(a, b, carry) }

// SubBorrow32 returns a-b-borrow and the borrow out (sub.cc, subc: PTX's
// CC.CF holds the borrow of a subtraction). The 64-bit form is
// math/bits.Sub64.
func SubBorrow32(a, b, borrow uint32) (diff, borrowOut uint32) { return bits.Sub32(a, b, borrow) }
