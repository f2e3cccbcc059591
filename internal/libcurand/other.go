//go:build !(linux && (amd64 || arm64))

package libcurand

import (
	"errors"

	"github.com/nocgo/cuda/driver/backend"
)

// Open reports that the real cuRAND is built for linux/amd64 and
// linux/arm64 only; the fake's cuRAND works everywhere.
func Open() (backend.CURAND, error) {
	return nil, errors.New("curand: the real cuRAND is built for linux/amd64 and linux/arm64 only")
}
