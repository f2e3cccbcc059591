package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
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
	must(t, err)
	t.Cleanup(func() { m.Close() })
	f, err := m.Function(segscale.Name)
	must(t, err)
	modRunSegscale(t, ctx, s, f, 300)
	return m
}

// modEntries lists the cache entries in dir, and fails on leftover
// temporary files.
func modEntries(t *testing.T, dir string) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(dir, "*"))
	must(t, err)
	hidden, err := filepath.Glob(filepath.Join(dir, ".*"))
	must(t, err)
	isEmpty(t, hidden, "no temporary files are left behind")
	return all
}

func testModuleCache(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	dir := t.TempDir()
	opts := module.Options{Name: "cached.cu"}

	cold := modCached(t, ctx, s, dir, opts)
	isFalse(t, cold.Cached())
	entries := modEntries(t, dir)
	mustLen(t, entries, 1)
	equal(t, filepath.Ext(entries[0]), ".entry")

	warm := modCached(t, ctx, s, dir, opts)
	isTrue(t, warm.Cached(), "the second compile is a cache hit")
	equal(t, warm.Kind(), cold.Kind())
	equal(t, warm.Arch(), cold.Arch())
	equal(t, warm.Image(), cold.Image())
	equal(t, warm.PTX(), cold.PTX())
	equal(t, warm.Log(), cold.Log())

	// Anything that changes the output is part of the key.
	for name, o := range map[string]module.Options{
		"define":   {Name: "cached.cu", Defines: map[string]string{"X": "1"}},
		"name":     {Name: "other.cu"},
		"lineinfo": {Name: "cached.cu", LineInfo: true},
		"header":   {Name: "cached.cu", Headers: map[string]string{"unused.h": "// nothing\n"}},
		"arch":     {Name: "cached.cu", Arch: "compute_" + modArch(t, ctx)},
	} {
		m := modCached(t, ctx, s, dir, o)
		isFalse(t, m.Cached(), name)
	}
	hasLen(t, modEntries(t, dir), 6)

	// Name expressions and their lowered names are kept in the entry.
	kopts := module.Options{Name: "kernels.cu", NameExpressions: []string{kernels.FillFloat}, CacheDir: dir}
	k1, err := module.Compile(ctx, kernels.Source, kopts)
	must(t, err)
	t.Cleanup(func() { k1.Close() })
	k2, err := module.Compile(ctx, kernels.Source, kopts)
	must(t, err)
	t.Cleanup(func() { k2.Close() })
	isFalse(t, k1.Cached())
	isTrue(t, k2.Cached())
	l1, ok1 := k1.LoweredName(kernels.FillFloat)
	l2, ok2 := k2.LoweredName(kernels.FillFloat)
	isTrue(t, ok1)
	isTrue(t, ok2)
	equal(t, l2, l1)
	_, err = k2.Function(kernels.FillFloat)
	noError(t, err)

	// NoCache neither reads nor writes.
	nc := modCached(t, ctx, s, dir, module.Options{Name: "cached.cu", NoCache: true})
	isFalse(t, nc.Cached())

	// A failed compile stores nothing.
	_, err = module.Compile(ctx, "extern \"C\" __global__ void broken(float* p) { p[0] = undefined_thing; }\n", module.Options{CacheDir: dir})
	var ce *module.CompileError
	if !errors.As(err, &ce) {
		t.Errorf("got error %v, want a *module.CompileError", err)
	}
	hasLen(t, modEntries(t, dir), 7)
}

func testModuleCacheCorrupt(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	dir := t.TempDir()
	opts := module.Options{Name: "corrupt.cu"}
	if modCached(t, ctx, s, dir, opts).Cached() {
		t.Fatal("the first compile into an empty cache directory is cached")
	}
	entries := modEntries(t, dir)
	mustLen(t, entries, 1)
	path := entries[0]
	good, err := os.ReadFile(path)
	must(t, err)

	flip := append([]byte(nil), good...)
	flip[len(flip)/2] ^= 0x40
	for name, bad := range map[string][]byte{
		"flipped byte": flip,
		"truncated":    good[:len(good)/3],
		"header only":  good[:20],
		"empty":        {},
		"garbage":      []byte("not a cache entry at all"),
	} {
		must(t, os.WriteFile(path, bad, 0o644))
		m := modCached(t, ctx, s, dir, opts)
		isFalse(t, m.Cached(), "%s: a corrupt entry is ignored", name)
		rewritten, err := os.ReadFile(path)
		must(t, err)
		notEqual(t, rewritten, bad, "%s: and rewritten", name)
		isTrue(t, modCached(t, ctx, s, dir, opts).Cached(), "%s: the rewritten entry is good", name)
	}
	hasLen(t, modEntries(t, dir), 1)
}

func testModuleCacheEnv(t *testing.T, drv *driver.Driver) {
	ctx, s := modSetup(t, drv)
	dir := filepath.Join(t.TempDir(), "moved", "cache")
	t.Setenv(module.CacheDirEnv, dir)
	t.Setenv(module.CacheEnv, "")
	got, ok := module.CacheDir()
	isTrue(t, ok)
	equal(t, got, dir)
	opts := module.Options{Name: "env.cu"}
	isFalse(t, modCached(t, ctx, s, "", opts).Cached())
	isTrue(t, modCached(t, ctx, s, "", opts).Cached())
	hasLen(t, modEntries(t, dir), 1, "NOCGO_CUDA_CACHE_DIR moves the cache (and is created)")

	t.Setenv(module.CacheEnv, "off")
	_, ok = module.CacheDir()
	isFalse(t, ok)
	other := module.Options{Name: "env-off.cu"}
	isFalse(t, modCached(t, ctx, s, "", other).Cached())
	isFalse(t, modCached(t, ctx, s, "", other).Cached(), "NOCGO_CUDA_CACHE=off disables the cache")
	isFalse(t, modCached(t, ctx, s, "", opts).Cached(), "and its reads")
	hasLen(t, modEntries(t, dir), 1)
	explicit := t.TempDir()
	isFalse(t, modCached(t, ctx, s, explicit, other).Cached())
	isTrue(t, modCached(t, ctx, s, explicit, other).Cached(), "Options.CacheDir still caches")

	t.Setenv(module.CacheEnv, "")
	t.Setenv(module.CacheDirEnv, "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(explicit, "xdg"))
	got, ok = module.CacheDir()
	isTrue(t, ok)
	equal(t, got, filepath.Join(explicit, "xdg", "nocgo-cuda"), "the default is $XDG_CACHE_HOME/nocgo-cuda")
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
					mods[w].Close()
				}
				mods[w] = m
			}
		})
	}
	wg.Wait()
	close(stop)
	corrupter.Wait()
	for w := range workers {
		must(t, errs[w])
		m := mods[w]
		t.Cleanup(func() { m.Close() })
		f, err := m.Function(segscale.Name)
		must(t, err)
		modRunSegscale(t, ctx, s, f, 257)
	}
	// Once the corrupter stops, the entry heals.
	modCached(t, ctx, s, dir, opts)
	isTrue(t, modCached(t, ctx, s, dir, opts).Cached())
	hasLen(t, modEntries(t, dir), 1)
}

func modEntriesQuiet(dir string) []string {
	all, _ := filepath.Glob(filepath.Join(dir, "*.entry"))
	return all
}
