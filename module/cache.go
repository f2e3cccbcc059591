package module

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/nocgo/cuda/driver/backend"
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
// never fails a compile; Options.Logger, when set, hears of it. Temporary
// files left by a writer that died are removed after an hour.
//
// The cache trusts only what the current user alone can have written, as
// ssh treats its files: the directory is created 0700, and it is used only
// while it belongs to the current user and is writable by no one else (not
// by its group, not by others); an entry is read only when it too belongs
// to the current user and is writable by no one else. A directory that
// fails this is neither read nor written (every compile compiles), an
// entry that fails it is a miss (and is replaced by this user's own), and
// Options.Logger hears why. So another user who can write to a shared
// NOCGO_CUDA_CACHE_DIR cannot plant an entry, valid checksum and all, that
// this process would load onto its GPU.
//
// The cache holds at most Options.CacheMaxBytes of entries
// (DefaultCacheMaxBytes unless set): each write evicts the least recently
// used entries (by modification time, which a cache hit renews) until the
// entries fit. Several processes sharing the directory each enforce the cap
// on their writes, so the directory may briefly hold more.
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

// DefaultCacheMaxBytes is the kernel cache's size cap when
// Options.CacheMaxBytes is 0: 1 GiB, thousands of kernels.
const DefaultCacheMaxBytes = 1 << 30

// cache is the cache directory of one compile; the zero value is disabled.
type cache struct {
	dir string
	max int64        // the cap on the entries' bytes; < 0: none
	log *slog.Logger // hears of write failures and evictions; nil: nobody
}

func openCache(o Options, api backend.API) cache {
	c := cache{max: o.CacheMaxBytes, log: o.Logger}
	if c.max == 0 {
		c.max = DefaultCacheMaxBytes
	}
	switch {
	case o.NoCache:
		return cache{}
	case o.CacheDir != "":
		c.dir = o.CacheDir
	default:
		d, ok := CacheDir()
		if kc, is := api.(backend.KernelCache); ok && is && os.Getenv(CacheDirEnv) == "" {
			if bd := kc.KernelCacheDir(); bd != "" {
				d = bd // the fake of a test: the test's own directory
			}
		}
		if !ok {
			return cache{}
		}
		c.dir = d
	}
	return c
}

// warn reports a failed cache write.
func (c cache) warn(msg string, err error) {
	if c.log != nil {
		c.log.Warn("module: kernel cache: "+msg, "dir", c.dir, "err", err)
	}
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
	if o.toolkit != nil {
		put("toolkit headers " + o.toolkit.sum)
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

// get returns the entry for key, or false for a miss, a disabled cache, a
// directory not trusted (see dirTrusted), or an entry that is unreadable,
// not trusted, truncated, corrupt or for another key. An entry not trusted
// is reported to the logger (put reports the directory).
func (c cache) get(key string) (*compiled, bool) {
	if c.dir == "" || c.dirTrusted() != nil {
		return nil, false
	}
	path := c.path(key)
	data, err := readEntry(path)
	if err != nil {
		var u untrustedError
		if errors.As(err, &u) {
			c.warn("entry not trusted, compiling instead", err)
		}
		return nil, false
	}
	e, ok := decodeEntry(data, key)
	if ok {
		// A hit renews the entry: eviction takes the least recently used.
		now := time.Now()
		os.Chtimes(path, now, now)
	}
	return e, ok
}

// errMiss is readEntry's error for an entry that is absent or not one.
var errMiss = errors.New("module: kernel cache: no entry")

// untrustedError is readEntry's error for an entry that another user can
// have written (see owned).
type untrustedError struct{ err error }

func (e untrustedError) Error() string { return "not trusted: " + e.err.Error() }
func (e untrustedError) Unwrap() error { return e.err }

// readEntry reads the entry file at path. Only a regular file is read: the
// file is opened without following a symbolic link (the cache only ever
// writes regular files) and without waiting on a named pipe or a device,
// then refused unless it is a regular file, so that a FIFO at an entry's
// path is a miss rather than a read that never returns. The open file must
// belong to the current user and be writable by no one else (see owned),
// checked on the file opened (fstat), so that it cannot be swapped after
// the check: otherwise the error is an untrustedError. A file whose size is
// not the one its header announces is a miss without being read whole.
// Every other miss is errMiss.
func readEntry(path string) ([]byte, error) {
	f, err := openEntry(path)
	if err != nil {
		return nil, errMiss
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errMiss
	}
	if err := owned(fi); err != nil {
		return nil, untrustedError{err}
	}
	if fi.Size() < cacheHeader {
		return nil, errMiss
	}
	var hdr [cacheHeader]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil || !bytes.Equal(hdr[:16], cacheMagic) {
		return nil, errMiss
	}
	if n := binary.LittleEndian.Uint64(hdr[16+sha256.Size:]); n != uint64(fi.Size()-cacheHeader) {
		return nil, errMiss
	}
	data := make([]byte, fi.Size())
	copy(data, hdr[:])
	if _, err := io.ReadFull(f, data[cacheHeader:]); err != nil {
		return nil, errMiss
	}
	return data, nil
}

// dirTrusted returns nil when the cache directory exists, is a directory,
// belongs to the current user and is writable by no one else (see owned);
// otherwise it says why. A directory that does not exist yet is not
// trusted (an error wrapping fs.ErrNotExist): put creates it, 0700, and
// checks again.
func (c cache) dirTrusted() error {
	fi, err := os.Stat(c.dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", c.dir)
	}
	if err := owned(fi); err != nil {
		return fmt.Errorf("%s: %w", c.dir, err)
	}
	return nil
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
// nothing). It then evicts what is over the size cap and sweeps temporary
// files abandoned more than tmpMaxAge ago. Errors fail nothing (the cache is
// an optimisation): they go to the logger.
func (c cache) put(key string, comp *compiled) {
	if c.dir == "" {
		return
	}
	buf, err := encodeEntry(key, comp)
	if err != nil {
		c.warn("encoding an entry", err)
		return
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		c.warn("creating the directory", err)
		return
	}
	if err := c.dirTrusted(); err != nil {
		c.warn("directory not trusted, neither read nor written", err)
		return
	}
	defer c.sweep(time.Now())
	tmp, err := os.CreateTemp(c.dir, tmpPrefix+key[:min(len(key), 16)]+"-*")
	if err != nil {
		c.warn("creating an entry", err)
		return
	}
	_, werr := tmp.Write(buf)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		c.warn("writing an entry", err)
		return
	}
	if err := os.Rename(tmp.Name(), c.path(key)); err != nil {
		os.Remove(tmp.Name())
		c.warn("renaming an entry into place", err)
		return
	}
	c.evict(key)
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

// evict removes the least recently used entries (oldest modification time
// first) until the entries' sizes add up to at most the cap. The entry just
// written (keep) goes last: only when it alone is over the cap.
func (c cache) evict(keep string) {
	if c.max < 0 {
		return
	}
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		c.warn("listing the entries", err)
		return
	}
	type entry struct {
		name string
		size int64
		used time.Time
	}
	var all []entry
	var total int64
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".entry") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed by another process meanwhile
		}
		all = append(all, entry{e.Name(), fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	if total <= c.max {
		return
	}
	kept := keep + ".entry"
	sort.Slice(all, func(i, j int) bool {
		if (all[i].name == kept) != (all[j].name == kept) {
			return all[j].name == kept
		}
		return all[i].used.Before(all[j].used)
	})
	for _, e := range all {
		if total <= c.max {
			break
		}
		if err := os.Remove(filepath.Join(c.dir, e.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.warn("evicting an entry", err)
			continue
		}
		total -= e.size
		if c.log != nil {
			c.log.Debug("module: kernel cache: evicted", "dir", c.dir, "entry", e.name, "bytes", e.size)
		}
	}
}
