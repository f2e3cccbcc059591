package memory_test

import (
	"testing"

	"github.com/nocgo/cuda/internal/zerotest"
	"github.com/nocgo/cuda/memory"
)

// Every method of every exported type, on a nil pointer and on a zero
// value, returns an error (or a zero answer) and never panics.
func TestZeroValuesNeverPanic(t *testing.T) {
	values := []any{
		(*memory.Buffer[float32])(nil), (*memory.HostBuffer[float32])(nil),
		(*memory.Pitched[float32])(nil), (*memory.Pitched3D[float32])(nil),
		(*memory.Registered[float32])(nil), (*memory.Pool)(nil),
		(*memory.PoolOptions)(nil), (*memory.PoolStats)(nil), (*memory.Location)(nil),
		memory.ManagedFlag(0), memory.Advice(0), memory.Access(0), memory.RegisterFlag(0),
		(*memory.AddressRange)(nil), (*memory.PhysicalMemory)(nil), (*memory.Mapping)(nil),
		(*memory.PhysicalOptions)(nil), (*memory.Growable[float32])(nil), (*memory.GrowableOptions)(nil),
	}
	zerotest.Covers(t, ".", values...)
	zerotest.Methods(t, zerotest.Options{}, values...)
}
