package drivertest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/segscale"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// modCached compiles segment_scale with the cache in dir ("" for the
// environment's choice), checks the module computes right, and reports
// whether it came from the cache.
func modCached(t *testing.T, ctx *driver.Context, s *stream.Stream, dir string, opts module.Options) *module.Module {
	t.Helper()
	opts.CacheDir = dir
	m, err := module.Compile(ctx, segscale.Source, opts)
	require.NoError(t, err)
	t.Cleanup(func() { m.Unload() })
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	modRunSegscale(t, ctx, s, f, 300)
	return m
}

// modEntries lists the cache entries in dir, and fails on leftover
// temporary files.
func modEntries(t *testing.T, dir string) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	hidden, err := filepath.Glob(filepath.Join(dir, ".*"))
	require.NoError(t, err)
	assert.Empty(t, hidden, "no temporary files are left behind")
	return all
}

func testModuleCache(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	dir := t.TempDir()
	opts := module.Options{Name: "cached.cu"}

	cold := modCached(t, ctx, s, dir, opts)
	assert.False(t, cold.Cached())
	entries := modEntries(t, dir)
	require.Len(t, entries, 1)
	assert.Equal(t, ".entry", filepath.Ext(entries[0]))

	warm := modCached(t, ctx, s, dir, opts)
	assert.True(t, warm.Cached(), "the second compile is a cache hit")
	assert.Equal(t, cold.Kind(), warm.Kind())
	assert.Equal(t, cold.Arch(), warm.Arch())
	assert.Equal(t, cold.Image(), warm.Image())
	assert.Equal(t, cold.PTX(), warm.PTX())
	assert.Equal(t, cold.Log(), warm.Log())

	// Anything that changes the output is part of the key.
	for name, o := range map[string]module.Options{
		"define":   {Name: "cached.cu", Defines: map[string]string{"X": "1"}},
		"name":     {Name: "other.cu"},
		"lineinfo": {Name: "cached.cu", LineInfo: true},
		"header":   {Name: "cached.cu", Headers: map[string]string{"unused.h": "// nothing\n"}},
		"arch":     {Name: "cached.cu", Arch: "compute_" + modArch(t, ctx)},
	} {
		m := modCached(t, ctx, s, dir, o)
		assert.False(t, m.Cached(), name)
	}
	assert.Len(t, modEntries(t, dir), 6)

	// Name expressions and their lowered names are kept in the entry.
	kopts := module.Options{Name: "kernels.cu", NameExpressions: []string{KernelFillFloat}, CacheDir: dir}
	k1, err := module.Compile(ctx, KernelSource, kopts)
	require.NoError(t, err)
	t.Cleanup(func() { k1.Unload() })
	k2, err := module.Compile(ctx, KernelSource, kopts)
	require.NoError(t, err)
	t.Cleanup(func() { k2.Unload() })
	assert.False(t, k1.Cached())
	assert.True(t, k2.Cached())
	l1, ok1 := k1.LoweredName(KernelFillFloat)
	l2, ok2 := k2.LoweredName(KernelFillFloat)
	assert.True(t, ok1)
	assert.True(t, ok2)
	assert.Equal(t, l1, l2)
	_, err = k2.Function(KernelFillFloat)
	assert.NoError(t, err)

	// NoCache neither reads nor writes.
	nc := modCached(t, ctx, s, dir, module.Options{Name: "cached.cu", NoCache: true})
	assert.False(t, nc.Cached())

	// A failed compile stores nothing.
	_, err = module.Compile(ctx, "extern \"C\" __global__ void broken(float* p) { p[0] = undefined_thing; }\n", module.Options{CacheDir: dir})
	var ce *module.CompileError
	assert.ErrorAs(t, err, &ce)
	assert.Len(t, modEntries(t, dir), 7)
}

func testModuleCacheCorrupt(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	dir := t.TempDir()
	opts := module.Options{Name: "corrupt.cu"}
	require.False(t, modCached(t, ctx, s, dir, opts).Cached())
	entries := modEntries(t, dir)
	require.Len(t, entries, 1)
	path := entries[0]
	good, err := os.ReadFile(path)
	require.NoError(t, err)

	flip := append([]byte(nil), good...)
	flip[len(flip)/2] ^= 0x40
	for name, bad := range map[string][]byte{
		"flipped byte": flip,
		"truncated":    good[:len(good)/3],
		"header only":  good[:20],
		"empty":        {},
		"garbage":      []byte("not a cache entry at all"),
	} {
		require.NoError(t, os.WriteFile(path, bad, 0o644))
		m := modCached(t, ctx, s, dir, opts)
		assert.False(t, m.Cached(), "%s: a corrupt entry is ignored", name)
		rewritten, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.NotEqual(t, bad, rewritten, "%s: and rewritten", name)
		assert.True(t, modCached(t, ctx, s, dir, opts).Cached(), "%s: the rewritten entry is good", name)
	}
	assert.Len(t, modEntries(t, dir), 1)
}

func testModuleCacheEnv(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	dir := filepath.Join(t.TempDir(), "moved", "cache")
	t.Setenv(module.CacheDirEnv, dir)
	t.Setenv(module.CacheEnv, "")
	got, ok := module.CacheDir()
	assert.True(t, ok)
	assert.Equal(t, dir, got)
	opts := module.Options{Name: "env.cu"}
	assert.False(t, modCached(t, ctx, s, "", opts).Cached())
	assert.True(t, modCached(t, ctx, s, "", opts).Cached())
	assert.Len(t, modEntries(t, dir), 1, "NOCGO_CUDA_CACHE_DIR moves the cache (and is created)")

	t.Setenv(module.CacheEnv, "off")
	_, ok = module.CacheDir()
	assert.False(t, ok)
	other := module.Options{Name: "env-off.cu"}
	assert.False(t, modCached(t, ctx, s, "", other).Cached())
	assert.False(t, modCached(t, ctx, s, "", other).Cached(), "NOCGO_CUDA_CACHE=off disables the cache")
	assert.False(t, modCached(t, ctx, s, "", opts).Cached(), "and its reads")
	assert.Len(t, modEntries(t, dir), 1)
	explicit := t.TempDir()
	assert.False(t, modCached(t, ctx, s, explicit, other).Cached())
	assert.True(t, modCached(t, ctx, s, explicit, other).Cached(), "Options.CacheDir still caches")

	t.Setenv(module.CacheEnv, "")
	t.Setenv(module.CacheDirEnv, "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(explicit, "xdg"))
	got, ok = module.CacheDir()
	assert.True(t, ok)
	assert.Equal(t, filepath.Join(explicit, "xdg", "nocgo-cuda"), got, "the default is $XDG_CACHE_HOME/nocgo-cuda")
}

func testModuleCacheConcurrent(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	dir := t.TempDir()
	opts := module.Options{Name: "concurrent.cu", CacheDir: dir}
	// Several goroutines compile the same source at once into an empty
	// cache, while another keeps corrupting the entry: every compile
	// succeeds and computes right.
	const workers = 6
	var wg sync.WaitGroup
	mods := make([]*module.Module, workers)
	errs := make([]error, workers)
	stop := make(chan struct{})
	var corrupter sync.WaitGroup
	corrupter.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, p := range modEntriesQuiet(dir) {
				os.WriteFile(p, []byte("corrupt"), 0o644)
			}
			time.Sleep(time.Millisecond)
		}
	})
	for w := range workers {
		wg.Go(func() {
			for range 3 {
				m, err := module.Compile(ctx, segscale.Source, opts)
				if err != nil {
					errs[w] = err
					return
				}
				if mods[w] != nil {
					mods[w].Unload()
				}
				mods[w] = m
			}
		})
	}
	wg.Wait()
	close(stop)
	corrupter.Wait()
	for w := range workers {
		require.NoError(t, errs[w])
		m := mods[w]
		t.Cleanup(func() { m.Unload() })
		f, err := m.Function(segscale.Name)
		require.NoError(t, err)
		modRunSegscale(t, ctx, s, f, 257)
	}
	// Once the corrupter stops, the entry heals.
	modCached(t, ctx, s, dir, opts)
	assert.True(t, modCached(t, ctx, s, dir, opts).Cached())
	assert.Len(t, modEntries(t, dir), 1)
}

func modEntriesQuiet(dir string) []string {
	all, _ := filepath.Glob(filepath.Join(dir, "*.entry"))
	return all
}
