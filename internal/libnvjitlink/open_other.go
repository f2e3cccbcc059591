//go:build !(linux && (amd64 || arm64))

package libnvjitlink

import (
	"errors"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"
)

// Open reports why nvJitLink cannot be opened here: run-time loading is
// built for linux/amd64 and linux/arm64 only.
func Open() (backend.JITLinker, error) {
	if _, err := loader.Open(loader.NVJITLINK); err != nil {
		return nil, err
	}
	return nil, errors.New("libnvjitlink: run-time loading is built for linux/amd64 and linux/arm64 only")
}
