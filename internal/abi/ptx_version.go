package abi

// oldestPTX is the oldest PTX ISA version (10*major + minor) that can
// target each architecture (the PTX ISA's target table); older PTX for it
// fails to JIT (CUDA_ERROR_INVALID_PTX: ".version 7.0" for sm_90 on the
// H200).
var oldestPTX = map[int]int{
	50: 40, 52: 41, 53: 42, 60: 50, 61: 50, 62: 50, 70: 60, 72: 61, 75: 63,
	80: 70, 86: 71, 87: 74, 89: 78, 90: 78,
}

// OldestPTX returns the oldest PTX ISA version (10*major + minor) that can
// target sm_arch, and false for an architecture the table does not know:
// what the fake's JIT checks a module against, and what its pretend
// compiler writes.
func OldestPTX(arch int) (int, bool) {
	v, ok := oldestPTX[arch]
	return v, ok
}
