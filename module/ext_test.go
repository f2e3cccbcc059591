package module_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// ptxKernel is the PTX of a kernel name(float* p, int n) with an empty
// body: on the fake, the Go body registered under name runs.
func ptxKernel(name string) string {
	return `.version 7.8
.target sm_90
.address_size 64

.visible .entry ` + name + `(
	.param .u64 ` + name + `_param_0,
	.param .u32 ` + name + `_param_1
)
{
	ret;
}
`
}

// addBody returns a Go body adding d to p[i] for i < n.
func addBody(d float32) func(t fake.Thread, p fake.Ptr, n int32) {
	return func(t fake.Thread, p fake.Ptr, n int32) {
		if i := t.X(); i < int(n) {
			fake.Store(t, p, i, fake.Load[float32](t, p, i)+d)
		}
	}
}

// extSetup returns a context and stream of a fake that checks for leaks,
// with the Go bodies add1 (adds 1) and add10 (adds 10).
func extSetup(t *testing.T, opts ...fake.Option) (*driver.Context, *stream.Stream) {
	t.Helper()
	opts = append(opts, fake.Kernel("add1", addBody(1)), fake.Kernel("add10", addBody(10)))
	drv := cudatest.Fake(t, opts...)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, ctx.Close()) })
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return ctx, s
}

// runAdd launches f over a buffer of n zeros with cfg and returns the result.
func runAdd(t *testing.T, ctx *driver.Context, s *stream.Stream, f *module.Function, cfg module.Config, n int) []float32 {
	t.Helper()
	buf, err := memory.Alloc[float32](ctx, n)
	require.NoError(t, err)
	defer buf.Close()
	require.NoError(t, memory.CopyToDevice(buf, make([]float32, n)))
	require.NoError(t, f.Launch(s, cfg, buf, int32(n)))
	require.NoError(t, s.Synchronize())
	got := make([]float32, n)
	require.NoError(t, memory.CopyToHost(got, buf))
	return got
}

func filled(n int, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestLoadJITLogs(t *testing.T) {
	ctx, _ := extSetup(t)
	m, err := module.Load(ctx, []byte(ptxKernel("add1")))
	require.NoError(t, err)
	assert.Contains(t, m.JITLog(), "add1", "the info log names the kernel compiled")
	require.NoError(t, m.Close())

	bad := ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry add1(\n\t.param .u64 p,\n{\n\tret;\n}\n"
	_, err = module.Load(ctx, []byte(bad))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "module.Load: PTX image ("), err.Error())
	var le *module.LoadError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "cuModuleLoadDataEx", le.Call)
	assert.NotEmpty(t, le.Log, "the error log says why")
	assert.Contains(t, err.Error(), le.Log, "and the error prints it")
	assert.ErrorIs(t, err, driver.ErrInvalidPTX)
}

func TestLinkPTX(t *testing.T) {
	ctx, s := extSetup(t)
	m, err := module.Link(ctx,
		module.LinkInput{Name: "add1.ptx", Data: []byte(ptxKernel("add1"))},
		module.LinkInput{Name: "add10.ptx", Kind: module.PTX, Data: []byte(ptxKernel("add10") + "\x00")})
	require.NoError(t, err)
	defer m.Close()
	assert.ElementsMatch(t, []string{"add1", "add10"}, m.Kernels())
	assert.Contains(t, m.JITLog(), "add10.ptx", "the linker's info log")
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(32)}
	for name, want := range map[string]float32{"add1": 1, "add10": 10} {
		f, err := m.Function(name)
		require.NoError(t, err)
		assert.Equal(t, filled(20, want), runAdd(t, ctx, s, f, cfg, 20), name)
	}
}

func TestLinkRefused(t *testing.T) {
	ctx, _ := extSetup(t)
	add1 := module.LinkInput{Name: "a.ptx", Data: []byte(ptxKernel("add1"))}

	_, err := module.Link(ctx, add1, module.LinkInput{Name: "b.ptx", Data: []byte(ptxKernel("add1"))})
	var le *module.LoadError
	require.ErrorAs(t, err, &le, "a kernel defined twice")
	assert.Equal(t, "cuLink", le.Call)
	assert.Contains(t, le.Log, "add1")
	assert.ErrorIs(t, err, driver.ErrInvalidImage)
	assert.True(t, strings.HasPrefix(err.Error(), "module.Link: link of PTX a.ptx, PTX b.ptx: cuLink: "), err.Error())

	extern := ".version 7.8\n.target sm_90\n.address_size 64\n.extern .func (.param .b32 r) helper\n(\n\t.param .b32 x\n);\n" + ptxKernel("add10")[len(".version 7.8\n.target sm_90\n.address_size 64\n"):]
	_, err = module.Link(ctx, add1, module.LinkInput{Name: "b.ptx", Data: []byte(extern)})
	require.ErrorAs(t, err, &le, "the fake resolves no symbols")
	assert.Contains(t, le.Log, "helper")
	assert.ErrorIs(t, err, driver.ErrNotSupported)

	cubin := module.LinkInput{Name: "k.cubin", Data: []byte("\x7fELF and the rest")}
	_, err = module.Link(ctx, add1, cubin)
	require.ErrorAs(t, err, &le)
	assert.ErrorIs(t, err, driver.ErrNotSupported, "the fake links PTX only")

	for _, c := range []struct {
		name   string
		inputs []module.LinkInput
	}{
		{"none", nil},
		{"empty data", []module.LinkInput{add1, {Name: "e.ptx"}}},
		{"NUL in name", []module.LinkInput{{Name: "a\x00.ptx", Data: add1.Data}}},
		{"unknown kind", []module.LinkInput{{Name: "x", Kind: module.ImageKind(42), Data: add1.Data}}},
	} {
		_, err := module.Link(ctx, c.inputs...)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, c.name)
		assert.True(t, strings.HasPrefix(err.Error(), "module.Link: "), c.name)
	}
	_, err = module.Link(nil, add1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "nil context")
}

func TestLaunchClusters(t *testing.T) {
	ctx, s := extSetup(t)
	m, err := module.Load(ctx, []byte(ptxKernel("add1")))
	require.NoError(t, err)
	defer m.Close()
	f, err := m.Function("add1")
	require.NoError(t, err)

	cfg := module.Config{Grid: module.Dim(4), Block: module.Dim(32), Cluster: module.Dim(2)}
	assert.Equal(t, filled(128, 1), runAdd(t, ctx, s, f, cfg, 128), "a clustered launch runs every block")
	cfg.Cooperative = true
	assert.Equal(t, filled(128, 1), runAdd(t, ctx, s, f, cfg, 128), "clustered and cooperative")

	buf, err := memory.Alloc[float32](ctx, 4)
	require.NoError(t, err)
	defer buf.Close()
	for _, c := range []struct {
		cfg  module.Config
		want error
	}{
		{module.Config{Grid: module.Dim(3), Block: module.Dim(32), Cluster: module.Dim(2)}, module.ErrConfig},
		{module.Config{Grid: module.Dim(4), Block: module.Dim(32), Cluster: module.Dim3{X: 2}}, module.ErrConfig},
		{module.Config{Grid: module.Dim(4, 4), Block: module.Dim(32), Cluster: module.Dim(2, 3)}, module.ErrConfig},
		{module.Config{Grid: module.Dim(32), Block: module.Dim(32), Cluster: module.Dim(16)}, module.ErrInvalidClusterSize},
	} {
		err := f.Launch(s, c.cfg, buf, int32(4))
		assert.ErrorIs(t, err, c.want, "%+v", c.cfg)
		if c.want == module.ErrConfig {
			assert.ErrorIs(t, err, driver.ErrInvalidValue, "checked before the driver, answered as the driver would: %+v", c.cfg)
		}
	}
	require.NoError(t, s.Synchronize(), "the refused launches left the stream usable")
}

func TestLaunchCooperative(t *testing.T) {
	ctx, s := extSetup(t)
	m, err := module.Load(ctx, []byte(ptxKernel("add1")))
	require.NoError(t, err)
	defer m.Close()
	f, err := m.Function("add1")
	require.NoError(t, err)

	perSM, err := f.MaxActiveBlocksPerMultiprocessor(1024, 0)
	require.NoError(t, err)
	assert.Equal(t, 2, perSM, "2048 threads per multiprocessor on the fake H200")
	dev := ctx.Device()
	sms, err := dev.Attribute(driver.AttrMultiprocessorCount)
	require.NoError(t, err)

	fits := module.Config{Grid: module.Dim(perSM * sms), Block: module.Dim(1024), Cooperative: true}
	n := perSM * sms * 1024
	assert.Equal(t, filled(n, 1), runAdd(t, ctx, s, f, fits, n), "the largest cooperative grid runs")

	buf, err := memory.Alloc[float32](ctx, 4)
	require.NoError(t, err)
	defer buf.Close()
	tooLarge := fits
	tooLarge.Grid = module.Dim(perSM*sms + 1)
	err = f.Launch(s, tooLarge, buf, int32(4))
	assert.ErrorIs(t, err, module.ErrCooperativeLaunchTooLarge)
	assert.True(t, strings.HasPrefix(err.Error(), "module.Function.Launch: "), err.Error())
	require.NoError(t, s.Synchronize(), "the refused launch left the stream usable")
}

func TestOccupancy(t *testing.T) {
	ctx, _ := extSetup(t)
	m, err := module.Load(ctx, []byte(ptxKernel("add1")))
	require.NoError(t, err)
	f, err := m.Function("add1")
	require.NoError(t, err)

	for bs, want := range map[int]int{32: 32, 256: 8, 1000: 2} {
		n, err := f.MaxActiveBlocksPerMultiprocessor(bs, 0)
		require.NoError(t, err)
		assert.Equal(t, want, n, "block size %d", bs)
	}
	n, err := f.MaxActiveBlocksPerMultiprocessor(256, 100<<10)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "shared memory limits it: 228 KiB per multiprocessor")
	for _, bad := range [][2]int{{0, 0}, {-1, 0}, {1025, 0}, {32, -1}} {
		_, err := f.MaxActiveBlocksPerMultiprocessor(bad[0], bad[1])
		assert.ErrorIs(t, err, module.ErrConfig, "%v", bad)
	}

	clusters, err := f.MaxActiveClusters(module.Config{Block: module.Dim(128), Cluster: module.Dim(2)})
	require.NoError(t, err)
	assert.Equal(t, 16*132/2, clusters, "the fake's rule: resident blocks over cluster size")
	_, err = f.MaxActiveClusters(module.Config{Block: module.Dim(128)})
	assert.ErrorIs(t, err, module.ErrConfig, "no cluster shape")
	_, err = f.MaxActiveClusters(module.Config{Block: module.Dim(128), Cluster: module.Dim(16)})
	assert.ErrorIs(t, err, module.ErrInvalidClusterSize)

	require.NoError(t, m.Close())
	_, err = f.MaxActiveBlocksPerMultiprocessor(32, 0)
	assert.ErrorIs(t, err, driver.ErrClosed)
	_, err = f.MaxActiveClusters(module.Config{Block: module.Dim(128), Cluster: module.Dim(2)})
	assert.ErrorIs(t, err, driver.ErrClosed)
}

func TestGlobalBadInput(t *testing.T) {
	ctx, _ := extSetup(t)
	_, err := module.Global[float32](nil, "g")
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	m, err := module.Load(ctx, []byte(ptxKernel("add1")))
	require.NoError(t, err)
	for _, name := range []string{"", "a\x00b"} {
		_, err := module.Global[float32](m, name)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, "%q", name)
		assert.True(t, strings.HasPrefix(err.Error(), "module.Global: "), err.Error())
	}
	_, err = module.Global[struct{}](m, "g")
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "zero-size element")
	require.NoError(t, m.Close())
	_, err = module.Global[float32](m, "g")
	assert.ErrorIs(t, err, driver.ErrClosed)
}

// bare hides the optional interfaces of a backend: only backend.API is left.
type bare struct{ backend.API }

func TestWithoutOptionalInterfaces(t *testing.T) {
	b := fake.NewBackend(fake.Kernel("add1", addBody(1)))
	drv, err := driver.New(bare{b})
	require.NoError(t, err)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer func() { assert.NoError(t, ctx.Close()); assert.Empty(t, b.Leaks()) }()
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()

	m, err := module.Load(ctx, []byte(ptxKernel("add1")))
	require.NoError(t, err, "loads fall back to cuModuleLoadData")
	defer m.Close()
	assert.Empty(t, m.JITLog())
	f, err := m.Function("add1")
	require.NoError(t, err)

	_, err = module.Global[float32](m, "g")
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = module.Link(ctx, module.LinkInput{Name: "a", Data: []byte(ptxKernel("add1"))})
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	buf, err := memory.Alloc[float32](ctx, 4)
	require.NoError(t, err)
	defer buf.Close()
	err = f.Launch(s, module.Config{Grid: module.Dim(2), Block: module.Dim(32), Cluster: module.Dim(2)}, buf, int32(4))
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = f.MaxActiveBlocksPerMultiprocessor(32, 0)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = f.MaxActiveClusters(module.Config{Block: module.Dim(32), Cluster: module.Dim(2)})
	assert.ErrorIs(t, err, errors.ErrUnsupported)
}
