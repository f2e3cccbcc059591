//go:build !(linux && (amd64 || arm64))

package libcuda

import (
	"errors"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/loader"
)

// Open reports why the real driver cannot be opened here: run-time
// loading is built for linux/amd64 and linux/arm64 only, so the loader
// returns a *loader.LibraryError. The fake backend works everywhere.
func Open() (backend.API, error) {
	if _, err := loader.Open(loader.CUDA); err != nil {
		return nil, err
	}
	return nil, errors.New("driver: the real backend is built for linux/amd64 and linux/arm64 only")
}
