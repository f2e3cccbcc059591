package module_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// globalPTX is add1's PTX with a device variable of 3 floats, "scale".
func globalPTX() string {
	return ".version 7.8\n.target sm_90\n.address_size 64\n\n.visible .global .align 4 .f32 scale[3];\n" +
		ptxKernel("add1")[len(".version 7.8\n.target sm_90\n.address_size 64\n"):]
}

// Link refuses a zero or closed context, and a refused link (bad input, or
// a link the driver refuses) makes nothing: the fake's Leaks stay empty
// and the context still links and loads.
func TestLinkRefusedChangesNothing(t *testing.T) {
	drv := cudatest.Fake(t, fake.Kernel("add1", addBody(1)))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	add1 := module.LinkInput{Name: "a.ptx", Data: []byte(ptxKernel("add1"))}

	_, err = module.Link(&driver.Context{}, add1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "zero context")

	before := fake.Of(drv).Leaks()
	_, err = module.Link(ctx, add1, add1)
	require.Error(t, err, "a kernel defined twice")
	_, err = module.Link(ctx, add1, module.LinkInput{Name: "k.cubin", Data: []byte("\x7fELF")})
	require.Error(t, err, "a CUBIN the fake cannot link")
	assert.Equal(t, before, fake.Of(drv).Leaks(), "a refused link leaves no module, linker state or hold")

	m, err := module.Link(ctx, add1)
	require.NoError(t, err, "the context still links")
	require.NoError(t, m.Close())
	require.NoError(t, m.Close(), "a second Close is nil")

	other, err := dev.NewContext(driver.ContextOptions{})
	require.NoError(t, err)
	require.NoError(t, other.Close())
	_, err = module.Link(other, add1)
	assert.ErrorIs(t, err, driver.ErrClosed, "closed context")
	require.NoError(t, ctx.Close())
	_, err = module.Link(ctx, add1)
	assert.ErrorIs(t, err, driver.ErrClosed, "closed primary context")
}

// A link whose driver call fails (each of cuLinkCreate, cuLinkAddData,
// cuLinkComplete, cuLinkDestroy, and the load after it) returns the
// driver's code and leaves nothing behind; the next link succeeds.
func TestLinkDriverFailureLeavesNothing(t *testing.T) {
	for _, op := range []string{"cuLinkCreate", "cuLinkAddData", "cuLinkComplete", "cuModuleLoadDataEx"} {
		t.Run(op, func(t *testing.T) {
			drv := cudatest.Fake(t, fake.Kernel("add1", addBody(1)), fake.FailNth(op, 1, driver.ErrOutOfMemory))
			dev, err := drv.Device(0)
			require.NoError(t, err)
			ctx, err := dev.PrimaryContext()
			require.NoError(t, err)
			defer func() { assert.NoError(t, ctx.Close()) }()
			add1 := module.LinkInput{Name: "a.ptx", Data: []byte(ptxKernel("add1"))}
			before := fake.Of(drv).Leaks()
			_, err = module.Link(ctx, add1)
			require.ErrorIs(t, err, driver.ErrOutOfMemory)
			assert.Equal(t, before, fake.Of(drv).Leaks(), "nothing made")
			m, err := module.Link(ctx, add1)
			require.NoError(t, err, "the next link succeeds")
			require.NoError(t, m.Close())
		})
	}
}

// Global: a missing name is ErrNotFound, a size that is not a whole number
// of T refused, a zero Module refused; the view's Close frees nothing (the
// module still reads its variable) and lets go of the view's hold on the
// context (cudatest.Fake finds a view not closed), and after the module's
// Close Global says it is closed.
func TestGlobalPromises(t *testing.T) {
	ctx, _ := extSetup(t)
	m, err := module.Load(ctx, []byte(globalPTX()))
	require.NoError(t, err)

	_, err = module.Global[float32](m, "nope")
	assert.ErrorIs(t, err, driver.ErrNotFound)
	_, err = module.Global[[2]float32](m, "scale")
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "12 bytes are not a whole number of 8-byte elements")
	assert.ErrorContains(t, err, "not a whole number")
	_, err = module.Global[float32](&module.Module{}, "scale")
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "zero module")

	g, err := module.Global[float32](m, "scale")
	require.NoError(t, err)
	assert.Equal(t, 3, g.Len())
	require.NoError(t, memory.CopyToDevice(g, []float32{1, 2, 3}))
	require.NoError(t, g.Close(), "closing the view releases nothing")
	g2, err := module.Global[float32](m, "scale")
	require.NoError(t, err)
	got := make([]float32, 3)
	require.NoError(t, memory.CopyToHost(got, g2))
	assert.Equal(t, []float32{1, 2, 3}, got, "the variable outlives its views")
	require.NoError(t, g2.Close(), "a view holds the context until closed")

	require.NoError(t, m.Close())
	_, err = module.Global[float32](m, "scale")
	assert.ErrorIs(t, err, driver.ErrClosed)
}

// Cluster and cooperative launches (cuLaunchKernelEx) refuse a nil, zero,
// closed or foreign stream, a closed function and bad arguments before the
// driver is called: the stream's work is unchanged (nothing ran).
func TestLaunchExBadInput(t *testing.T) {
	drv := cudatest.Fake(t, fake.Devices(2), fake.Kernel("add1", addBody(1)))
	ctxOf := func(i int) *driver.Context {
		dev, err := drv.Device(i)
		require.NoError(t, err)
		ctx, err := dev.PrimaryContext()
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, ctx.Close()) })
		return ctx
	}
	ctx, ctx1 := ctxOf(0), ctxOf(1)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	foreign, err := stream.New(ctx1, stream.Options{})
	require.NoError(t, err)
	defer foreign.Close()
	closed, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	require.NoError(t, closed.Close())

	m, err := module.Load(ctx, []byte(ptxKernel("add1")))
	require.NoError(t, err)
	f, err := m.Function("add1")
	require.NoError(t, err)
	buf, err := memory.Alloc[float32](ctx, 64)
	require.NoError(t, err)
	defer buf.Close()
	require.NoError(t, memory.CopyToDevice(buf, make([]float32, 64)))

	for _, cfg := range []module.Config{
		{Grid: module.Dim(2), Block: module.Dim(32), Cluster: module.Dim(2)},
		{Grid: module.Dim(2), Block: module.Dim(32), Cooperative: true},
	} {
		for name, c := range map[string]struct {
			s    *stream.Stream
			args []any
			want error
		}{
			"nil stream":     {nil, []any{buf, int32(64)}, driver.ErrInvalidValue},
			"zero stream":    {&stream.Stream{}, []any{buf, int32(64)}, driver.ErrInvalidValue},
			"closed stream":  {closed, []any{buf, int32(64)}, driver.ErrClosed},
			"foreign stream": {foreign, []any{buf, int32(64)}, driver.ErrWrongContext},
			"too few args":   {s, []any{buf}, module.ErrArgs},
			"wrong arg type": {s, []any{buf, 1.5}, module.ErrArgs},
		} {
			err := f.Launch(c.s, cfg, c.args...)
			assert.ErrorIs(t, err, c.want, "%s, %+v", name, cfg)
		}
	}
	require.NoError(t, s.Synchronize())
	got := make([]float32, 64)
	require.NoError(t, memory.CopyToHost(got, buf))
	assert.Equal(t, make([]float32, 64), got, "no refused launch ran")

	require.NoError(t, m.Close())
	err = f.Launch(s, module.Config{Grid: module.Dim(2), Block: module.Dim(32), Cluster: module.Dim(2)}, buf, int32(64))
	assert.ErrorIs(t, err, driver.ErrClosed, "closed module")
}

// A cluster launch the driver refuses (cuLaunchKernelEx failing) returns
// the driver's code, leaves the stream usable and leaks nothing.
func TestLaunchExDriverFailure(t *testing.T) {
	ctx, s := extSetup(t, fake.FailNth("cuLaunchKernelEx", 1, driver.ErrOutOfMemory))
	m, err := module.Load(ctx, []byte(ptxKernel("add1")))
	require.NoError(t, err)
	defer func() { assert.NoError(t, m.Close()) }()
	f, err := m.Function("add1")
	require.NoError(t, err)
	buf, err := memory.Alloc[float32](ctx, 64)
	require.NoError(t, err)
	defer buf.Close()
	cfg := module.Config{Grid: module.Dim(2), Block: module.Dim(32), Cluster: module.Dim(2)}
	require.ErrorIs(t, f.Launch(s, cfg, buf, int32(64)), driver.ErrOutOfMemory)
	require.NoError(t, s.Synchronize(), "the stream is usable")
	assert.Equal(t, filled(64, 1), runAdd(t, ctx, s, f, cfg, 64), "the next launch runs")
}
