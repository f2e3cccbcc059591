package module_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/module"
)

// childCacheEnv, when set to a directory, makes TestCacheProcesses run as
// one of the child processes sharing that cache directory.
const childCacheEnv = "NOCGO_CUDA_TEST_CACHE_CHILD"

// TestCacheProcesses runs several processes (this test binary, re-executed)
// that compile the same source into one cache directory at the same time,
// each also corrupting the entry between its compiles: every compile of
// every process must succeed and compute right, and the directory must end
// with one good entry and no temporary files.
func TestCacheProcesses(t *testing.T) {
	if dir := os.Getenv(childCacheEnv); dir != "" {
		cacheChild(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("starts processes")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	const procs = 4
	deadline, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmds := make([]*exec.Cmd, procs)
	outs := make([][]byte, procs)
	errs := make([]error, procs)
	done := make(chan int)
	for i := range cmds {
		cmd := childCommand(deadline, exe, "-test.run=^TestCacheProcesses$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), childCacheEnv+"="+dir, fmt.Sprintf("NOCGO_CUDA_TEST_CHILD_ID=%d", i))
		cmds[i] = cmd
		go func() {
			outs[i], errs[i] = cmd.CombinedOutput()
			done <- i
		}()
	}
	for range cmds {
		<-done
	}
	for i := range cmds {
		require.NoError(t, errs[i], "child %d:\n%s", i, outs[i])
		assert.Contains(t, string(outs[i]), "--- PASS: TestCacheProcesses", "child %d ran the test", i)
	}

	entries, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "one entry: %v", entries)
	tmp, err := filepath.Glob(filepath.Join(dir, ".*"))
	require.NoError(t, err)
	assert.Empty(t, tmp, "no temporary files left")
	// The entry the processes leave may be one a child corrupted last; a
	// compile heals it, and the next one hits.
	ctx, s := setup(t, fakeDriver())
	m, err := module.Compile(ctx, segscale.Source, module.Options{CacheDir: dir})
	require.NoError(t, err)
	m.Close()
	m = compileSegscale(t, ctx, module.Options{CacheDir: dir})
	assert.True(t, m.Cached())
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	runSegscale(t, ctx, s, f, 99)
}

// cacheChild is one process of TestCacheProcesses.
func cacheChild(t *testing.T, dir string) {
	ctx, s := setup(t, fakeDriver())
	hits := 0
	for i := range 20 {
		m, err := module.Compile(ctx, segscale.Source, module.Options{CacheDir: dir})
		require.NoError(t, err, "compile %d", i)
		if m.Cached() {
			hits++
		}
		f, err := m.Function(segscale.Name)
		require.NoError(t, err)
		runSegscale(t, ctx, s, f, 33)
		require.NoError(t, m.Close())
		if i%5 == 4 {
			// Corrupt the entry (not atomically, as a crash or a bad disk
			// might): the other processes must shrug it off.
			entries, _ := filepath.Glob(filepath.Join(dir, "*.entry"))
			for _, e := range entries {
				os.WriteFile(e, []byte("corrupted by "+os.Getenv("NOCGO_CUDA_TEST_CHILD_ID")), 0o644)
			}
		}
	}
	assert.Positive(t, hits, "some compiles hit the cache")
}

// childCommand runs the test binary exe again. Where the tests run under
// an emulator (.ci/dl-arm64.sh runs linux/arm64 binaries under qemu and
// names it in NOCGO_CUDA_TEST_EXEC), the child runs under it too.
// A child that has not finished within the context's deadline is killed,
// so that a hung child fails the test instead of hanging it.
func childCommand(ctx context.Context, exe string, args ...string) *exec.Cmd {
	if emu := os.Getenv("NOCGO_CUDA_TEST_EXEC"); emu != "" {
		return exec.CommandContext(ctx, emu, append([]string{exe}, args...)...)
	}
	return exec.CommandContext(ctx, exe, args...)
}
