package module_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/module"
)

// ownedContext creates a context of its own on device 0 of drv.
func ownedContext(t *testing.T, drv *driver.Driver) *driver.Context {
	t.Helper()
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.NewContext(driver.ContextOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

// TestUnloadRetry: when cuModuleUnload fails, the module stays loaded,
// usable and holding its context, and a second Close finishes the job.
func TestUnloadRetry(t *testing.T) {
	b := fake.NewBackend(fakeOptions(fake.FailNth("cuModuleUnload", 1, driver.ErrUnknown))...)
	drv, err := driver.New(b)
	require.NoError(t, err)
	ctx := ownedContext(t, drv)
	h := ctx.Handle()
	m, err := module.Compile(ctx, segscale.Source, module.Options{NoCache: true})
	require.NoError(t, err)
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	mh := m.Handle()
	require.NoError(t, ctx.Close(), "the module holds the context from here")

	err = m.Close()
	require.ErrorIs(t, err, driver.ErrUnknown)
	assert.Contains(t, err.Error(), "cuModuleUnload")
	assert.Equal(t, mh, m.Handle(), "still loaded")
	_, err = f.Attributes()
	assert.NoError(t, err, "its Functions still work")
	_, err = m.Function(segscale.Name)
	assert.NoError(t, err, "and lookups")
	_, err = b.CtxGetAPIVersion(h)
	require.NoError(t, err, "the failed Unload kept its hold on the context")

	require.NoError(t, m.Close(), "the retry unloads the module")
	assert.Zero(t, m.Handle())
	_, err = f.Attributes()
	assert.ErrorIs(t, err, driver.ErrClosed)
	_, err = b.CtxGetAPIVersion(h)
	assert.ErrorIs(t, err, driver.ErrInvalidContext, "the last holder gone, the released context is destroyed")
	require.NoError(t, m.Close(), "a third Unload is a no-op")
	assert.Empty(t, b.Leaks(), "nothing leaked")
}

// TestLoadFailureReleasesHold: a load the driver refuses gives back its
// hold on the context, so that releasing the context ends it at once.
func TestLoadFailureReleasesHold(t *testing.T) {
	drv := fakeDriver(
		fake.FailNth("cuModuleLoadData", 1, driver.ErrOutOfMemory),
		fake.FailNth("cuModuleLoadData", 2, driver.ErrOutOfMemory),
	)
	ctx := ownedContext(t, drv)
	h := ctx.Handle()
	_, err := module.Load(ctx, []byte(".version 8.0\n"))
	require.ErrorIs(t, err, driver.ErrOutOfMemory)
	_, err = module.Compile(ctx, segscale.Source, module.Options{NoCache: true})
	require.ErrorIs(t, err, driver.ErrOutOfMemory)
	require.NoError(t, ctx.Close())
	_, err = fake.Of(drv).Backend().CtxGetAPIVersion(h)
	assert.ErrorIs(t, err, driver.ErrInvalidContext, "no failed load kept the context alive")
}

// TestModuleUnloadEndsContext: a module is the last holder of a released
// context; Close returns the error of ending the context, joined.
func TestModuleUnloadEndsContext(t *testing.T) {
	b := fake.NewBackend(fakeOptions(fake.FailNth("cuCtxDestroy", 1, driver.ErrUnknown))...)
	drv, err := driver.New(b)
	require.NoError(t, err)
	ctx := ownedContext(t, drv)
	m, err := module.Compile(ctx, segscale.Source, module.Options{NoCache: true})
	require.NoError(t, err)
	require.NoError(t, ctx.Close())
	err = m.Close()
	assert.ErrorIs(t, err, driver.ErrUnknown, "cuCtxDestroy's error")
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "cuCtxDestroy")
	}
	assert.Zero(t, m.Handle(), "the module itself is unloaded")
	require.NoError(t, m.Close(), "and a second Unload is a no-op")
}
