// Package libcuda is the real backend: backend.API over libcuda, found and
// opened by package loader and called through internal/dl. Its
// NVRTCProvider opens NVIDIA's compiler through internal/libnvrtc. gpu.Load
// is its user (and, for raw calls in tests and the self-test,
// cudatest.RealBackend and cmd/cudainfo).
//
// # The raw layer
//
// entrypoints.txt declares every entry point the backends call, one line
// each: the backend method (of backend.API or an optional interface), the
// C signature, and how the entry point is resolved (since, cap, dlsym,
// direct, strict) and called (lean). From it internal/gen writes package
// internal/abi's names and versions of the entry points (shared with the
// fake), the sym enum and its table (zz_generated_syms.go; the nvsym enum
// of the libnvrtc entry points goes to internal/libnvrtc), and the methods
// of the mechanical entry points (zz_generated.go). The others (marked hand) are written by hand: strings, callbacks, by-value
// structs, image checks. After changing the table or package backend's
// interfaces, regenerate with
//
//	go generate ./internal/libcuda
//
// go test ./internal/libcuda/internal/gen fails when the checked-in output
// is not current.
package libcuda

//go:generate go run ./internal/gen
