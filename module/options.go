package module

import (
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
)

// Options configures Compile. The zero value compiles for the context's
// device with NVRTC's defaults and uses the on-disk cache.
type Options struct {
	// Name is the source's file name, used in NVRTC's messages and in
	// __FILE__; default "kernel.cu".
	Name string
	// Arch is the target architecture: "sm_90" compiles to a CUBIN,
	// "compute_90" to PTX that the driver compiles when loading. Default:
	// sm_XY of the context's device; if NVRTC does not know that
	// architecture (a device newer than the toolkit), Compile produces PTX
	// for the newest virtual architecture NVRTC knows below it instead.
	Arch string
	// Std is the C++ dialect, such as "c++17" (--std=c++17); default NVRTC's.
	Std string
	// Defines are preprocessor macros: -DNAME=VALUE, or -DNAME for an empty
	// value. They are passed sorted by name.
	Defines map[string]string
	// IncludePaths are searched for #include files (-I). Files read from them
	// are not part of the cache key, unless the source reaches the
	// toolkit's headers (see NoToolkitIncludes), when every header reached
	// is: pass headers that change as Headers, or set NoCache. The CUDA
	// toolkit's own directories need not be listed.
	IncludePaths []string
	// NoToolkitIncludes turns off the toolkit's include directories. By
	// default, a source that includes a header not in Headers (say
	// <cooperative_groups.h>, <cuda_fp16.h>, <cuda/std/atomic>) is
	// compiled with ToolkitIncludePaths added after IncludePaths, and every
	// header it reaches there (through #include lines, transitively) is
	// part of the cache key by its contents, so that a toolkit upgrade
	// compiles again. A source that includes nothing looks for no toolkit.
	NoToolkitIncludes bool
	// Headers are in-memory headers, by the name the source includes them by
	// (#include "name"). They are part of the cache key.
	Headers map[string]string
	// NameExpressions are C++ names of kernels (template instances such as
	// "scale<float>") to resolve to their lowered (mangled) names; the Module
	// answers them through LoweredName, and Function accepts them as names.
	NameExpressions []string
	// LineInfo adds source line information (-lineinfo), for profilers.
	LineInfo bool
	// Debug compiles device code for debugging (-G): slow code.
	Debug bool
	// Flags are extra NVRTC options, passed as given after the others
	// ("--use_fast_math", "-maxrregcount=32", ...).
	Flags []string
	// NoCache skips the on-disk cache: no lookup, no store.
	NoCache bool
	// CacheDir is the cache directory for this compile, overriding
	// NOCGO_CUDA_CACHE_DIR and the default (see CacheDir). It is used even
	// when NOCGO_CUDA_CACHE=off.
	CacheDir string
	// CacheMaxBytes caps the cache directory's entries: a write evicts the
	// least recently used entries until they fit. 0 means
	// DefaultCacheMaxBytes; a negative value, no cap.
	CacheMaxBytes int64
	// toolkit is what Compile found for this source (findToolkit); nil
	// for none. Set only on Compile's own copy.
	toolkit *toolkitHeaders

	// Logger, when set, hears what the cache cannot do (a write that
	// failed, a directory or an entry it does not trust and why: see
	// CacheDir; at Warn) and what it evicts (at Debug). A failed cache
	// write never fails a compile.
	Logger *slog.Logger
}

const defaultName = "kernel.cu"

func (o *Options) name() string {
	if o.Name == "" {
		return defaultName
	}
	return o.Name
}

// flags returns the NVRTC options for arch, in a fixed order: the
// normalised form that the cache key hashes.
func (o *Options) flags(arch string) []string {
	f := []string{"--gpu-architecture=" + arch}
	if o.Std != "" {
		f = append(f, "--std="+o.Std)
	}
	for _, k := range sortedKeys(o.Defines) {
		if v := o.Defines[k]; v != "" {
			f = append(f, "-D"+k+"="+v)
		} else {
			f = append(f, "-D"+k)
		}
	}
	for _, p := range o.IncludePaths {
		f = append(f, "-I"+p)
	}
	if o.toolkit != nil {
		for _, p := range o.toolkit.dirs {
			f = append(f, "-I"+p)
		}
	}
	if o.LineInfo {
		f = append(f, "-lineinfo")
	}
	if o.Debug {
		f = append(f, "-G")
	}
	return append(f, o.Flags...)
}

// headers returns the in-memory headers as NVRTC takes them: contents and
// include names, in sorted name order.
func (o *Options) headers() (contents, names []string) {
	for _, k := range sortedKeys(o.Headers) {
		names = append(names, k)
		contents = append(contents, o.Headers[k])
	}
	return contents, names
}

// headerContents returns the in-memory headers' contents, in sorted name
// order.
func (o *Options) headerContents() []string {
	contents, _ := o.headers()
	return contents
}

// given returns o as the caller gave it, without what Compile added.
func (o Options) given() Options {
	o.toolkit = nil
	return o
}

// check refuses options NVRTC would misread.
func (o *Options) check() error {
	if o.Arch != "" && !strings.HasPrefix(o.Arch, "sm_") && !strings.HasPrefix(o.Arch, "compute_") {
		return fmt.Errorf("Arch %q: want sm_XY (CUBIN) or compute_XY (PTX)", o.Arch)
	}
	for k := range o.Defines {
		if k == "" || strings.ContainsAny(k, " \t\n=") {
			return fmt.Errorf("bad macro name %q in Defines", k)
		}
	}
	for k := range o.Headers {
		if k == "" {
			return errors.New("empty include name in Headers")
		}
	}
	for _, e := range o.NameExpressions {
		if e == "" {
			return errors.New("empty expression in NameExpressions")
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// binaryArch reports whether arch makes NVRTC produce a CUBIN.
func binaryArch(arch string) bool { return strings.HasPrefix(arch, "sm_") }
