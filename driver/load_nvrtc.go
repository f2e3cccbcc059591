package driver

import (
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libcuda"
)

// LoadNVRTC finds and opens NVIDIA's run-time compiler (libnvrtc) alone,
// without the CUDA driver: NVRTC needs no GPU. See package loader for the
// search order, and NOCGO_CUDA_LIBNVRTC to name the file (a Debian
// libnvrtc11.2, or NVIDIA's pip wheel nvidia-cuda-nvrtc-cu12 under
// site-packages/nvidia/cuda_nvrtc/lib, which the loader also finds by itself).
//
// The compiler it returns is the one the real backend uses; give it to the
// fake (fake.NVRTC) to compile real CUDA C on a machine with no GPU, or use
// it directly. Implementation reports "libnvrtc"; the library's path is
// LibraryPaths()[0] (it implements backend.LibraryPaths). Without libnvrtc it
// returns an error that lists every path tried (a *loader.LibraryError).
func LoadNVRTC() (backend.NVRTC, error) {
	nv, err := libcuda.OpenNVRTC()
	if err != nil {
		return nil, fmt.Errorf("driver.LoadNVRTC: %w", err)
	}
	return nv, nil
}
