// Package gpu is the NVIDIA driver of this machine: [Load] opens the real
// libcuda and returns a *driver.Driver over it, [LoadNVRTC] opens NVIDIA's
// run-time compiler (libnvrtc) alone, with no libcuda and no GPU needed;
// [Backend] is the real backend itself, for raw calls.
//
// It is the one user package that opens the real backend (internal/libcuda,
// and internal/libnvrtc for the compiler); package driver and the packages
// built on it know only the seam, so a program or test that runs on the
// fake (package fake) links no libcuda backend unless it imports gpu. Both libraries are found by package
// loader at run time (see there for the search order and the environment
// variables NOCGO_CUDA_LIBCUDA and NOCGO_CUDA_LIBNVRTC); nothing is linked
// at build time, and the package builds with CGO_ENABLED=0.
//
//	drv, err := gpu.Load() // or fake.New() on a machine with no GPU
//	if err != nil {
//		return err
//	}
//	dev, err := drv.Device(0)
package gpu

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libcuda"
)

// Load finds and opens the real CUDA driver (libcuda; see package loader for
// the search order and environment variables), resolves its entry points
// lazily, calls cuInit(0) and returns a [driver.Driver] over it. Without a
// driver it returns an error that lists every library path tried (a
// *loader.LibraryError); a library that opens but does not start names
// its paths and the failing call.
//
// Each call opens the driver again and returns a new *driver.Driver;
// objects of two Drivers do not mix (see driver.Context.Same). A Driver
// holds nothing to release.
func Load() (*driver.Driver, error) {
	api, err := libcuda.Open()
	if err != nil {
		return nil, fmt.Errorf("gpu.Load: %w", err)
	}
	drv, err := driver.New(api)
	if err != nil {
		if p, ok := api.(backend.LibraryPaths); ok {
			return nil, fmt.Errorf("gpu.Load: %v: %w", p.LibraryPaths(), err)
		}
		return nil, fmt.Errorf("gpu.Load: %w", err)
	}
	return drv, nil
}

// Backend opens the real CUDA driver's backend as [Load] does, but returns
// it with no Driver over it and without calling cuInit: for tests and
// programs that make raw calls on it, as a foreign library sharing the GPU
// would (conformance.Run, cmd/cudainfo's self-test), or that wrap it before
// giving it to [driver.New]. Without a driver it returns an error that lists
// every library path tried (a *loader.LibraryError).
func Backend() (backend.API, error) {
	api, err := libcuda.Open()
	if err != nil {
		return nil, fmt.Errorf("gpu.Backend: %w", err)
	}
	return api, nil
}
