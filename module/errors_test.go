package module_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/module"
)

// prefixed checks that err names op first, and only once.
func prefixed(t *testing.T, err error, op string) {
	t.Helper()
	require.Error(t, err, op)
	msg := err.Error()
	assert.True(t, strings.HasPrefix(msg, op+": "), "%q starts with %q", msg, op)
	assert.Equal(t, 1, strings.Count(msg, op+":"), "%q names %q once", msg, op)
}

// Errors name the exported call that failed first, once, then the kernel
// or module and the driver call, and wrap the cause.
func TestErrorsNameTheCall(t *testing.T) {
	drv := fakeDriver(
		fake.FailNth("cuFuncGetAttribute", 1, driver.ErrUnknown),
		fake.FailNth("cuModuleUnload", 1, driver.ErrUnknown),
	)
	ctx, s := setup(t, drv)
	m, err := module.Compile(ctx, segscale.Source, module.Options{NoCache: true})
	require.NoError(t, err)
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	n := 8
	in, out := alloc(t, ctx, n), alloc(t, ctx, n)
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}

	err = f.Launch(s, cfg, out, in)
	prefixed(t, err, "module.Function.Launch")
	assert.ErrorIs(t, err, module.ErrArgs)
	assert.Contains(t, err.Error(), "kernel "+segscale.Name+": ")
	err = f.Launch(s, cfg, out, in, 1.5)
	prefixed(t, err, "module.Function.Launch")
	assert.Contains(t, err.Error(), "argument 2 ")
	err = f.Launch(s, module.Config{}, out, in, int32(n))
	prefixed(t, err, "module.Function.Launch")
	assert.ErrorIs(t, err, module.ErrConfig)

	args, err := f.Args(out, in, int32(n))
	require.NoError(t, err)
	prefixed(t, args.Set(2, 1.5), "module.Args.Set")
	prefixed(t, f.LaunchArgs(s, cfg, nil), "module.Function.LaunchArgs")
	_, err = f.Args(out)
	prefixed(t, err, "module.Function.Args")

	_, err = f.Attributes()
	prefixed(t, err, "module.Function.Attributes")
	assert.NotContains(t, err.Error(), "module.Function.Attribute:")
	assert.ErrorIs(t, err, driver.ErrUnknown)

	_, err = m.Function("no_such_kernel")
	prefixed(t, err, "module.Module.Function")

	err = m.Close()
	prefixed(t, err, "module.Module.Close")
	assert.ErrorIs(t, err, driver.ErrUnknown)
	require.NoError(t, m.Close())
	err = f.Launch(s, cfg, out, in, int32(n))
	prefixed(t, err, "module.Function.Launch")
	assert.ErrorIs(t, err, driver.ErrClosed)

	path := filepath.Join(t.TempDir(), "empty.ptx")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	_, err = module.LoadFile(ctx, path)
	prefixed(t, err, "module.LoadFile")
	assert.NotContains(t, err.Error(), "module.Load:")
}

// Compile's default architecture comes from the device; an error reading it
// is Compile's, named once.
func TestCompileErrorNamesCompileOnce(t *testing.T) {
	drv := fakeDriver(fake.FailNth("cuDeviceGetAttribute", 1, driver.ErrUnknown))
	ctx, _ := setup(t, drv)
	_, err := module.Compile(ctx, segscale.Source, module.Options{NoCache: true})
	prefixed(t, err, "module.Compile")
	assert.NotContains(t, err.Error(), "driver.")
	assert.ErrorIs(t, err, driver.ErrUnknown)
}
