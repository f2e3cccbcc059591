package module

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cacheKeyN returns a well-formed key for test entry n.
func cacheKeyN(n int) string { return fmt.Sprintf("%064x", n) }

// entrySize returns the size on disk of an entry for comp.
func entrySize(t *testing.T, comp *compiled) int64 {
	t.Helper()
	buf, err := encodeEntry(cacheKeyN(0), comp)
	require.NoError(t, err)
	return int64(len(buf))
}

// age sets an entry's last use to d ago.
func age(t *testing.T, c cache, key string, d time.Duration) {
	t.Helper()
	when := time.Now().Add(-d)
	require.NoError(t, os.Chtimes(c.path(key), when, when))
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	comp := &compiled{Arch: "sm_90", Kind: PTX, Image: bytes.Repeat([]byte("x"), 1000)}
	size := entrySize(t, comp)
	var logged bytes.Buffer
	c := cache{dir: t.TempDir(), max: 2*size + size/2, log: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))}

	c.put(cacheKeyN(1), comp)
	c.put(cacheKeyN(2), comp)
	age(t, c, cacheKeyN(1), 2*time.Hour)
	age(t, c, cacheKeyN(2), time.Hour)
	_, ok := c.get(cacheKeyN(1))
	require.True(t, ok, "a hit renews entry 1: entry 2 is now the least recently used")

	c.put(cacheKeyN(3), comp)
	_, ok = c.get(cacheKeyN(2))
	assert.False(t, ok, "entry 2 was evicted")
	for _, n := range []int{1, 3} {
		_, ok := c.get(cacheKeyN(n))
		assert.True(t, ok, "entry %d kept", n)
	}
	assert.Contains(t, logged.String(), "evicted")
	assert.Contains(t, logged.String(), cacheKeyN(2))

	// Files that are not entries are neither counted nor removed.
	other := filepath.Join(c.dir, "notes.txt")
	require.NoError(t, os.WriteFile(other, bytes.Repeat([]byte("y"), int(3*size)), 0o644))
	c.put(cacheKeyN(4), comp)
	assert.FileExists(t, other)
	ents, err := os.ReadDir(c.dir)
	require.NoError(t, err)
	n := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".entry") {
			n++
		}
	}
	assert.Equal(t, 2, n, "two entries fit under the cap")
}

func TestCacheEntryOverTheCap(t *testing.T) {
	comp := &compiled{Arch: "sm_90", Kind: PTX, Image: bytes.Repeat([]byte("x"), 1000)}
	c := cache{dir: t.TempDir(), max: entrySize(t, comp) - 1}
	c.put(cacheKeyN(1), comp)
	_, ok := c.get(cacheKeyN(1))
	assert.False(t, ok, "an entry larger than the cap is not kept")

	unlimited := cache{dir: c.dir, max: -1}
	for i := range 5 {
		unlimited.put(cacheKeyN(i), comp)
	}
	for i := range 5 {
		_, ok := unlimited.get(cacheKeyN(i))
		assert.True(t, ok, "no cap: entry %d kept", i)
	}
}

func TestCacheWriteFailureLogged(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	c := cache{dir: filepath.Join(file, "sub"), max: -1, log: log}
	c.put(cacheKeyN(1), &compiled{Kind: PTX, Image: []byte(".version")})
	assert.Contains(t, logged.String(), "level=WARN")
	assert.Contains(t, logged.String(), "kernel cache: creating the directory")
	assert.Contains(t, logged.String(), "not a directory")

	logged.Reset()
	quiet := cache{dir: t.TempDir(), max: -1, log: log}
	quiet.put(cacheKeyN(1), &compiled{Kind: PTX, Image: []byte(".version")})
	assert.Empty(t, logged.String(), "a successful write says nothing at Info")
}

func TestOpenCacheCap(t *testing.T) {
	dir := t.TempDir()
	assert.Equal(t, int64(DefaultCacheMaxBytes), openCache(Options{CacheDir: dir}, nil).max)
	assert.Equal(t, int64(5000), openCache(Options{CacheDir: dir, CacheMaxBytes: 5000}, nil).max)
	assert.Equal(t, int64(-1), openCache(Options{CacheDir: dir, CacheMaxBytes: -1}, nil).max)
	log := slog.New(slog.DiscardHandler)
	assert.Same(t, log, openCache(Options{CacheDir: dir, Logger: log}, nil).log)
}
