package module_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
)

// A module compiled from CUDA C names a launch's parameters by its C
// signature, says which Go type to pass, and refuses a buffer of another
// element type than the C pointer's; nothing is launched.
func TestLaunchMessagesFromTheCSignature(t *testing.T) {
	drv := fakeDriver(fake.Kernel("scale", scaleBody), fake.CountCalls())
	ctx, s := setup(t, drv)
	m, err := module.Compile(ctx, scaleSource, module.Options{NoCache: true})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	f, err := m.Function("scale")
	require.NoError(t, err)
	in, out := alloc(t, ctx, 4), alloc(t, ctx, 4)
	ints, err := memory.Alloc[int32](ctx, 4)
	require.NoError(t, err)
	t.Cleanup(func() { ints.Close() })
	cfg := module.ForElems(4)

	err = f.Launch(s, cfg, out, in, float32(2), 4)
	require.ErrorIs(t, err, module.ErrArgs)
	assert.Contains(t, err.Error(), "argument 3 (int n): an int of 8 bytes for a .u32 parameter: pass an int32 (")
	assert.NotContains(t, err.Error(), "scale_param_3")

	err = f.Launch(s, cfg, out, ints, float32(2), int32(4))
	require.ErrorIs(t, err, module.ErrArgs)
	assert.Contains(t, err.Error(), "argument 1 (const float* in) is a *memory.Buffer[int32], but the C parameter is const float* in: pass a *memory.Buffer[float32]")

	err = f.Launch(s, cfg, out, in, 2.0, int32(4))
	require.ErrorIs(t, err, module.ErrArgs)
	assert.Contains(t, err.Error(), "argument 2 (float k): a float64 of 8 bytes for a .f32 parameter: pass a float32")

	args, err := f.Args(out, in, float32(2), int32(4))
	require.NoError(t, err)
	err = args.Set(1, ints)
	assert.ErrorIs(t, err, module.ErrArgs, "Args.Set checks the same")
	assert.Zero(t, fake.Of(drv).Calls()["cuLaunchKernel"], "nothing launched")

	require.NoError(t, f.Launch(s, cfg, out, in, float32(2), int32(4)))
	require.NoError(t, f.Launch(s, cfg, out, in, float32(2), uint32(4)), "the PTX's .u32 takes either sign")
	require.NoError(t, f.Launch(s, cfg, uintptr(out.Ptr()), in, float32(2), int32(4)), "a uintptr is unchecked")
	require.NoError(t, s.Synchronize())
}

// Without a C signature (a module loaded from PTX) the .u32 hint names
// both Go types that fit.
func TestLaunchMessageU32FromPTX(t *testing.T) {
	drv := fakeDriver(fake.Kernel("scale", scaleBody))
	ctx, s := setup(t, drv)
	c, err := module.Compile(ctx, scaleSource, module.Options{NoCache: true})
	require.NoError(t, err)
	ptx := c.PTX()
	require.NoError(t, c.Close())
	if ptx == nil {
		t.Skip("the compile kept no PTX")
	}
	m, err := module.Load(ctx, ptx)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	f, err := m.Function("scale")
	require.NoError(t, err)
	in, out := alloc(t, ctx, 4), alloc(t, ctx, 4)
	err = f.Launch(s, module.ForElems(4), out, in, float32(2), 4)
	require.ErrorIs(t, err, module.ErrArgs)
	assert.Contains(t, err.Error(), "(scale_param_3): an int of 8 bytes for a .u32 parameter: pass an int32 or a uint32")
}
