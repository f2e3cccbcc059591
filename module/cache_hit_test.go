package module_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/module"
)

// A cache hit opens no compiler: a second backend (as a fresh process
// would) finds the first one's entry without asking for its compiler, and
// the module it loads runs. A miss asks once. With either of the fake's
// compilers: the pretend one and, where installed, NVIDIA's (found by
// the fake's own search, as on the real backend).
func TestCacheHitOpensNoCompiler(t *testing.T) {
	for name, opt := range map[string][]fake.Option{
		"pretend":  {fake.PretendNVRTC()},
		"searched": nil,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			drv := fakeDriver(opt...)
			ctx, _ := setup(t, drv)
			m := compileSegscale(t, ctx, module.Options{CacheDir: dir})
			require.False(t, m.Cached())
			assert.EqualValues(t, 1, fake.Of(drv).CompilerOpens(), "a miss opens the compiler once")

			drv = fakeDriver(opt...)
			ctx, s := setup(t, drv)
			m = compileSegscale(t, ctx, module.Options{CacheDir: dir})
			require.True(t, m.Cached(), "the first backend's entry")
			assert.Zero(t, fake.Of(drv).CompilerOpens(), "a hit opens no compiler")
			f, err := m.Function(segscale.Name)
			require.NoError(t, err)
			runSegscale(t, ctx, s, f, 64)
		})
	}
}

// A hit under one compiler's identity is never a hit for another: the
// pretend compiler's entry does not serve NVIDIA's, nor an option-given
// compiler that cannot name itself.
func TestCacheHitIdentityKeepsCompilersApart(t *testing.T) {
	dir := t.TempDir()
	ctx, _ := setup(t, fakeDriver(fake.PretendNVRTC()))
	require.False(t, compileSegscale(t, ctx, module.Options{CacheDir: dir}).Cached())
	drv := fakeDriver()
	if c, err := fake.Of(drv).Compiler(); err != nil || c == "nocgo/cuda fake" {
		t.Skip("no NVIDIA NVRTC here")
	}
	ctx, _ = setup(t, drv)
	assert.False(t, compileSegscale(t, ctx, module.Options{CacheDir: dir}).Cached(), "NVIDIA's NVRTC: another identity")
}

// With the cache off, every compile opens the compiler.
func TestNoCacheOpensTheCompiler(t *testing.T) {
	drv := fakeDriver(fake.PretendNVRTC())
	ctx, _ := setup(t, drv)
	compileSegscale(t, ctx, module.Options{NoCache: true})
	compileSegscale(t, ctx, module.Options{NoCache: true})
	assert.EqualValues(t, 2, fake.Of(drv).CompilerOpens())
}
