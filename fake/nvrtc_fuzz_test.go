package fake

import (
	"errors"
	"testing"
	"time"

	"github.com/nocgo/cuda/driver/backend"
)

// FuzzPreprocess compiles arbitrary source, with one header h.h of
// arbitrary text, on the fake NVRTC: the compile never panics, ends within
// a bound (2 s an input), and either succeeds or fails with an
// *NVRTCError (NVRTC_ERROR_INVALID_INPUT at CreateProgram for text with a
// NUL byte, NVRTC_ERROR_COMPILATION with a log otherwise). Hostile seeds
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
		p, err := nv.CreateProgram(src, "fuzz.cu", []string{header}, []string{"h.h"})
		if err != nil {
			if compileCode(err) != backend.NVRTCErrorInvalidInput || !hasNUL(src+header) {
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
