package nvml_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// faultKernel launches kernel name (a Go body of the fake storing 4 TiB
// past its one-float buffer) on device 0 and waits for its sticky fault:
// the process is poisoned from then on. What it made is closed when the
// test ends.
func faultKernel(t *testing.T, drv *driver.Driver, name string) {
	t.Helper()
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	buf, err := memory.Alloc[float32](ctx, 1)
	require.NoError(t, err)
	m, err := module.Compile(ctx, `extern "C" __global__ void `+name+`(float *p) { p[1ll << 40] = 1; }`, module.Options{Name: name + ".cu", NoCache: true})
	require.NoError(t, err)
	f, err := m.Function(name)
	require.NoError(t, err)
	require.NoError(t, f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(1)}, buf))
	require.ErrorIs(t, s.Synchronize(), driver.ErrIllegalAddress)
	t.Cleanup(func() {
		for _, c := range []interface{ Close() error }{m, buf, s, ctx} {
			_ = c.Close() // closes, even when the poisoned driver refuses
		}
	})
}
