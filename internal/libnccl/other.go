//go:build !(linux && (amd64 || arm64))

package libnccl

import (
	"errors"

	"github.com/nocgo/cuda/driver/backend"
)

// Open reports that the real NCCL is built for linux/amd64 and linux/arm64
// only; the fake's NCCL works everywhere.
func Open() (backend.NCCL, error) {
	return nil, errors.New("nccl: the real NCCL is built for linux/amd64 and linux/arm64 only")
}
