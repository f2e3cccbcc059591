// Package libcufft is the real cuFFT behind backend.CUFFT: libcufft.so.12
// (CUDA 13) or libcufft.so.11 (CUDA 12), opened at run time through package
// loader (no cgo), its entry points resolved on first use and called
// through internal/dl's trampolines.
//
// ABI notes (cufft.h of CUDA 12 and 13): cufftHandle is an int, passed in a
// full register whose upper half the callee ignores; cufftResult, cufftType
// and the direction are ints; every plan is made with cufftMakePlanMany64
// (sizes, embeddings, strides, distances and the batch as long long), of
// which cufftPlan1d/2d/3d and cufftPlanMany are special cases.
package libcufft

//go:generate go run github.com/nocgo/cuda/internal/bindgen -iface CUFFT -prefix cufft -open Open:CUFFT
