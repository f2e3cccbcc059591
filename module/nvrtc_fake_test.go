package module_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/module"
)

// On the fake with NVIDIA's NVRTC, the default target is the fake device's
// architecture, capped to what that NVRTC knows: sm_90 for the default
// (H200-like) device; for a device newer than NVRTC, PTX for the newest
// architecture NVRTC accepts (compute_90 for NVRTC 11.8), which the fake
// loads as a driver would JIT it. The Go body registered for segment_scale
// runs in both cases (it takes precedence over the compiled kernel).
func TestCompileFakeArchitectureRealNVRTC(t *testing.T) {
	nv := cudatest.NVRTC(t)
	major, minor, err := nv.Version()
	require.NoError(t, err)

	drv := fake.New(append([]fake.Option{fake.NVRTC(nv)}, fakekernels.Options()...)...)
	ctx, s := setup(t, drv)
	m := compileSegscale(t, ctx, module.Options{NoCache: true})
	assert.Equal(t, module.CUBIN, m.Kind())
	assert.Equal(t, "sm_90", m.Arch())
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	runSegscale(t, ctx, s, f, 100)

	drv = fake.New(append([]fake.Option{fake.NVRTC(nv), fake.WithDevice(fake.DeviceSpec{Major: 13, Minor: 0})}, fakekernels.Options()...)...)
	ctx, s = setup(t, drv)
	m = compileSegscale(t, ctx, module.Options{NoCache: true})
	assert.Equal(t, module.PTX, m.Kind(), "NVRTC %d.%d knows no sm_130", major, minor)
	arch, ok := strings.CutPrefix(m.Arch(), "compute_")
	require.True(t, ok, m.Arch())
	n, err := strconv.Atoi(arch)
	require.NoError(t, err)
	assert.Less(t, n, 130)
	if major == 11 && minor == 8 {
		assert.Equal(t, "compute_90", m.Arch(), "NVRTC 11.8's newest architecture")
	}
	_, err = module.Compile(ctx, segscale.Source, module.Options{Arch: fmt.Sprintf("compute_%d", n+1), NoCache: true})
	assert.Error(t, err, "the architecture chosen is the newest NVRTC accepts")
	f, err = m.Function(segscale.Name)
	require.NoError(t, err)
	runSegscale(t, ctx, s, f, 100)
}

// The cache keeps the fake's compilers apart: an entry of the pretend
// compiler is never a hit for NVIDIA's NVRTC on the fake, nor the reverse.
// (NVIDIA's NVRTC on the fake and on a GPU are apart too: their CUBINs
// differ; see package fake.)
func TestCacheKeepsFakeCompilersApart(t *testing.T) {
	nv := cudatest.NVRTC(t)
	dir := t.TempDir()
	compileIn := func(opts ...fake.Option) *module.Module {
		drv := fake.New(append(opts, fakekernels.Options()...)...)
		ctx, _ := setup(t, drv)
		return compileSegscale(t, ctx, module.Options{CacheDir: dir})
	}
	assert.False(t, compileIn(fake.PretendNVRTC()).Cached())
	assert.True(t, compileIn(fake.PretendNVRTC()).Cached())
	real := compileIn(fake.NVRTC(nv))
	assert.False(t, real.Cached(), "not the pretend compiler's entry")
	assert.Contains(t, string(real.PTX()), "NVIDIA", "real PTX")
	assert.True(t, compileIn(fake.NVRTC(nv)).Cached())
}
