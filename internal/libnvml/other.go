//go:build !(linux && (amd64 || arm64))

package libnvml

import (
	"errors"

	"github.com/nocgo/cuda/driver/backend"
)

// Open reports that the real NVML is built for linux/amd64 and linux/arm64
// only; the fake's NVML works everywhere.
func Open() (backend.NVML, error) {
	return nil, errors.New("nvml: the real NVML is built for linux/amd64 and linux/arm64 only")
}
