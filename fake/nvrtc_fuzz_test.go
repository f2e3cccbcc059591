package fake

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/cpp"
)

// FuzzPreprocess compiles arbitrary source, with one header h.h of
// arbitrary text, on the fake NVRTC: the compile never panics, ends within
// a bound (2 s an input), and either succeeds or fails with an
// *NVRTCError (NVRTC_ERROR_INVALID_INPUT at CreateProgram for text with a
// NUL byte, NVRTC_ERROR_COMPILATION with a log otherwise); the
// preprocessor allocates at most 20 times its input (and a fixed 64 KiB)
// in all. Hostile seeds
// are in testdata/fuzz/FuzzPreprocess.
func FuzzPreprocess(f *testing.F) {
	f.Add("#include \"h.h\"\n#if defined(H) && (A || B) && !C\nint x;\n#endif\n", "#define H 1\n")
	f.Add("#include \"h.h\"\n", "#include \"h.h\"\n#include \"h.h\"\n")
	f.Add("#if 1 ? 2 : 1/0\n#elif\n#else\n#endif\n", "#pragma once\n#include \"h.h\"\n")
	f.Add("#define X (X + 1)\n#if X << 63 >> -1 == 0x8000000000000000u\n#error x\n#endif\n", "")
	f.Add(scaleSrc, "template <typename T>\n__global__ void k(T* p) {}\n")
	b := newBackend(PretendNVRTC(), Kernel("segment_scale", func(t Thread, out, in Ptr, n int32) {}))
	nv, err := b.NVRTC()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src, header string) {
		// The preprocessor's memory is bounded by its input, whatever it is.
		u := cpp.Unit{Name: "fuzz.cu", Source: src, HeaderNames: []string{"h.h"}, Headers: []string{header},
			Macros: map[string]string{"A": "1", "B": "0"}}
		if n, limit := allocatedBy(func() { cpp.Preprocess(u) }), preprocessAllocLimit(len(src)+len(header)); n > limit {
			t.Fatalf("the preprocessor allocated %d bytes for %d bytes of input: more than %d", n, len(src)+len(header), limit)
		}
		p, err := nv.CreateProgram(src, "fuzz.cu", []string{header}, []string{"h.h"})
		if err != nil {
			if compileCode(err) != backend.NVRTCErrorInvalidInput || !strings.ContainsRune(src+header, 0) {
				t.Fatalf("CreateProgram: %v", err)
			}
			return
		}
		defer nv.DestroyProgram(p)
		done := make(chan error, 1)
		go func() { done <- nv.Compile(p, []string{"-DA=1", "-DB=0"}) }()
		select {
		case err = <-done:
		case <-time.After(2 * time.Second):
			t.Fatalf("the compile did not end within 2 s")
		}
		log, lerr := nv.ProgramLog(p)
		if lerr != nil {
			t.Fatal(lerr)
		}
		var ne *backend.NVRTCError
		switch {
		case err == nil:
			if _, err := nv.PTX(p); err != nil {
				t.Fatalf("compiled, but no PTX: %v", err)
			}
		case !errors.As(err, &ne) || ne.Code != backend.NVRTCErrorCompilation:
			t.Fatalf("Compile: %v", err)
		case log == "":
			t.Fatalf("a failed compile with no log")
		}
	})
}

// preprocessAllocLimit is the most cpp.Preprocess may allocate in all for
// size bytes of input: 20 times it, and 64 KiB for its fixed costs (and
// what the fake's other goroutines allocate meanwhile).
func preprocessAllocLimit(size int) uint64 { return 20*uint64(size) + 64<<10 }

// allocatedBy returns the bytes allocated (in all, not only kept) while f
// runs.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
