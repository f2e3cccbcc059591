package abi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEntryPointsTable(t *testing.T) {
	eps := EntryPoints()
	require.NotEmpty(t, eps)
	seen := map[string]bool{}
	for _, ep := range eps {
		require.False(t, seen[ep.Name], "duplicate %s", ep.Name)
		seen[ep.Name] = true
		switch {
		case strings.HasPrefix(ep.Name, "nvrtc"):
			assert.Equal(t, NVRTC, ep.Library, ep.Name)
		case strings.HasPrefix(ep.Name, "nccl"):
			assert.Equal(t, NCCL, ep.Library, ep.Name)
			assert.GreaterOrEqual(t, ep.Since, 20000, "%s: an NCCL version code", ep.Name)
		case strings.HasPrefix(ep.Name, "cu"):
			assert.Equal(t, CUDA, ep.Library, ep.Name)
		default:
			t.Errorf("%s: no library prefix", ep.Name)
		}
		assert.NotContains(t, ep.Name, "_v", "%s: a base name", ep.Name)
		assert.GreaterOrEqual(t, ep.Since, 2000, ep.Name)
		got, ok := Lookup(ep.Name)
		assert.True(t, ok, ep.Name)
		assert.Equal(t, ep, got)
		v, ok := Since(ep.Name)
		assert.True(t, ok)
		assert.Equal(t, ep.Since, v)
	}
	eps[0].Name = "changed"
	assert.NotEqual(t, "changed", EntryPoints()[0].Name, "EntryPoints returns a copy")
}

func TestLookupKnownFacts(t *testing.T) {
	for _, c := range []struct {
		name  string
		lib   Library
		since int
		inner bool
	}{
		{CuInit, CUDA, 2000, false},
		{CuMemAllocAsync, CUDA, 11020, false},
		{CuFuncGetParamInfo, CUDA, 12040, false},
		{CuGetErrorName, CUDA, 6000, true},
		{NvrtcGetCUBIN, NVRTC, 11010, false},
		{NvrtcGetPTXSize, NVRTC, 7000, true},
		{NcclAllReduce, NCCL, 20000, false},
		{NcclSend, NCCL, 20700, false},
		{NcclGetLastError, NCCL, 21300, true},
	} {
		ep, ok := Lookup(c.name)
		require.True(t, ok, c.name)
		assert.Equal(t, EntryPoint{Name: c.name, Library: c.lib, Since: c.since, Inner: c.inner}, ep)
	}
	for _, name := range []string{"", "cuMemAlloc_v2", "cuFrobnicate", "cumemalloc", "nvrtc"} {
		_, ok := Lookup(name)
		assert.False(t, ok, name)
		v, ok := Since(name)
		assert.False(t, ok, name)
		assert.Zero(t, v)
	}
	assert.Equal(t, "cuMemAlloc", CuMemAlloc)
	assert.Equal(t, "libcuda", CUDA.String())
	assert.Equal(t, "libnvrtc", NVRTC.String())
	assert.Equal(t, "Library(?)", Library(0).String())
}

// The lookup the fake makes at every entry point allocates nothing.
func TestLookupDoesNotAllocate(t *testing.T) {
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		if _, ok := Lookup("cuGraphExecUpdate"); !ok {
			panic("not found")
		}
	}))
}
