//go:build linux && (amd64 || arm64)

package libcuda

import (
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libnvrtc"
)

// NVRTCIdentity names the libnvrtc NVRTC would open (see
// libnvrtc.Identity), or the one it opened, without opening it.
func (l *libcuda) NVRTCIdentity() (string, bool) {
	if n := l.nvrtc.Load(); n != nil {
		return libnvrtc.IdentityOf(*n)
	}
	return libnvrtc.Identity()
}

var _ backend.NVRTCIdentifier = (*libcuda)(nil)
