package module_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// failPop is a fake whose next cuCtxPopCurrent fails, once armed.
type failPop struct {
	fake.Backend
	armed atomic.Bool
}

func (f *failPop) CtxPopCurrent() (uintptr, error) {
	if f.armed.CompareAndSwap(true, false) {
		return 0, driver.ErrUnknown
	}
	return f.Backend.CtxPopCurrent()
}

// Launches on a special stream bind the context, and so do the function's
// attribute calls: a failed unbind is reported.
func TestLaunchReportsUnbindFailure(t *testing.T) {
	api := &failPop{Backend: fake.NewBackend(fakeOptions()...)}
	drv, err := driver.New(api)
	require.NoError(t, err)
	ctx, _ := setup(t, drv)
	s, err := stream.Legacy(ctx)
	require.NoError(t, err)
	defer s.Close()
	m := compileSegscale(t, ctx, module.Options{NoCache: true})
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	out := alloc(t, ctx, 64)
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(64)}
	args, err := f.Args(out, out, int32(64))
	require.NoError(t, err)

	for name, call := range map[string]func() error{
		"module.Function.Launch":     func() error { return f.Launch(s, cfg, out, out, int32(64)) },
		"module.Function.LaunchArgs": func() error { return f.LaunchArgs(s, cfg, args) },
		"module.Function.Attribute": func() error {
			_, err := f.Attribute(module.FunctionAttribute(0))
			return err
		},
		"module.Function.SetMaxDynamicSharedMemory": func() error { return f.SetMaxDynamicSharedMemory(1024) },
		"module.Function.MaxPotentialBlockSize": func() error {
			_, _, err := f.MaxPotentialBlockSize(0, 0)
			return err
		},
	} {
		done := make(chan error, 1)
		go func() {
			api.armed.Store(true)
			done <- call()
		}()
		err := <-done
		if assert.Error(t, err, name) {
			assert.ErrorIs(t, err, driver.ErrUnknown, name)
			assert.Contains(t, err.Error(), name, name)
			assert.Contains(t, err.Error(), "cuCtxPopCurrent", name)
		}
	}
	require.NoError(t, s.Synchronize())
}
