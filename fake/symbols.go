package fake

import (
	"github.com/nocgo/cuda/internal/libcuda"
	"github.com/nocgo/cuda/loader"
)

// oldestDriver is the oldest CUDA version the fake models: entry points
// introduced after it are missing from a fake configured with an older
// Version, as they are from such a driver. The versions come from the real
// backend's declaration table (internal/libcuda/entrypoints.txt).
const oldestDriver = 9000

// fakeLibrary is the library name missing-symbol errors give.
const fakeLibrary = "fake libcuda"

// symbol reports an entry point the configured driver version lacks, the
// way the real backend does.
func (b *fakeBackend) symbol(op string) error {
	v, ok := libcuda.Since(op)
	if !ok || v <= oldestDriver || b.version >= v {
		return nil
	}
	return &loader.SymbolError{Library: fakeLibrary, Symbol: op, Since: v, Have: b.version}
}
