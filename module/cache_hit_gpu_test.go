package module_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/module"
)

// childHitEnv, when set to a cache directory, makes TestCacheHitOpensNoNVRTCGPU
// run as the fresh process whose compile hits that cache.
const childHitEnv = "NOCGO_CUDA_TEST_HIT_CHILD"

// opensNVRTC reports whether the driver has opened libnvrtc (the real
// backend lists it in LibraryPaths once it has).
func opensNVRTC(paths []string) bool {
	for _, p := range paths {
		if strings.Contains(p, "libnvrtc") {
			return true
		}
	}
	return false
}

// On the real driver, a compile that hits the cache in a fresh process
// opens no libnvrtc: the key names libnvrtc by its file, found without
// loading it. The parent compiles (a miss, which opens NVRTC); the child,
// a new process, compiles the same source, hits, and runs the kernel with
// libnvrtc never loaded.
func TestCacheHitOpensNoNVRTCGPU(t *testing.T) {
	if dir := os.Getenv(childHitEnv); dir != "" {
		drv := cudatest.Real(t)
		ctx, s := setup(t, drv)
		start := time.Now()
		m := compileSegscale(t, ctx, module.Options{CacheDir: dir})
		t.Logf("Compile (hit) in a fresh process: %v", time.Since(start))
		require.True(t, m.Cached(), "the parent's entry")
		assert.False(t, opensNVRTC(drv.LibraryPaths()), "a hit opens no libnvrtc: %v", drv.LibraryPaths())
		f, err := m.Function(segscale.Name)
		require.NoError(t, err)
		runSegscale(t, ctx, s, f, 1000)
		return
	}
	drv := cudatest.Real(t)
	ctx, _ := setup(t, drv)
	dir := t.TempDir()
	m := compileSegscale(t, ctx, module.Options{CacheDir: dir})
	require.False(t, m.Cached())
	require.True(t, opensNVRTC(drv.LibraryPaths()), "a miss opens libnvrtc: %v", drv.LibraryPaths())

	exe, err := os.Executable()
	require.NoError(t, err)
	deadline, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := childCommand(deadline, exe, "-test.run=^TestCacheHitOpensNoNVRTCGPU$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childHitEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "--- PASS: TestCacheHitOpensNoNVRTCGPU")
	t.Logf("child:\n%s", out)
}
