// Package libnccl is the real NCCL behind backend.NCCL: libnccl.so.2,
// opened at run time through package loader (no cgo), its entry points
// resolved on first use and called through internal/dl's trampolines.
//
// ABI notes (checked against nccl.h of NCCL 2.17, 2.18, 2.19 and 2.28):
//   - ncclResult_t, ncclDataType_t and ncclRedOp_t are C enums of int size:
//     results come back in the low 32 bits of the return register, and
//     enum and int arguments are passed in full registers whose upper 32
//     bits the callee ignores.
//   - ncclComm_t and cudaStream_t are pointers; a CUstream is a
//     cudaStream_t.
//   - ncclUniqueId is a struct of 128 chars. ncclCommInitRankConfig takes it
//     by value, which on amd64 (System V: a struct over 16 bytes is MEMORY
//     class, copied into the stack argument area) needs 4 register
//     arguments and 16 stack words, more than dl's 14-argument calls carry;
//     on arm64 (AAPCS64: a composite over 16 bytes is copied by the caller
//     and passed by address in the next register) it is easy. So the id is
//     passed by address, to ncclCommInitRankScalable (NCCL 2.23 and later)
//     with one id: NCCL's ncclCommInitRankConfig is the same call with
//     nId = 1. With an older NCCL, arm64 falls back to
//     ncclCommInitRankConfig with the by-value copy (initrank_arm64.go);
//     amd64 reports that NCCL 2.23 is needed.
//   - ncclConfig_t is versioned: NCCL reads min(size, its own sizeof)
//     bytes and resets the fields newer than the version field says. This
//     package writes the NCCL 2.18 layout (config.go), which every NCCL
//     since 2.18 reads the same way.
package libnccl

//go:generate go run github.com/nocgo/cuda/internal/bindgen -iface NCCL -prefix nccl -abi -open Open:NCCL -needs needs
