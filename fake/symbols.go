package fake

import "github.com/nocgo/cuda/driver"

// since lists entry points newer than the oldest driver the library
// supports, with the CUDA version that introduced them.
var since = map[string]int{
	"cuStreamGetCtx":                  9020,
	"cuLaunchHostFunc":                10000,
	"cuMemAllocAsync":                 11020,
	"cuMemFreeAsync":                  11020,
	"cuFuncGetParamInfo":              12040,
}

// symbol reports a missing entry point the way the real backend does.
func (b *Backend) symbol(op string) error {
	v, ok := since[op]
	if !ok || b.version >= v {
		return nil
	}
	return missingSymbol(op, v, b.version)
}

// missingSymbol builds the error of an entry point the configured driver
// version lacks.
func missingSymbol(op string, need, have int) error {
	_ = op
	_ = need
	_ = have
	return driver.ErrNotSupported // TODO: *loader.SymbolError once package loader lands
}
