package loader

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Locate returns the file Open(k) would load, found without loading
// anything: no dlopen, no program run. It walks Candidates(k) in Open's
// order and, for each, does what the system loader would do: a path is
// taken when it passes Open's file check; a bare name is looked up as
// ld.so looks it up (the directories of LD_LIBRARY_PATH, then
// /etc/ld.so.cache, then the system's default directories). The path it
// returns has its symbolic links resolved.
//
// ok is false when Locate cannot tell without loading: a bare name that
// /etc/ld.so.cache maps to more than one file (hardware-capability
// variants), a cache it cannot read, an LD_LIBRARY_PATH entry with $ORIGIN
// or the like, or no candidate found at all (Open then fails, with its
// *LibraryError). A caller keys something on the file (a compile cache
// does: see FileIdentity) and opens the library itself when ok is false.
//
// What Locate cannot see: a library of the same soname already loaded into
// the process by someone else, and LD_PRELOAD. Open may then load another
// file than the one Locate named; a caller must use Locate only for what
// stays correct in that case (naming a cache entry, never calling into the
// file).
//
// The Python environments are searched only when no candidate before the
// wheels' is found, so that Locate costs a few file checks where a CUDA
// toolkit or the system's libraries have the library.
func Locate(k Kind) (path string, ok bool) {
	path, found, sure := locate(k)
	return path, found && sure
}

// Absent reports whether Locate is sure that Open(k) finds no file: every
// candidate looked up, none there (an override naming a file that does not
// exist, say). A caller that falls back to something else when the library
// is missing may then key on that fallback without opening anything.
func Absent(k Kind) bool {
	_, found, sure := locate(k)
	return !found && sure
}

// locate is Locate's walk: found with the path, or not found; sure false
// when a candidate could not be told without loading.
func locate(k Kind) (path string, found, sure bool) {
	sys, more := systemCandidates(k)
	tried := map[string]bool{}
	cache := &ldCacheFile{path: ldCachePath}
	for _, c := range sys.list {
		tried[c] = true
		p, found, sure := locateOne(c, cache)
		if !sure {
			return "", false, false
		}
		if found {
			return p, true, true
		}
	}
	if !more {
		return "", false, true
	}
	var wheels candidateList
	wheelCandidates(&wheels, k)
	for _, c := range wheels.list {
		if tried[c] {
			continue
		}
		p, found, sure := locateOne(c, cache)
		if !sure {
			return "", false, false
		}
		if found {
			return p, true, true
		}
	}
	return "", false, true
}

// locateOne locates one candidate of Candidates: found when it names a
// loadable file (returned with symbolic links resolved), sure false when
// the answer depends on what only the system loader knows.
func locateOne(c string, cache *ldCacheFile) (path string, found, sure bool) {
	if strings.Contains(c, "/") {
		if checkFile(c) != nil {
			return "", false, true
		}
		return resolved(c), true, true
	}
	return locateSoname(c, os.Getenv(libraryPathEnv), cache, defaultLibDirs())
}

// ldCacheFile is the loader cache, read on first use by one Locate.
type ldCacheFile struct {
	path string
	read bool
	data []byte
	err  error
}

// load returns the cache's bytes, reading the file the first time.
func (f *ldCacheFile) load() ([]byte, error) {
	if !f.read {
		f.read = true
		f.data, f.err = os.ReadFile(f.path)
	}
	return f.data, f.err
}

// ldCachePath is the system loader's cache of sonames.
const ldCachePath = "/etc/ld.so.cache"

// locateSoname finds the file ld.so opens for the bare name: the first
// loadable file of that name in the directories of search (LD_LIBRARY_PATH),
// else the one the loader cache maps it to, else the first in dirs (the
// default directories).
func locateSoname(name, search string, cache *ldCacheFile, dirs []string) (path string, found, sure bool) {
	if search != "" {
		for _, dir := range strings.Split(strings.ReplaceAll(search, ";", ":"), ":") {
			if strings.Contains(dir, "$") {
				return "", false, false // expanded by the loader, not here
			}
			if dir == "" {
				dir = "."
			}
			p := filepath.Join(dir, name)
			if checkFile(p) == nil {
				return resolved(p), true, true
			}
		}
	}
	data, err := cache.load()
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return "", false, false
	default:
		paths, err := ldCacheLookup(data, name, cacheArchFlag())
		if err != nil {
			return "", false, false
		}
		var files []string
		for _, p := range paths {
			if checkFile(p) == nil {
				r := resolved(p)
				if len(files) == 0 || files[0] != r {
					files = append(files, r)
				}
			}
		}
		switch {
		case len(files) > 1:
			return "", false, false // hwcaps variants: the loader picks by CPU
		case len(files) == 1:
			return files[0], true, true
		}
	}
	for _, dir := range dirs {
		p := filepath.Join(dir, name)
		if checkFile(p) == nil {
			return resolved(p), true, true
		}
	}
	return "", false, true
}

// resolved returns path with its symbolic links resolved and made
// absolute, or path itself when that fails.
func resolved(path string) string {
	r, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path
	}
	if a, err := filepath.Abs(r); err == nil {
		return a
	}
	return r
}

// FileIdentity names the file at path as it is now: its resolved path,
// size and modification time, so that a replaced or upgraded library gets
// another name. It reads no byte of the file.
func FileIdentity(path string) (string, error) {
	r := resolved(path)
	fi, err := os.Stat(r)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file", r)
	}
	return fmt.Sprintf("%s size %d mtime %d", r, fi.Size(), fi.ModTime().UnixNano()), nil
}
