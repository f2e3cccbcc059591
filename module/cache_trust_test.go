//go:build unix

package module_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// otherUID is the owner the tests give files of "another user" (nobody).
const otherUID = 65534

// asRoot skips a test that must chown files to another user, which only
// root may do.
func asRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user (chown) needs root")
	}
}

// trustCompile compiles segscale with the cache in dir and a logger
// writing into log, checks that the kernel runs, and returns the module.
func trustCompile(t *testing.T, ctx *driver.Context, s *stream.Stream, dir string, log *bytes.Buffer) *module.Module {
	t.Helper()
	m := compileSegscale(t, ctx, module.Options{CacheDir: dir, Logger: slog.New(slog.NewTextHandler(log, nil))})
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	runSegscale(t, ctx, s, f, 33)
	return m
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	return es
}

// TestCacheDirCreatedPrivate: the cache directory (and parents it makes)
// are created 0700, and what it writes there it trusts.
func TestCacheDirCreatedPrivate(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0))
	dir := filepath.Join(t.TempDir(), "a", "cache")
	ctx, s := setup(t, fakeDriver())
	var log bytes.Buffer
	assert.False(t, trustCompile(t, ctx, s, dir, &log).Cached())
	for _, d := range []string{dir, filepath.Dir(dir)} {
		fi, err := os.Stat(d)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "%s is created 0700, whatever the umask", d)
	}
	assert.True(t, trustCompile(t, ctx, s, dir, &log).Cached())
	assert.Empty(t, log.String(), "nothing to say")
}

// TestCacheDirNotTrusted: a cache directory that another user can write to
// (world- or group-writable) or that belongs to another user is neither
// read nor written: every compile compiles, nothing is added there, and
// the logger hears why.
func TestCacheDirNotTrusted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		root  bool
		setup func(t *testing.T, dir string)
		why   string
	}{
		{"world-writable", false, func(t *testing.T, dir string) { require.NoError(t, os.Chmod(dir, 0o777)) }, "writable by its group and others (mode 0777)"},
		{"world-writable, sticky", false, func(t *testing.T, dir string) {
			require.NoError(t, os.Chmod(dir, 0o777|os.ModeSticky))
		}, "writable by its group and others"},
		{"group-writable", false, func(t *testing.T, dir string) { require.NoError(t, os.Chmod(dir, 0o770)) }, "writable by its group (mode 0770)"},
		{"another user's", true, func(t *testing.T, dir string) { require.NoError(t, os.Chown(dir, otherUID, otherUID)) }, "owned by uid 65534, not by the current user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root {
				asRoot(t)
			}
			dir := filepath.Join(t.TempDir(), "cache")
			ctx, s := setup(t, fakeDriver())
			var log bytes.Buffer
			// A good entry, written while the directory was the user's.
			trustCompile(t, ctx, s, dir, &log)
			require.Len(t, entries(t, dir), 1)
			tc.setup(t, dir)

			for range 2 {
				assert.False(t, trustCompile(t, ctx, s, dir, &log).Cached(), "not read")
			}
			assert.Len(t, entries(t, dir), 1, "not written")
			assert.Contains(t, log.String(), "directory not trusted")
			assert.Contains(t, log.String(), tc.why)
		})
	}
}

// TestCacheDirNotTrustedFromTheStart: a directory that is not trusted when
// the first compile comes gets no entry either (the directory's owner, not
// this user, decides what is in it).
func TestCacheDirNotTrustedFromTheStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	require.NoError(t, os.Mkdir(dir, 0o777))
	require.NoError(t, os.Chmod(dir, 0o777))
	ctx, s := setup(t, fakeDriver())
	var log bytes.Buffer
	assert.False(t, trustCompile(t, ctx, s, dir, &log).Cached())
	assert.False(t, trustCompile(t, ctx, s, dir, &log).Cached())
	assert.Empty(t, entries(t, dir))
	assert.Contains(t, log.String(), "directory not trusted")
}

// TestCacheEntryNotTrusted: an entry, valid checksum and all, that belongs
// to another user or that others can write to is a miss: the compile
// compiles, the logger hears why, and the user's own entry replaces it
// (the directory is the user's), which the next compile hits.
func TestCacheEntryNotTrusted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		root  bool
		plant func(t *testing.T, entry string)
		why   string
	}{
		{"another user's", true, func(t *testing.T, entry string) {
			require.NoError(t, os.Chown(entry, otherUID, otherUID))
		}, "owned by uid 65534, not by the current user"},
		{"world-writable", false, func(t *testing.T, entry string) {
			require.NoError(t, os.Chmod(entry, 0o666))
		}, "writable by its group and others (mode 0666)"},
		{"group-writable", false, func(t *testing.T, entry string) {
			require.NoError(t, os.Chmod(entry, 0o620))
		}, "writable by its group (mode 0620)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root {
				asRoot(t)
			}
			dir := t.TempDir()
			ctx, s := setup(t, fakeDriver())
			var log bytes.Buffer
			trustCompile(t, ctx, s, dir, &log)
			entry := onlyEntry(t, dir)
			tc.plant(t, entry)

			assert.False(t, trustCompile(t, ctx, s, dir, &log).Cached(), "a miss")
			assert.Contains(t, log.String(), "entry not trusted")
			assert.Contains(t, log.String(), tc.why)

			fi, err := os.Stat(onlyEntry(t, dir))
			require.NoError(t, err)
			st := fi.Sys().(*syscall.Stat_t)
			assert.Equal(t, uint32(os.Geteuid()), st.Uid, "replaced by the user's own entry")
			assert.Zero(t, fi.Mode().Perm()&0o022)
			log.Reset()
			assert.True(t, trustCompile(t, ctx, s, dir, &log).Cached(), "which the next compile hits")
			assert.Empty(t, log.String())
		})
	}
}
