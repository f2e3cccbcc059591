//go:build linux

package libnccl

import "github.com/nocgo/cuda/driver/backend"

// initRankByValue would call ncclCommInitRankConfig with the 128-byte id by
// value: on amd64 that is 16 stack words after the register arguments,
// more than internal/dl's calls carry (see the package documentation). The
// NCCL loaded predates ncclCommInitRankScalable (2.23).
func (l *Lib) initRankByValue(_ int, _ *backend.NCCLUniqueID, _ int, _ *config, _ []byte, _ *uintptr) error {
	_, err := l.fn(symCommInitRankScalable)
	return err
}
