// Package libnvjitlink is NVIDIA's JIT linker: backend.JITLinker over
// libnvJitLink (libnvJitLink.so.13, .so.12), found and opened by package
// loader (kind NVJITLINK, NOCGO_CUDA_LIBNVJITLINK) and called through
// internal/dl. It needs no libcuda and no GPU; the real backend
// (internal/libcuda's JITLinkProvider) opens it on the first
// link-time-optimised link. Its entry points are found with dlsym by their
// unversioned names, which libnvJitLink exports beside the versioned ones
// its header maps them to.
package libnvjitlink

//go:generate go run github.com/nocgo/cuda/internal/bindgen -iface JITLinker -type linker -prefix nvJitLink
