package driver

import (
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// NVRTC is NVIDIA's run-time compiler (libnvrtc), opened alone by
// [github.com/nocgo/cuda/gpu.LoadNVRTC]: it compiles CUDA C to PTX and
// needs no GPU. Its one use is to be given to the fake (fake.NVRTC), so
// that module.Compile on the fake compiles real CUDA C on a machine with no
// GPU; on the real driver, module.Compile uses the driver's own compiler
// and needs no NVRTC value.
//
// The library stays loaded for the life of the process: there is nothing
// to close. A NVRTC is safe for concurrent use. The zero NVRTC and a nil
// *NVRTC are not usable: Version returns an error, the other methods empty
// strings.
type NVRTC struct {
	// The backend's compiler, set by core.NewNVRTC (gpu.LoadNVRTC) and read
	// by core.NVRTCOf (here and in the fake), both through the link's
	// promoted methods, which staticcheck does not follow.
	//lint:ignore U1000 used through core.NewNVRTC and core.NVRTCOf
	nvrtcLink
}

// nvrtcLink names the embedded link unexported: users see nothing of it.
//
//lint:ignore U1000 used through core.NewNVRTC and core.NVRTCOf
type nvrtcLink = core.NVRTCLink

// errNilNVRTC is the error of a nil or zero NVRTC.
var errNilNVRTC = fmt.Errorf("driver.NVRTC: nil or zero NVRTC (use gpu.LoadNVRTC): %w", ErrInvalidValue)

// Version returns the compiler's version (nvrtcVersion), such as 12, 8.
func (n *NVRTC) Version() (major, minor int, err error) {
	nv := core.NVRTCOf(n)
	if nv == nil {
		return 0, 0, errNilNVRTC
	}
	major, minor, err = nv.Version()
	if err != nil {
		return 0, 0, fmt.Errorf("driver.NVRTC.Version: %w", err)
	}
	return major, minor, nil
}

// Implementation returns "libnvrtc" (NVIDIA's library), or "" for a nil or
// zero NVRTC.
func (n *NVRTC) Implementation() string {
	if nv := core.NVRTCOf(n); nv != nil {
		return nv.Implementation()
	}
	return ""
}

// LibraryPath returns the path of the libnvrtc file the system loader
// opened, or "" when it is not known (and for a nil or zero NVRTC).
func (n *NVRTC) LibraryPath() string {
	if p, ok := core.NVRTCOf(n).(backend.LibraryPaths); ok {
		if paths := p.LibraryPaths(); len(paths) > 0 {
			return paths[0]
		}
	}
	return ""
}
