//go:build !(linux && (amd64 || arm64))

package libcufft

import (
	"errors"

	"github.com/nocgo/cuda/driver/backend"
)

// Open reports that the real cuFFT is built for linux/amd64 and linux/arm64
// only; the fake's cuFFT works everywhere.
func Open() (backend.CUFFT, error) {
	return nil, errors.New("cufft: the real cuFFT is built for linux/amd64 and linux/arm64 only")
}
