package ptxexec

// The float arithmetic itself is package fpu's; this file has the
// decoder's names for rounding modes and comparisons and the integer
// comparisons.

// Rounding modes of float instructions (.rn, .rz, .rm, .rp).
const (
	rn = iota
	rz
	rm
	rp
)

// Comparison operators of setp.
const (
	cmpEQ = iota
	cmpNE
	cmpLT
	cmpLE
	cmpGT
	cmpGE
	cmpEQU
	cmpNEU
	cmpLTU
	cmpLEU
	cmpGTU
	cmpGEU
	cmpNUM
	cmpNAN
	cmpLO // unsigned aliases, decoded to LT/LE/GT/GE on unsigned types
	cmpLS
	cmpHI
	cmpHS
)

var cmpNames = map[string]int{
	"eq": cmpEQ, "ne": cmpNE, "lt": cmpLT, "le": cmpLE, "gt": cmpGT, "ge": cmpGE,
	"equ": cmpEQU, "neu": cmpNEU, "ltu": cmpLTU, "leu": cmpLEU, "gtu": cmpGTU, "geu": cmpGEU,
	"num": cmpNUM, "nan": cmpNAN, "lo": cmpLT, "ls": cmpLE, "hi": cmpGT, "hs": cmpGE,
}

func cmpSigned(op int, a, b int64) bool {
	switch op {
	case cmpEQ:
		return a == b
	case cmpNE:
		return a != b
	case cmpLT:
		return a < b
	case cmpLE:
		return a <= b
	case cmpGT:
		return a > b
	case cmpGE:
		return a >= b
	}
	return false
}

func cmpUnsigned(op int, a, b uint64) bool {
	switch op {
	case cmpEQ:
		return a == b
	case cmpNE:
		return a != b
	case cmpLT:
		return a < b
	case cmpLE:
		return a <= b
	case cmpGT:
		return a > b
	case cmpGE:
		return a >= b
	}
	return false
}
