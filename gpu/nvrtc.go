package gpu

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/internal/libnvrtc"
)

// LoadNVRTC finds and opens NVIDIA's run-time compiler (libnvrtc) alone,
// without the CUDA driver: NVRTC needs no GPU. See package loader for the
// search order, and NOCGO_CUDA_LIBNVRTC to name the file (a Debian
// libnvrtc11.2, or NVIDIA's pip wheel nvidia-cuda-nvrtc-cu12 under
// site-packages/nvidia/cuda_nvrtc/lib, which the loader also finds by
// itself).
//
// The compiler it returns is the one the real backend uses; give it to the
// fake (fake.NVRTC) to compile real CUDA C on a machine with no GPU.
// Without libnvrtc it returns an error that lists every path tried (a
// *loader.LibraryError). The library stays loaded for the life of the
// process: the [driver.NVRTC] has nothing to close.
func LoadNVRTC() (*driver.NVRTC, error) {
	nv, err := libnvrtc.Open()
	if err != nil {
		return nil, fmt.Errorf("gpu.LoadNVRTC: %w", err)
	}
	return core.NewNVRTC[*driver.NVRTC](nv), nil
}
