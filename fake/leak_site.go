package fake

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
)

// callSiteDepth is how many frames a callSite keeps: enough to climb out
// of the library from the fake's entry point (user packages, the lifetime
// rule, the seam) in every creation path.
const callSiteDepth = 32

// callSite is the Go call stack that created an object, captured cheaply
// (program counters only, no allocation) and resolved to a file and line
// only when a leak report names it.
type callSite struct {
	pcs [callSiteDepth]uintptr
	n   int
}

// here captures the call stack of the fake entry point that calls it.
func here() callSite {
	var s callSite
	s.n = runtime.Callers(2, s.pcs[:])
	return s
}

// modulePath is the import path of this module.
const modulePath = "github.com/nocgo/cuda"

// libraryDirs are the module's top folders whose frames are the library at
// work, never the site that made an object; the others (conformance,
// cmd, bench, examples) and every _test.go file are users.
var libraryDirs = map[string]bool{
	"driver": true, "stream": true, "memory": true, "module": true, "graph": true,
	"nccl": true, "fake": true, "internal": true, "loader": true, "gpu": true,
	"cublas": true, "curand": true, "cufft": true, "cudatest": true,
}

// userFrame reports whether f is the first frame worth naming: code that
// is neither this library nor Go's standard library (testing.tRunner,
// runtime.goexit).
func userFrame(f runtime.Frame) bool {
	fn := f.Function
	if fn == "" {
		return false
	}
	if strings.HasSuffix(f.File, "_test.go") {
		return true
	}
	if rest, ok := strings.CutPrefix(fn, modulePath+"/"); ok {
		top, _, _ := strings.Cut(rest, "/")
		top, _, _ = strings.Cut(top, ".")
		top = strings.TrimSuffix(top, "_test")
		return !libraryDirs[top]
	}
	if strings.HasPrefix(fn, "main.") {
		return true
	}
	first, _, _ := strings.Cut(fn, "/")
	// A standard-library path has no dot in its first element.
	return strings.Contains(first, ".") && !strings.HasPrefix(fn, modulePath+".")
}

// String names the first frame of the stack outside this library and Go's
// standard library, as "foo_test.go:42 (TestX)"; "" when there is none
// (an object made by the library for itself).
func (s *callSite) String() string {
	if s.n == 0 {
		return ""
	}
	frames := runtime.CallersFrames(s.pcs[:s.n])
	for {
		f, more := frames.Next()
		if userFrame(f) {
			return fmt.Sprintf("%s:%d (%s)", filepath.Base(f.File), f.Line, funcName(f.Function))
		}
		if !more {
			return ""
		}
	}
}

// funcName drops the import path and package from a frame's function:
// "github.com/x/y_test.TestX.func1" is "TestX.func1".
func funcName(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		fn = fn[i+1:]
	}
	if i := strings.Index(fn, "."); i >= 0 {
		fn = fn[i+1:]
	}
	return fn
}
