//go:build !(linux && (amd64 || arm64))

package libcublas

import (
	"errors"

	"github.com/nocgo/cuda/driver/backend"
)

var errPlatform = errors.New("cublas: the real cuBLAS is built for linux/amd64 and linux/arm64 only")

// Open reports that the real cuBLAS is built for linux/amd64 and
// linux/arm64 only; the fake's cuBLAS works everywhere.
func Open() (backend.CUBLAS, error) { return nil, errPlatform }

// OpenLt reports the same for cuBLASLt.
func OpenLt() (backend.CUBLASLt, error) { return nil, errPlatform }
