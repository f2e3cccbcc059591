package loader

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ldCache builds a loader cache in the new format, with the given
// (flags, soname, path) entries, after an old-format table when compat.
func ldCache(compat bool, entries ...ldTestEntry) []byte {
	var strs []byte
	base := uint32(ldCacheHeader + len(entries)*ldCacheEntry)
	off := func(s string) uint32 {
		o := base + uint32(len(strs))
		strs = append(strs, s...)
		strs = append(strs, 0)
		return o
	}
	h := make([]byte, ldCacheHeader)
	copy(h, ldCacheMagicNew)
	binary.NativeEndian.PutUint32(h[20:], uint32(len(entries)))
	var body []byte
	for _, e := range entries {
		b := make([]byte, ldCacheEntry)
		binary.NativeEndian.PutUint32(b[0:], uint32(e.flags))
		binary.NativeEndian.PutUint32(b[4:], off(e.name))
		binary.NativeEndian.PutUint32(b[8:], off(e.path))
		body = append(body, b...)
	}
	binary.NativeEndian.PutUint32(h[24:], uint32(len(strs)))
	out := append(append(h, body...), strs...)
	if !compat {
		return out
	}
	old := make([]byte, 16+12) // one old entry, then padding to 8
	copy(old, ldCacheMagicOld)
	binary.NativeEndian.PutUint32(old[12:], 1)
	for len(old)%8 != 0 {
		old = append(old, 0)
	}
	return append(old, out...)
}

type ldTestEntry struct {
	flags      int32
	name, path string
}

func TestLDCacheLookup(t *testing.T) {
	x := int32(ldFlagELFLibc6 | ldFlagX8664)
	a := int32(ldFlagELFLibc6 | ldFlagAArch64)
	for _, compat := range []bool{false, true} {
		data := ldCache(compat,
			ldTestEntry{x, "libnvrtc.so.13", "/opt/x/libnvrtc.so.13"},
			ldTestEntry{a, "libnvrtc.so.13", "/opt/a/libnvrtc.so.13"},
			ldTestEntry{x, "libc.so.6", "/lib/libc.so.6"},
			ldTestEntry{x, "libnvrtc.so.13", "/opt/y/libnvrtc.so.13"},
		)
		got, err := ldCacheLookup(data, "libnvrtc.so.13", x)
		require.NoError(t, err)
		assert.Equal(t, []string{"/opt/x/libnvrtc.so.13", "/opt/y/libnvrtc.so.13"}, got, "compat %v: this architecture's, in order", compat)
		got, err = ldCacheLookup(data, "libnvrtc.so.13", a)
		require.NoError(t, err)
		assert.Equal(t, []string{"/opt/a/libnvrtc.so.13"}, got)
		got, err = ldCacheLookup(data, "libnvrtc.so.12", x)
		require.NoError(t, err)
		assert.Empty(t, got)
	}
}

func TestLDCacheLookupRefusesGarbage(t *testing.T) {
	x := int32(ldFlagELFLibc6 | ldFlagX8664)
	good := ldCache(false, ldTestEntry{x, "libc.so.6", "/lib/libc.so.6"})
	for name, data := range map[string][]byte{
		"empty":       nil,
		"other magic": []byte("not a cache at all, long enough to hold a header......"),
		"truncated":   good[:ldCacheHeader+10],
		"count too large": func() []byte {
			b := append([]byte(nil), good...)
			binary.NativeEndian.PutUint32(b[20:], 1<<30)
			return b
		}(),
		"string offset out of the file": func() []byte {
			b := append([]byte(nil), good...)
			binary.NativeEndian.PutUint32(b[ldCacheHeader+4:], 1<<30)
			return b
		}(),
	} {
		_, err := ldCacheLookup(data, "libc.so.6", x)
		assert.ErrorIs(t, err, errLDCache, name)
	}
}

// fakeLib writes a small valid shared library for this machine at path.
func fakeLib(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, craft(4096, prog64(elf.PT_LOAD, 0, 4096)), 0o644))
}

func TestLocateSonameOrder(t *testing.T) {
	if cacheArchFlag() == 0 {
		t.Skip("no loader cache flags for this architecture")
	}
	dir := t.TempDir()
	llp := filepath.Join(dir, "llp")
	cached := filepath.Join(dir, "cached", "libx.so.1")
	deflt := filepath.Join(dir, "default")
	fakeLib(t, cached)
	fakeLib(t, filepath.Join(deflt, "libx.so.1"))
	cache := filepath.Join(dir, "ld.so.cache")
	require.NoError(t, os.WriteFile(cache, ldCache(false, ldTestEntry{cacheArchFlag(), "libx.so.1", cached}), 0o644))

	p, found, sure := locateSoname("libx.so.1", llp, &ldCacheFile{path: cache}, []string{deflt})
	assert.True(t, found && sure)
	assert.Equal(t, cached, p, "the cache before the default directories")

	fakeLib(t, filepath.Join(llp, "libx.so.1"))
	p, found, sure = locateSoname("libx.so.1", llp, &ldCacheFile{path: cache}, []string{deflt})
	assert.True(t, found && sure)
	assert.Equal(t, filepath.Join(llp, "libx.so.1"), p, "LD_LIBRARY_PATH first")

	p, found, sure = locateSoname("libx.so.1", "", &ldCacheFile{path: filepath.Join(dir, "none")}, []string{deflt})
	assert.True(t, found && sure)
	assert.Equal(t, filepath.Join(deflt, "libx.so.1"), p, "no cache: the default directories")

	_, found, sure = locateSoname("liby.so.1", "", &ldCacheFile{path: cache}, []string{deflt})
	assert.False(t, found)
	assert.True(t, sure, "a name nowhere is surely not there")

	_, _, sure = locateSoname("libx.so.1", "$ORIGIN/lib", &ldCacheFile{path: cache}, nil)
	assert.False(t, sure, "$ORIGIN is the loader's to expand")

	other := filepath.Join(dir, "hw", "libx.so.1")
	fakeLib(t, other)
	require.NoError(t, os.WriteFile(cache, ldCache(false,
		ldTestEntry{cacheArchFlag(), "libx.so.1", other}, ldTestEntry{cacheArchFlag(), "libx.so.1", cached}), 0o644))
	_, _, sure = locateSoname("libx.so.1", "", &ldCacheFile{path: cache}, nil)
	assert.False(t, sure, "two files for one name: the loader chooses by CPU")

	require.NoError(t, os.WriteFile(cache, []byte("garbage"), 0o644))
	_, _, sure = locateSoname("libx.so.1", "", &ldCacheFile{path: cache}, nil)
	assert.False(t, sure, "an unreadable cache")
}

// Locate agrees with what Open loads, for the libraries of this machine,
// and loads nothing itself.
func TestLocateMatchesOpenAndLoadsNothing(t *testing.T) {
	if cacheArchFlag() == 0 {
		t.Skip("no loader cache flags for this architecture")
	}
	opens := 0
	real := dlOpen
	dlOpen = func(name string) (uintptr, error) { opens++; return real(name) }
	t.Cleanup(func() { dlOpen = real })
	for _, k := range []Kind{NVRTC, CUDA} {
		opens = 0 // Open of the kind before may have tried files
		p, ok := Locate(k)
		assert.Zero(t, opens, "Locate(%v) loads nothing", k)
		lib, err := Open(k)
		if err != nil {
			assert.False(t, ok && p == "", "%v", k)
			continue
		}
		if !ok {
			t.Logf("%v: Locate cannot tell; Open loads %s", k, lib.Path())
			continue
		}
		assert.Equal(t, resolved(lib.Path()), p, "%v: the file Open loaded", k)
	}
}

func TestLocateFollowsEnvPath(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "libnvrtc.so.13.0.1")
	fakeLib(t, lib)
	link := filepath.Join(dir, "libnvrtc.so.13")
	require.NoError(t, os.Symlink(lib, link))
	t.Setenv("NOCGO_CUDA_LIBNVRTC", link)
	p, ok := Locate(NVRTC)
	require.True(t, ok)
	assert.Equal(t, resolved(lib), p, "symbolic links resolved")

	assert.False(t, Absent(NVRTC), "a file is there")

	t.Setenv("NOCGO_CUDA_LIBNVRTC", filepath.Join(dir, "missing.so"))
	_, ok = Locate(NVRTC)
	assert.False(t, ok, "nothing to load")
	assert.True(t, Absent(NVRTC), "the only candidate is missing: sure there is none")
}

func TestFileIdentityChangesWithTheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "lib.so")
	require.NoError(t, os.WriteFile(p, []byte("one"), 0o644))
	a, err := FileIdentity(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, []byte("three"), 0o644))
	b, err := FileIdentity(p)
	require.NoError(t, err)
	assert.NotEqual(t, a, b, "a new size")
	link := filepath.Join(dir, "link.so")
	require.NoError(t, os.Symlink(p, link))
	c, err := FileIdentity(link)
	require.NoError(t, err)
	assert.Equal(t, b, c, "a link names its file")
	_, err = FileIdentity(filepath.Join(dir, "missing"))
	assert.Error(t, err)
	_, err = FileIdentity(dir)
	assert.Error(t, err, "a directory")
}
