package module

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Environment variables of the compile cache.
const (
	// CacheDirEnv moves the cache directory.
	CacheDirEnv = "NOCGO_CUDA_CACHE_DIR"
	// CacheEnv set to "off" (or "0", "false", "no") disables the cache.
	CacheEnv = "NOCGO_CUDA_CACHE"
)

// CacheDir returns the directory Compile caches into when Options set none,
// and false when the cache is disabled: NOCGO_CUDA_CACHE=off disables it,
// NOCGO_CUDA_CACHE_DIR moves it, and the default is
// $XDG_CACHE_HOME/nocgo-cuda, else ~/.cache/nocgo-cuda (the platform's user
// cache directory elsewhere). A relative XDG_CACHE_HOME is ignored, as the
// XDG Base Directory specification says.
//
// Each entry is one file named by its key, holding the compiled image, the
// PTX, NVRTC's log and the lowered names, with a SHA-256 checksum. Entries
// are written to a temporary file and renamed into place, so readers never
// see a partial entry and concurrent processes may share the directory; an
// entry that fails its checksum, or that is not a regular file (a symbolic
// link, a named pipe), is a miss and is replaced. Failing to write the cache
// never fails a compile. Temporary files left by a writer that died are
// removed after an hour; entries are never evicted: delete the directory to
// reclaim the space.
func CacheDir() (string, bool) {
	switch strings.ToLower(os.Getenv(CacheEnv)) {
	case "off", "0", "false", "no":
		return "", false
	}
	if d := os.Getenv(CacheDirEnv); d != "" {
		return d, true
	}
	d, err := userCacheDir()
	if err != nil {
		return "", false
	}
	return filepath.Join(d, "nocgo-cuda"), true
}

// userCacheDir is os.UserCacheDir, except that a relative XDG_CACHE_HOME,
// which os.UserCacheDir answers with an error, is ignored: "If an
// implementation encounters a relative path in any of these variables it
// should consider the path invalid and ignore it" (XDG Base Directory
// specification), and the default, ~/.cache, applies.
func userCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err == nil {
		return d, nil
	}
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "plan9":
		return "", err // XDG_CACHE_HOME is not consulted there
	}
	if x := os.Getenv("XDG_CACHE_HOME"); x != "" && !filepath.IsAbs(x) {
		if home := os.Getenv("HOME"); home != "" {
			return filepath.Join(home, ".cache"), nil
		}
	}
	return "", err
}

// cache is the cache directory of one compile; the zero value is disabled.
type cache struct{ dir string }

func openCache(o Options) cache {
	if o.NoCache {
		return cache{}
	}
	if o.CacheDir != "" {
		return cache{o.CacheDir}
	}
	d, ok := CacheDir()
	if !ok {
		return cache{}
	}
	return cache{d}
}

// cacheKey hashes everything a compile's output depends on. Each part is
// length-prefixed so that no two different inputs serialise alike.
// nvrtc is the compiler's identity (see nvrtcIdentity).
func cacheKey(src, name string, o Options, arch, nvrtc string) string {
	h := sha256.New()
	count := func(n int) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(n))
		h.Write(b[:])
	}
	put := func(s string) {
		count(len(s))
		h.Write([]byte(s))
	}
	put("nocgo-cuda module " + Version)
	put("nvrtc " + nvrtc)
	put(arch)
	put(name)
	put(src)
	flags := o.flags(arch)
	count(len(flags))
	for _, f := range flags {
		put(f)
	}
	contents, names := o.headers()
	count(len(names))
	for i := range names {
		put(names[i])
		put(contents[i])
	}
	count(len(o.NameExpressions))
	for _, e := range o.NameExpressions {
		put(e)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Entry file layout: magic, SHA-256 of the payload, payload length (uint64
// little endian), payload (JSON of cacheEntry).
var cacheMagic = []byte("nocgo-cuda-mod1\n")

const cacheHeader = 16 + sha256.Size + 8

type cacheEntry struct {
	Key string `json:"key"`
	compiled
}

func (c cache) path(key string) string { return filepath.Join(c.dir, key+".entry") }

// get returns the entry for key, or false for a miss, a disabled cache, or
// an entry that is unreadable, truncated, corrupt or for another key.
func (c cache) get(key string) (*compiled, bool) {
	if c.dir == "" {
		return nil, false
	}
	data, ok := readEntry(c.path(key))
	if !ok {
		return nil, false
	}
	return decodeEntry(data, key)
}

// readEntry reads the entry file at path. Only a regular file is read: the
// file is opened without following a symbolic link (the cache only ever
// writes regular files) and without waiting on a named pipe or a device,
// then refused unless it is a regular file, so that a FIFO at an entry's
// path is a miss rather than a read that never returns. A file whose size
// is not the one its header announces is a miss without being read whole.
func readEntry(path string) ([]byte, bool) {
	f, err := openEntry(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < cacheHeader {
		return nil, false
	}
	var hdr [cacheHeader]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil || !bytes.Equal(hdr[:16], cacheMagic) {
		return nil, false
	}
	if n := binary.LittleEndian.Uint64(hdr[16+sha256.Size:]); n != uint64(fi.Size()-cacheHeader) {
		return nil, false
	}
	data := make([]byte, fi.Size())
	copy(data, hdr[:])
	if _, err := io.ReadFull(f, data[cacheHeader:]); err != nil {
		return nil, false
	}
	return data, true
}

// decodeEntry decodes the contents of an entry file for key, or returns
// false when they are truncated, corrupt or for another key.
func decodeEntry(data []byte, key string) (*compiled, bool) {
	if len(data) < cacheHeader || !bytes.Equal(data[:16], cacheMagic) {
		return nil, false
	}
	n := binary.LittleEndian.Uint64(data[16+sha256.Size:])
	payload := data[cacheHeader:]
	if uint64(len(payload)) != n {
		return nil, false
	}
	sum := sha256.Sum256(payload)
	if !bytes.Equal(sum[:], data[16:16+sha256.Size]) {
		return nil, false
	}
	var e cacheEntry
	if err := json.Unmarshal(payload, &e); err != nil || e.Key != key || len(e.Image) == 0 {
		return nil, false
	}
	if e.Kind != PTX && e.Kind != CUBIN {
		return nil, false
	}
	return &e.compiled, true
}

// Temporary files: put writes an entry under a name starting with
// tmpPrefix and renames it into place. A writer killed in between leaves
// its temporary file behind; put removes those older than tmpMaxAge.
const (
	tmpPrefix = ".tmp-"
	tmpMaxAge = time.Hour
)

// encodeEntry returns the contents of the entry file for key.
func encodeEntry(key string, comp *compiled) ([]byte, error) {
	payload, err := json.Marshal(cacheEntry{Key: key, compiled: *comp})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(payload)
	buf := make([]byte, 0, cacheHeader+len(payload))
	buf = append(buf, cacheMagic...)
	buf = append(buf, sum[:]...)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(payload)))
	return append(buf, payload...), nil
}

// put stores an entry atomically: a temporary file in the same directory,
// created exclusively (so never through a symbolic link or into a named
// pipe planted at its name), renamed over the entry's name (which replaces
// whatever is there, a symbolic link or a named pipe included, and follows
// nothing). It then sweeps temporary files abandoned more than tmpMaxAge
// ago. Errors are ignored: the cache is an optimisation.
func (c cache) put(key string, comp *compiled) {
	if c.dir == "" {
		return
	}
	buf, err := encodeEntry(key, comp)
	if err != nil {
		return
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return
	}
	defer c.sweep(time.Now())
	tmp, err := os.CreateTemp(c.dir, tmpPrefix+key[:min(len(key), 16)]+"-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(buf)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if err := os.Rename(tmp.Name(), c.path(key)); err != nil {
		os.Remove(tmp.Name())
	}
}

// sweep removes the temporary files in the cache directory last modified
// before now-tmpMaxAge: a live writer's file is seconds old, so what is
// older was abandoned by a writer that died before renaming it.
func (c cache) sweep(now time.Time) {
	d, err := os.Open(c.dir)
	if err != nil {
		return
	}
	ents, _ := d.ReadDir(-1)
	d.Close()
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), tmpPrefix) || e.IsDir() {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > tmpMaxAge {
			os.Remove(filepath.Join(c.dir, e.Name()))
		}
	}
}
