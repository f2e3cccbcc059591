package module

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// toolkitHeaders is what Compile adds for a source that includes headers
// it does not hold in Options.Headers: the toolkit's include directories
// (ToolkitIncludePaths), and a fingerprint of every header the source
// reaches in them, which the cache key hashes.
type toolkitHeaders struct {
	dirs []string
	sum  string // hex SHA-256 of the directories and the headers reached
}

// maxToolkitHeaders bounds the headers one fingerprint reads: far more
// than CUDA's own (cooperative_groups.h with libcu++ reaches a few hundred).
const maxToolkitHeaders = 20000

// findToolkit returns the toolkit headers of a compile of src with o: nil
// when o turns them off, when the source and its in-memory headers include
// nothing beyond Options.Headers, or when no toolkit is installed.
func findToolkit(src string, o *Options) *toolkitHeaders {
	if o.NoToolkitIncludes {
		return nil
	}
	var wanted []include
	for _, text := range append([]string{src}, o.headerContents()...) {
		for _, inc := range includesOf(text) {
			if _, held := o.Headers[inc.name]; !held {
				wanted = append(wanted, inc)
			}
		}
	}
	if len(wanted) == 0 {
		return nil
	}
	dirs := ToolkitIncludePaths()
	if len(dirs) == 0 {
		return nil
	}
	return &toolkitHeaders{dirs: dirs, sum: fingerprint(o.IncludePaths, dirs, wanted)}
}

// include is one #include directive: the name, and whether it was quoted
// ("name", searched beside the including file first) or not (<name>).
type include struct {
	name   string
	quoted bool
}

var includeLine = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]`)

// includesOf returns the #include directives of text, in order. Every
// directive counts, also those in a branch the preprocessor skips or in a
// comment: the fingerprint may read a header more than the compile does,
// never fewer. An include through a macro (#include MACRO) is not seen.
func includesOf(text string) []include {
	var out []include
	for _, m := range includeLine.FindAllStringSubmatch(text, -1) {
		out = append(out, include{name: m[2], quoted: m[1] == `"`})
	}
	return out
}

// headerInfo is what the fingerprint keeps of one header file, valid
// while the file keeps its size and modification time.
type headerInfo struct {
	size     int64
	mtime    time.Time
	sum      [sha256.Size]byte
	includes []include
}

// headerInfos caches headerInfo by path for the life of the process, so
// that each compile after the first stats the headers instead of reading
// them.
var headerInfos sync.Map // string -> *headerInfo

// readHeader returns the headerInfo of the file at path, or false when it
// is not a readable regular file.
func readHeader(path string) (*headerInfo, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	if v, ok := headerInfos.Load(path); ok {
		if h := v.(*headerInfo); h.size == fi.Size() && h.mtime.Equal(fi.ModTime()) {
			return h, true
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	h := &headerInfo{size: fi.Size(), mtime: fi.ModTime(), sum: sha256.Sum256(data), includes: includesOf(string(data))}
	if int64(len(data)) != fi.Size() {
		h.size = -1 // changed while read: never reused
	}
	headerInfos.Store(path, h)
	return h, true
}

// fingerprint hashes dirs and, in the order the includes reach them, the
// path and contents of every header found from wanted and the headers they
// include, searched as NVRTC searches: beside the including header for a
// quoted include, then the user's include paths (user), then dirs; a name
// found nowhere is hashed as missing (a header installed later changes the
// key). A user's header that includes the toolkit's is followed too, so
// the toolkit headers it reaches are in the key.
func fingerprint(user, dirs []string, wanted []include) string {
	h := sha256.New()
	put := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	for _, d := range dirs {
		put("dir " + d)
	}
	type pending struct {
		inc  include
		from string // the including file's directory; "" for the source
	}
	queue := make([]pending, 0, len(wanted))
	for _, w := range wanted {
		queue = append(queue, pending{inc: w})
	}
	seen, missing := map[string]bool{}, map[string]bool{}
	for len(queue) > 0 && len(seen) < maxToolkitHeaders {
		p := queue[0]
		queue = queue[1:]
		search := append(append([]string(nil), user...), dirs...)
		if p.inc.quoted && p.from != "" {
			search = append([]string{p.from}, search...)
		}
		path, info := "", (*headerInfo)(nil)
		for _, d := range search {
			if i, ok := readHeader(filepath.Join(d, p.inc.name)); ok {
				path, info = filepath.Join(d, p.inc.name), i
				break
			}
		}
		if info == nil {
			if !missing[p.inc.name] {
				missing[p.inc.name] = true
				put("missing " + p.inc.name)
			}
			continue
		}
		if seen[path] {
			continue
		}
		seen[path] = true
		put("header " + path)
		h.Write(info.sum[:])
		for _, inc := range info.includes {
			queue = append(queue, pending{inc: inc, from: filepath.Dir(path)})
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
