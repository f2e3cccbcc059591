//go:build !(linux && (amd64 || arm64))

package libnvrtc

import (
	"errors"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"
)

// Open reports why NVRTC cannot be opened here: run-time loading is
// built for linux/amd64 and linux/arm64 only.
func Open() (backend.NVRTC, error) {
	if _, err := loader.Open(loader.NVRTC); err != nil {
		return nil, err
	}
	return nil, errors.New("libnvrtc: run-time loading is built for linux/amd64 and linux/arm64 only")
}
