//go:build linux || darwin

package module_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/module"
)

// compileWithin compiles segscale and fails the test when Compile has not
// returned within a few seconds, instead of hanging; unblock, when not nil,
// runs on a timeout to let the stuck call go.
func compileWithin(t *testing.T, ctx *driver.Context, opts module.Options, unblock func()) *module.Module {
	t.Helper()
	type result struct {
		m   *module.Module
		err error
	}
	ch := make(chan result, 1)
	go func() {
		m, err := module.Compile(ctx, segscale.Source, opts)
		ch <- result{m, err}
	}()
	select {
	case r := <-ch:
		require.NoError(t, r.err)
		t.Cleanup(func() { r.m.Close() })
		return r.m
	case <-time.After(10 * time.Second):
		if unblock != nil {
			unblock()
		}
		t.Fatal("module.Compile did not return within 10s")
		return nil
	}
}

// onlyEntry returns the path of the one entry in dir.
func onlyEntry(t *testing.T, dir string) string {
	t.Helper()
	entries, err := filepath.Glob(filepath.Join(dir, "*.entry"))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	return entries[0]
}

// TestCacheEntryNotRegular: whatever sits at an entry's path that is not a
// regular file (a named pipe, which a read would wait on forever; a
// symbolic link, even to a good entry; a directory) is a miss: the compile
// returns promptly and correct, and writes its entry as a regular file in
// place of a pipe or a link, leaving what a link points to alone.
func TestCacheEntryNotRegular(t *testing.T) {
	for _, tc := range []struct {
		name     string
		plant    func(t *testing.T, entry string, good []byte)
		replaced bool // the compile writes a regular entry in its place
	}{
		{"fifo", func(t *testing.T, entry string, _ []byte) {
			require.NoError(t, syscall.Mkfifo(entry, 0o644))
		}, true},
		{"symlink to a good entry", func(t *testing.T, entry string, good []byte) {
			target := filepath.Join(t.TempDir(), "elsewhere.entry")
			require.NoError(t, os.WriteFile(target, good, 0o644))
			require.NoError(t, os.Symlink(target, entry))
			t.Cleanup(func() {
				got, err := os.ReadFile(target)
				require.NoError(t, err)
				assert.Equal(t, good, got, "the link's target is not written")
			})
		}, true},
		{"symlink to a fifo", func(t *testing.T, entry string, _ []byte) {
			fifo := filepath.Join(t.TempDir(), "fifo")
			require.NoError(t, syscall.Mkfifo(fifo, 0o644))
			require.NoError(t, os.Symlink(fifo, entry))
			t.Cleanup(func() {
				fi, err := os.Lstat(fifo)
				require.NoError(t, err)
				assert.Equal(t, os.ModeNamedPipe, fi.Mode().Type(), "the link's target is left alone")
			})
		}, true},
		{"directory", func(t *testing.T, entry string, _ []byte) {
			require.NoError(t, os.Mkdir(entry, 0o755))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := module.Options{CacheDir: dir}
			ctx, s := setup(t, fakeDriver())
			compileWithin(t, ctx, opts, nil)
			entry := onlyEntry(t, dir)
			good, err := os.ReadFile(entry)
			require.NoError(t, err)
			require.NoError(t, os.Remove(entry))
			tc.plant(t, entry, good)

			m := compileWithin(t, ctx, opts, func() {
				// A reader stuck opening the FIFO goes on once a writer
				// opens it.
				if w, err := os.OpenFile(entry, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
			})
			assert.False(t, m.Cached(), "a miss")
			f, err := m.Function(segscale.Name)
			require.NoError(t, err)
			runSegscale(t, ctx, s, f, 77)

			fi, err := os.Lstat(entry)
			require.NoError(t, err)
			if !tc.replaced {
				assert.True(t, fi.IsDir())
				left, err := filepath.Glob(filepath.Join(dir, ".tmp-*"))
				require.NoError(t, err)
				assert.Empty(t, left, "no temporary file left behind")
				return
			}
			require.True(t, fi.Mode().IsRegular(), "the entry is a regular file again: %v", fi.Mode())
			again := compileWithin(t, ctx, opts, nil)
			assert.True(t, again.Cached(), "and the next compile hits it")
		})
	}
}

// TestCacheSweepsAbandonedTempFiles: writing the cache removes temporary
// files older than an hour (left by a writer that died before renaming),
// and only those.
func TestCacheSweepsAbandonedTempFiles(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	oldTmp := filepath.Join(dir, ".tmp-0123456789abcdef-123456")
	freshTmp := filepath.Join(dir, ".tmp-fedcba9876543210-654321")
	oldOther := filepath.Join(dir, "notes.txt")
	oldTmpDir := filepath.Join(dir, ".tmp-dir")
	for _, p := range []string{oldTmp, freshTmp, oldOther} {
		require.NoError(t, os.WriteFile(p, []byte("partial"), 0o600))
	}
	require.NoError(t, os.Mkdir(oldTmpDir, 0o755))
	for _, p := range []string{oldTmp, oldOther, oldTmpDir} {
		require.NoError(t, os.Chtimes(p, old, old))
	}

	ctx, _ := setup(t, fakeDriver())
	compileWithin(t, ctx, module.Options{CacheDir: dir}, nil)

	assert.NoFileExists(t, oldTmp, "an abandoned temporary file is removed")
	assert.FileExists(t, freshTmp, "a recent one may be a live writer's: kept")
	assert.FileExists(t, oldOther, "other files are not the cache's to remove")
	assert.DirExists(t, oldTmpDir, "directories are never removed")
	onlyEntry(t, dir)
}
