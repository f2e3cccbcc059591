// Package libnvrtc is NVIDIA's run-time compiler: backend.NVRTC over
// libnvrtc, found and opened by package loader and called through
// internal/dl. It needs no libcuda and no GPU, and imports no backend: the
// real backend (internal/libcuda's NVRTCProvider), package gpu's LoadNVRTC
// and the fake's real compiler all open it through Open.
//
// Its entry points are lines of internal/libcuda/entrypoints.txt (the one
// declaration table of the real backends); internal/libcuda's generator
// writes their nvsym enum and table here (zz_generated_syms.go):
//
//	go generate ./internal/libcuda
package libnvrtc
