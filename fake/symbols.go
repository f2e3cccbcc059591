package fake

import "github.com/nocgo/cuda/loader"

// since lists entry points newer than the oldest driver the library
// supports, with the CUDA version that introduced them.
var since = map[string]int{
	"cuStreamGetCtx":     9020,
	"cuLaunchHostFunc":   10000,
	"cuMemAllocAsync":    11020,
	"cuMemFreeAsync":     11020,
	"cuFuncGetParamInfo": 12040,
}

// fakeLibrary is the library name missing-symbol errors give.
const fakeLibrary = "fake libcuda"

// symbol reports an entry point the configured driver version lacks, the
// way the real backend does.
func (b *Backend) symbol(op string) error {
	v, ok := since[op]
	if !ok || b.version >= v {
		return nil
	}
	return &loader.SymbolError{Library: fakeLibrary, Symbol: op, Since: v, Have: b.version}
}
