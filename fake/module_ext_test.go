package fake

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// extPTX is a module with one kernel, name(u64), whose Go body is noop.
func extPTX(name string) []byte {
	return []byte(".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry " + name + "(.param .u64 p)\n{\n\tret;\n}\n")
}

func noop(Thread, Ptr) {}

func TestModuleLoadDataExLogs(t *testing.T) {
	b := bound(t, Kernel("k", noop))
	h, log, err := b.ModuleLoadDataEx(extPTX("k"), true)
	require.NoError(t, err)
	assert.Contains(t, log.Info, "'k'")
	assert.Empty(t, log.Error)
	require.NoError(t, b.ModuleUnload(h))
	_, log, err = b.ModuleLoadDataEx(extPTX("k"), false)
	require.NoError(t, err)
	assert.Empty(t, log.Info, "no verbose, no info")

	_, log, err = b.ModuleLoadDataEx([]byte("not PTX at all"), true)
	assert.ErrorIs(t, err, driver.ErrInvalidImage)
	assert.Contains(t, log.Error, "CUDA_ERROR_INVALID_IMAGE")
	assert.Contains(t, log.Error, ".version and .target")

	fb := bound(t, Kernel("k", noop), FailNth("cuModuleLoadDataEx", 1, driver.ErrOutOfMemory))
	_, _, err = fb.ModuleLoadDataEx(extPTX("k"), true)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory, "FailNth reaches the entry point")
	assert.Len(t, fb.Leaks(), 1, "only the primary context")
}

func TestLinkSeam(t *testing.T) {
	b := bound(t, Kernel("a", noop), Kernel("b", noop))
	in := func(name string, data []byte) backend.LinkInput {
		return backend.LinkInput{Type: backend.JITInputPTX, Data: data, Name: name}
	}
	image, log, err := b.Link([]backend.LinkInput{in("a.ptx", extPTX("a")), in("b.ptx", append(extPTX("b"), 0))}, true)
	require.NoError(t, err)
	assert.Contains(t, log.Info, `"b.ptx"`)
	h, err := b.ModuleLoadData(image)
	require.NoError(t, err, "the combined PTX loads:\n%s", image)
	for _, name := range []string{"a", "b"} {
		_, err := b.ModuleGetFunction(h, name)
		assert.NoError(t, err, name)
	}
	require.NoError(t, b.ModuleUnload(h))

	for _, bad := range [][]backend.LinkInput{
		nil,
		{{Type: backend.JITInputPTX, Name: "empty"}},
		{{Type: backend.JITInputType(6), Data: extPTX("a")}},
		{{Type: backend.JITInputType(-1), Data: extPTX("a")}},
		{in("a\x00", extPTX("a"))},
	} {
		_, _, err := b.Link(bad, false)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, "%v", bad)
	}

	global := []byte(".version 7.8\n.target sm_90\n.address_size 64\n.visible .global .align 4 .b8 table[16];\n")
	_, log, err = b.Link([]backend.LinkInput{in("t1.ptx", global), in("t2.ptx", global)}, false)
	assert.ErrorIs(t, err, driver.ErrInvalidImage, "a variable defined twice")
	assert.Contains(t, log.Error, "'table'")

	fb := bound(t, Kernel("a", noop), CountCalls(), FailNth("cuLinkAddData", 2, driver.ErrOutOfMemory))
	_, _, err = fb.Link([]backend.LinkInput{in("a.ptx", extPTX("a")), in("b.ptx", extPTX("b"))}, false)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	calls := fb.calls()
	assert.Equal(t, int64(1), calls["cuLinkCreate"])
	assert.Equal(t, int64(2), calls["cuLinkAddData"])
	assert.Zero(t, calls["cuLinkComplete"])
	assert.Equal(t, int64(1), calls["cuLinkDestroy"], "the link state is destroyed after a failure")
}

func TestLaunchKernelExSeam(t *testing.T) {
	b := bound(t, Kernel("k", noop), Devices(1), WithDevice(DeviceSpec{Major: 8, Minor: 0}))
	h, err := b.ModuleLoadData(extPTX("k"))
	require.NoError(t, err)
	defer b.ModuleUnload(h)
	f, err := b.ModuleGetFunction(h, "k")
	require.NoError(t, err)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	defer b.StreamDestroy(s)
	var p uint64
	params := args(unsafe.Pointer(&p))

	assert.ErrorIs(t, b.LaunchKernelEx(f, nil, params), driver.ErrInvalidValue)
	cfg := backend.LaunchConfig{Grid: [3]uint32{4, 1, 1}, Block: [3]uint32{32, 1, 1}, Stream: s, Cluster: [3]uint32{2, 1, 1}}
	require.NoError(t, b.LaunchKernelEx(f, &cfg, params))
	require.NoError(t, b.StreamSynchronize(s))
	for _, c := range []struct {
		cluster [3]uint32
		want    error
	}{
		{[3]uint32{3, 1, 1}, backend.ErrInvalidClusterSize},
		{[3]uint32{2, 0, 1}, driver.ErrInvalidValue},
		{[3]uint32{16, 1, 1}, backend.ErrInvalidClusterSize},
	} {
		cfg := cfg
		cfg.Grid = [3]uint32{40, 1, 1}
		cfg.Cluster = c.cluster
		assert.ErrorIs(t, b.LaunchKernelEx(f, &cfg, params), c.want, "%v", c.cluster)
	}
	cfg.Cluster = [3]uint32{}
	cfg.Cooperative = true
	cfg.Grid = [3]uint32{uint32(132*2 + 1), 1, 1}
	cfg.Block = [3]uint32{1024, 1, 1}
	assert.ErrorIs(t, b.LaunchKernelEx(f, &cfg, params), backend.ErrCooperativeLaunchTooLarge)
	cfg.Grid[0]--
	require.NoError(t, b.LaunchKernelEx(f, &cfg, params))
	require.NoError(t, b.StreamSynchronize(s))
	n, err := b.OccupancyMaxActiveBlocksPerMultiprocessor(f, 1024, 0)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	_, err = b.OccupancyMaxActiveBlocksPerMultiprocessor(f, 0, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	n, err = b.OccupancyMaxActiveBlocksPerMultiprocessor(f, 2048, 0)
	require.NoError(t, err)
	assert.Zero(t, n, "a block size the device cannot run fits zero times")

	// Device 1 has compute capability 8.0: no clusters.
	old, err := b.CtxGetCurrent()
	require.NoError(t, err)
	ctx1, err := b.DevicePrimaryCtxRetain(1)
	require.NoError(t, err)
	defer b.DevicePrimaryCtxRelease(1)
	require.NoError(t, b.CtxSetCurrent(ctx1))
	defer b.CtxSetCurrent(old)
	h1, err := b.ModuleLoadData(bytes.Replace(extPTX("k"), []byte("sm_90"), []byte("sm_80"), 1))
	require.NoError(t, err)
	defer b.ModuleUnload(h1)
	f1, err := b.ModuleGetFunction(h1, "k")
	require.NoError(t, err)
	_, err = b.OccupancyMaxActiveClusters(f1, &backend.LaunchConfig{Block: [3]uint32{32, 1, 1}, Cluster: [3]uint32{2, 1, 1}})
	assert.ErrorIs(t, err, driver.ErrNotSupported, "clusters need compute capability 9.0")
}

func TestOccupancyNeedsContext(t *testing.T) {
	b := newBackend(Kernel("k", noop))
	require.NoError(t, b.Init(0))
	_, err := b.OccupancyMaxActiveBlocksPerMultiprocessor(0x1234, 32, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidContext)
	_, err = b.OccupancyMaxActiveClusters(0x1234, &backend.LaunchConfig{})
	assert.ErrorIs(t, err, driver.ErrInvalidContext)
}
