package fake

import (
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// oldestDriver is the oldest CUDA version the fake models: entry points
// introduced after it are missing from a fake configured with an older
// Version, as they are from such a driver. The versions come from the
// backends' declaration table (internal/libcuda/entrypoints.txt, through
// package abi).
const oldestDriver = 9000

// fakeLibrary is the library name missing-symbol errors give.
const fakeLibrary = "fake libcuda"

// symbol reports an entry point the configured driver version lacks, the
// way the real backend does. Only libcuda's entry points depend on the
// driver's version; NVRTC is a library of its own.
func (b *fakeBackend) symbol(op string) error {
	ep, ok := abi.Lookup(op)
	if !ok || ep.Library != abi.CUDA || ep.Since <= oldestDriver || b.version >= ep.Since {
		return nil
	}
	return &backend.SymbolError{Library: fakeLibrary, Symbol: op, Since: ep.Since, Have: b.version}
}
