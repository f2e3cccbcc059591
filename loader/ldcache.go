package loader

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
)

// The system loader's cache (/etc/ld.so.cache, written by ldconfig), as
// glibc 2.32 and later write it and as older glibc wrote it after the
// old-format table ("compat" format): a header, an array of entries, and a
// string table. Every integer is in the machine's byte order.
//
//	header (48 bytes): "glibc-ld.so.cache" "1.1", nlibs uint32,
//	    len_strings uint32, flags uint8, 3 bytes, extension_offset uint32,
//	    3 × uint32 unused
//	entry (24 bytes): flags int32, key uint32, value uint32,
//	    osversion uint32, hwcap uint64
//
// key and value are offsets from the header's start of the soname and the
// path, NUL-terminated. In the compat format an old table comes first:
// "ld.so-1.7.0" (12 bytes with the NUL), nlibs uint32, nlibs × 12-byte
// entries, then the new header aligned to 8 bytes.
const (
	ldCacheMagicNew = "glibc-ld.so.cache1.1"
	ldCacheMagicOld = "ld.so-1.7.0\x00"
	ldCacheHeader   = 48
	ldCacheEntry    = 24
)

// errLDCache is a loader cache that cannot be read as one.
var errLDCache = errors.New("loader: ld.so.cache: unrecognised format")

// Entry flags: the type (low byte) and the architecture (second byte).
const (
	ldFlagTypeMask = 0x00ff
	ldFlagArchMask = 0xff00
	ldFlagELFLibc6 = 0x0003
	ldFlagX8664    = 0x0300
	ldFlagAArch64  = 0x0a00
)

// cacheArchFlag returns the entry flags of a library for this program:
// ELF, glibc, and this machine's 64-bit architecture; 0 on others, whose
// entries Locate does not read.
func cacheArchFlag() int32 {
	switch runtime.GOARCH {
	case "amd64":
		return ldFlagELFLibc6 | ldFlagX8664
	case "arm64":
		return ldFlagELFLibc6 | ldFlagAArch64
	}
	return 0
}

// defaultLibDirs returns the directories the system loader searches after
// its cache, as Debian, Ubuntu, Fedora and their relatives configure glibc.
func defaultLibDirs() []string {
	var triple string
	switch runtime.GOARCH {
	case "amd64":
		triple = "x86_64-linux-gnu"
	case "arm64":
		triple = "aarch64-linux-gnu"
	default:
		return nil
	}
	return []string{"/lib/" + triple, "/usr/lib/" + triple, "/lib64", "/usr/lib64", "/lib", "/usr/lib"}
}

// ldCacheLookup returns, in the cache's order, the paths the loader cache
// data maps name to for a library with flags want. A cache it cannot read
// is errLDCache; want 0 finds nothing.
func ldCacheLookup(data []byte, name string, want int32) ([]string, error) {
	base := 0
	if bytes.HasPrefix(data, []byte(ldCacheMagicOld)) {
		if len(data) < 16 {
			return nil, errLDCache
		}
		n := uint64(binary.NativeEndian.Uint32(data[12:]))
		end := 16 + n*12
		end = (end + 7) &^ 7
		if end > uint64(len(data)) {
			return nil, errLDCache
		}
		base = int(end)
	}
	h := data[base:]
	if len(h) < ldCacheHeader || !bytes.HasPrefix(h, []byte(ldCacheMagicNew)) {
		return nil, errLDCache
	}
	n := uint64(binary.NativeEndian.Uint32(h[20:]))
	if ldCacheHeader+n*ldCacheEntry > uint64(len(h)) {
		return nil, errLDCache
	}
	str := func(off uint32) ([]byte, bool) {
		if uint64(off) >= uint64(len(h)) {
			return nil, false
		}
		s := h[off:]
		i := bytes.IndexByte(s, 0)
		if i < 0 {
			return nil, false
		}
		return s[:i], true
	}
	if want == 0 {
		return nil, nil
	}
	var out []string
	for i := uint64(0); i < n; i++ {
		e := h[ldCacheHeader+i*ldCacheEntry:]
		flags := int32(binary.NativeEndian.Uint32(e[0:]))
		if flags&ldFlagTypeMask != want&ldFlagTypeMask || flags&ldFlagArchMask != want&ldFlagArchMask {
			continue
		}
		key, ok := str(binary.NativeEndian.Uint32(e[4:]))
		if !ok {
			return nil, errLDCache
		}
		if string(key) != name { // compared without a copy
			continue
		}
		val, ok := str(binary.NativeEndian.Uint32(e[8:]))
		if !ok || len(val) == 0 {
			return nil, errLDCache
		}
		out = append(out, string(val))
	}
	return out, nil
}
