// Package libcurand is the real cuRAND behind backend.CURAND: libcurand.so.10,
// opened at run time through package loader (no cgo), its entry points
// resolved on first use and called through internal/dl's trampolines.
//
// ABI notes (curand.h of CUDA 12 and 13): curandStatus_t, curandRngType_t
// and curandOrdering_t are C enums of int size; curandGenerator_t and
// cudaStream_t are pointers; seeds and offsets are unsigned long long. The
// normal, log-normal and Poisson entry points take float or double
// arguments, which go in the floating-point argument registers
// (dl.CallFP4).
package libcurand

//go:generate go run github.com/nocgo/cuda/internal/bindgen -iface CURAND -prefix curand -open Open:CURAND
