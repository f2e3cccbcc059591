package fpu

// Compare is the comparison of a PTX setp/set/slct on floats.
type Compare uint8

// The comparisons. The ordered ones are false when either operand is NaN;
// the unordered ones (suffix u) are true then. Num is true when neither is
// NaN, NaN when either is.
const (
	Eq Compare = iota
	Ne
	Lt
	Le
	Gt
	Ge
	Equ
	Neu
	Ltu
	Leu
	Gtu
	Geu
	Num
	NaN
)

var compareNames = [...]string{"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}

// String returns the PTX name of c ("eq", "ltu", ...).
func (c Compare) String() string {
	if int(c) < len(compareNames) {
		return compareNames[c]
	}
	return "Compare(?)"
}

// ParseCompare returns the Compare of a PTX comparison name and whether the
// name is one.
func ParseCompare(name string) (Compare, bool) {
	for i, n := range compareNames {
		if n == name {
			return Compare(i), true
		}
	}
	return 0, false
}

// CompareF32 evaluates a c b (setp.c.f32). -0 equals +0.
func CompareF32(c Compare, a, b float32) bool {
	return CompareF64(c, float64(a), float64(b))
}

// CompareF64 evaluates a c b (setp.c.f64). -0 equals +0.
func CompareF64(c Compare, a, b float64) bool {
	unordered := a != a || b != b
	switch c {
	case Eq:
		return a == b
	case Ne:
		return !unordered && a != b
	case Lt:
		return a < b
	case Le:
		return a <= b
	case Gt:
		return a > b
	case Ge:
		return a >= b
	case Equ:
		return unordered || a == b
	case Neu:
		return a != b
	case Ltu:
		return unordered || a < b
	case Leu:
		return unordered || a <= b
	case Gtu:
		return unordered || a > b
	case Geu:
		return unordered || a >= b
	case Num:
		return !unordered
	case NaN:
		return unordered
	}
	return false
}
