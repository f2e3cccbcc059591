package module

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCacheKey(t *testing.T) {
	base := Options{
		Name:            "k.cu",
		Std:             "c++17",
		Defines:         map[string]string{"A": "1", "B": ""},
		IncludePaths:    []string{"/inc"},
		Headers:         map[string]string{"h.h": "int x;", "g.h": "int y;"},
		NameExpressions: []string{"f<int>"},
	}
	key := func(o Options, src, arch, nv string) string { return cacheKey(src, o.name(), o, arch, nv) }
	k0 := key(base, "src", "sm_90", "13.0")
	assert.Len(t, k0, 64)
	assert.Equal(t, k0, key(base, "src", "sm_90", "13.0"), "deterministic")

	// The same options built in another order give the same key.
	same := base
	same.Defines = map[string]string{"B": "", "A": "1"}
	same.Headers = map[string]string{"g.h": "int y;", "h.h": "int x;"}
	assert.Equal(t, k0, key(same, "src", "sm_90", "13.0"))
	// NoCache and CacheDir do not change what is compiled.
	same.CacheDir = "/elsewhere"
	assert.Equal(t, k0, key(same, "src", "sm_90", "13.0"))

	changed := map[string]string{
		"source": key(base, "src2", "sm_90", "13.0"),
		"arch":   key(base, "src", "sm_89", "13.0"),
		"nvrtc":  key(base, "src", "sm_90", "12.9"),
	}
	for name, mod := range map[string]func(o *Options){
		"name":        func(o *Options) { o.Name = "other.cu" },
		"std":         func(o *Options) { o.Std = "c++20" },
		"define":      func(o *Options) { o.Defines = map[string]string{"A": "2", "B": ""} },
		"define flag": func(o *Options) { o.Defines = map[string]string{"A": "1", "B": "1"} },
		"include":     func(o *Options) { o.IncludePaths = []string{"/inc2"} },
		"header":      func(o *Options) { o.Headers = map[string]string{"h.h": "int z;", "g.h": "int y;"} },
		"header name": func(o *Options) { o.Headers = map[string]string{"H.h": "int x;", "g.h": "int y;"} },
		"expression":  func(o *Options) { o.NameExpressions = []string{"f<long>"} },
		"lineinfo":    func(o *Options) { o.LineInfo = true },
		"debug":       func(o *Options) { o.Debug = true },
		"flags":       func(o *Options) { o.Flags = []string{"--use_fast_math"} },
	} {
		o := base
		mod(&o)
		changed[name] = key(o, "src", "sm_90", "13.0")
	}
	seen := map[string]string{k0: "base"}
	for name, k := range changed {
		if prev, dup := seen[k]; dup {
			t.Errorf("%s gives the same key as %s", name, prev)
		}
		seen[k] = name
	}
	// The compiler's identity is its implementation and its version: the
	// fake and libnvrtc report the same version.
	idA, idB := nvrtcIdentity(nvA{}, 13, 0), nvrtcIdentity(nvB{}, 13, 0)
	assert.NotEqual(t, idA, idB)
	assert.NotEqual(t, idA, nvrtcIdentity(nvA{}, 13, 1))
	assert.Equal(t, idA, nvrtcIdentity(nvA{}, 13, 0))
	assert.NotEqual(t, key(base, "src", "sm_90", idA), key(base, "src", "sm_90", idB))

	// Boundaries between fields are unambiguous.
	a := cacheKey("ab", "c", Options{}, "sm_90", "13.0")
	b := cacheKey("a", "bc", Options{}, "sm_90", "13.0")
	assert.NotEqual(t, a, b)
}

func TestCacheEntryChecks(t *testing.T) {
	c := cache{dir: t.TempDir(), max: -1}
	const key = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	comp := &compiled{Arch: "sm_90", Kind: CUBIN, Image: []byte("\x7fELF..."), PTX: []byte(".version"), Log: "warning: x", Lowered: map[string]string{"f<int>": "_Z1fIiEvv"}}
	_, ok := c.get(key)
	assert.False(t, ok, "a miss")
	c.put(key, comp)
	got, ok := c.get(key)
	require.True(t, ok)
	assert.Equal(t, comp, got, "everything round-trips: image, PTX, log, lowered names")

	good, err := os.ReadFile(c.path(key))
	require.NoError(t, err)
	entry := func(payload []byte, mutate func(sum []byte, n []byte)) []byte {
		sum := sha256.Sum256(payload)
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(payload)))
		if mutate != nil {
			mutate(sum[:], n[:])
		}
		out := append([]byte(nil), cacheMagic...)
		out = append(out, sum[:]...)
		out = append(out, n[:]...)
		return append(out, payload...)
	}
	payload := func(e cacheEntry) []byte {
		b, err := json.Marshal(e)
		require.NoError(t, err)
		return b
	}
	wrongKey := payload(cacheEntry{Key: "other", compiled: *comp})
	noImage := payload(cacheEntry{Key: key, compiled: compiled{Kind: CUBIN}})
	badKind := payload(cacheEntry{Key: key, compiled: compiled{Kind: Fatbin, Image: []byte("x")}})
	for name, data := range map[string][]byte{
		"empty":          {},
		"magic":          append([]byte("NOT-THE-MAGIC!!\n"), good[16:]...),
		"truncated":      good[:len(good)-1],
		"longer":         append(append([]byte(nil), good...), 0),
		"checksum":       entry(good[cacheHeader:], func(sum, _ []byte) { sum[0] ^= 1 }),
		"length":         entry(good[cacheHeader:], func(_, n []byte) { n[0]++ }),
		"not json":       entry([]byte("{not json"), nil),
		"another key":    entry(wrongKey, nil),
		"no image":       entry(noImage, nil),
		"unknown kind":   entry(badKind, nil),
		"header only":    good[:cacheHeader],
		"shorter header": good[:cacheHeader-1],
	} {
		require.NoError(t, os.WriteFile(c.path(key), data, 0o644))
		_, ok := c.get(key)
		assert.False(t, ok, name)
	}
	// A well-formed entry built by hand is accepted: the checks above fail
	// for their reason only.
	require.NoError(t, os.WriteFile(c.path(key), entry(good[cacheHeader:], nil), 0o644))
	_, ok = c.get(key)
	assert.True(t, ok)
}

func TestCachePutFailures(t *testing.T) {
	// A cache directory that cannot be created, or written: put gives up
	// quietly and leaves nothing behind.
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	c := cache{dir: filepath.Join(file, "sub"), max: -1}
	c.put("00112233445566778899aabbccddeeff", &compiled{Kind: PTX, Image: []byte(".version")})
	_, ok := c.get("00112233445566778899aabbccddeeff")
	assert.False(t, ok)

	if os.Geteuid() != 0 { // root writes anywhere
		ro := t.TempDir()
		require.NoError(t, os.Chmod(ro, 0o555))
		t.Cleanup(func() { os.Chmod(ro, 0o755) })
		c = cache{dir: ro, max: -1}
		c.put("00112233445566778899aabbccddeeff", &compiled{Kind: PTX, Image: []byte(".version")})
		left, err := os.ReadDir(ro)
		require.NoError(t, err)
		assert.Empty(t, left)
	}

	// The disabled cache does nothing.
	var off cache
	off.put("k", &compiled{Kind: PTX, Image: []byte("x")})
	_, ok = off.get("k")
	assert.False(t, ok)
}

func TestCacheDirEnv(t *testing.T) {
	t.Setenv(CacheEnv, "")
	t.Setenv(CacheDirEnv, "/tmp/somewhere")
	d, ok := CacheDir()
	assert.True(t, ok)
	assert.Equal(t, "/tmp/somewhere", d)
	for _, v := range []string{"off", "OFF", "0", "false", "no"} {
		t.Setenv(CacheEnv, v)
		_, ok := CacheDir()
		assert.False(t, ok, v)
		assert.Equal(t, cache{}, openCache(Options{}, nil), v)
		assert.Equal(t, cache{dir: "/x", max: DefaultCacheMaxBytes}, openCache(Options{CacheDir: "/x"}, nil), "an explicit directory wins over %s", v)
	}
	t.Setenv(CacheEnv, "on")
	t.Setenv(CacheDirEnv, "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	d, ok = CacheDir()
	assert.True(t, ok)
	assert.Equal(t, "/xdg/nocgo-cuda", d)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/gopher")
	d, ok = CacheDir()
	assert.True(t, ok)
	assert.Equal(t, "/home/gopher/.cache/nocgo-cuda", d)
	assert.Equal(t, cache{}, openCache(Options{NoCache: true, CacheDir: "/x"}, nil), "NoCache wins")

	// A relative XDG_CACHE_HOME is invalid and ignored (XDG Base Directory
	// specification): the default under $HOME applies, the cache stays on.
	for _, rel := range []string{"relative/cache", "./cache", "cache"} {
		t.Setenv("XDG_CACHE_HOME", rel)
		d, ok = CacheDir()
		assert.True(t, ok, rel)
		assert.Equal(t, "/home/gopher/.cache/nocgo-cuda", d, rel)
		assert.Equal(t, cache{dir: "/home/gopher/.cache/nocgo-cuda", max: DefaultCacheMaxBytes}, openCache(Options{}, nil), rel)
	}
	// With no $HOME either there is nowhere to cache.
	t.Setenv("HOME", "")
	_, ok = CacheDir()
	assert.False(t, ok)
	assert.Equal(t, cache{}, openCache(Options{}, nil))
}

func TestOptionFlags(t *testing.T) {
	o := Options{
		Std:          "c++17",
		Defines:      map[string]string{"Z": "1", "A": ""},
		IncludePaths: []string{"/a", "/b"},
		LineInfo:     true,
		Debug:        true,
		Flags:        []string{"--use_fast_math"},
	}
	assert.Equal(t, []string{
		"--gpu-architecture=sm_90", "--std=c++17", "-DA", "-DZ=1", "-I/a", "-I/b", "-lineinfo", "-G", "--use_fast_math",
	}, o.flags("sm_90"))
	assert.Equal(t, []string{"--gpu-architecture=compute_80"}, (&Options{}).flags("compute_80"))
	contents, names := (&Options{Headers: map[string]string{"b.h": "B", "a.h": "A"}}).headers()
	assert.Equal(t, []string{"a.h", "b.h"}, names)
	assert.Equal(t, []string{"A", "B"}, contents)

	for _, bad := range []Options{
		{Arch: "90"}, {Defines: map[string]string{"": "1"}}, {Defines: map[string]string{"A=B": ""}},
		{Headers: map[string]string{"": "x"}}, {NameExpressions: []string{""}},
	} {
		assert.Error(t, bad.check(), "%+v", bad)
	}
	assert.NoError(t, o.check())
}

// nvA and nvB are two compiler implementations, told apart by Implementation
// alone.
type nvA struct{ backend.NVRTC }
type nvB struct{ backend.NVRTC }

func (nvA) Implementation() string { return "compiler A" }
func (nvB) Implementation() string { return "compiler B" }
