package fake

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compileWithin compiles src with the given headers on a fresh program and
// fails the test when the compile takes longer than limit (the compile goes
// on in the background then: it is a test failure either way).
func compileWithin(t *testing.T, b *fakeBackend, limit time.Duration, src string, headers, names []string, opts ...string) (string, error) {
	t.Helper()
	nv, err := b.NVRTC()
	require.NoError(t, err)
	p, err := nv.CreateProgram(src, "prog.cu", headers, names)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- nv.Compile(p, opts) }()
	select {
	case cerr := <-done:
		log, err := nv.ProgramLog(p)
		require.NoError(t, err)
		require.NoError(t, nv.DestroyProgram(p))
		return log, cerr
	case <-time.After(limit):
		t.Fatalf("the compile did not finish within %v", limit)
		return "", nil
	}
}

// TestNVRTCIncludeRecursion: a header that includes itself (twice: the work
// doubled at each level) ends with a nesting error, as a real compiler's,
// and a compile that fails.
func TestNVRTCIncludeRecursion(t *testing.T) {
	b := newBackend(PretendNVRTC())
	self := "#include \"self.h\"\n#include \"self.h\"\n"
	log, err := compileWithin(t, b, 5*time.Second, "#include \"self.h\"\n", []string{self}, []string{"self.h"})
	assert.Equal(t, backend.NVRTCErrorCompilation, compileCode(err))
	assert.Contains(t, log, `self.h(1): catastrophic error: #include nested too deeply (more than 200 levels)`)
	assert.Equal(t, 1, strings.Count(log, "catastrophic error:"), "one error, then the compile stops: %s", log)

	// Two headers including each other.
	log, err = compileWithin(t, b, 5*time.Second, "#include \"a.h\"\n",
		[]string{"#include \"b.h\"\n", "#include \"a.h\"\n#include \"a.h\"\n"}, []string{"a.h", "b.h"})
	assert.Equal(t, backend.NVRTCErrorCompilation, compileCode(err))
	assert.Contains(t, log, "#include nested too deeply")

	// Include guards and #pragma once stop the recursion as in a real
	// compiler: these compile.
	guarded := "#ifndef SELF_H\n#define SELF_H\n#include \"self.h\"\n#include \"self.h\"\n#endif\n"
	log, err = compileWithin(t, b, 5*time.Second, "#include \"self.h\"\n#include \"self.h\"\n", []string{guarded}, []string{"self.h"})
	assert.NoError(t, err, log)
	once := "#pragma once\n#include \"self.h\"\n#include \"self.h\"\n"
	log, err = compileWithin(t, b, 5*time.Second, "#include \"self.h\"\n", []string{once}, []string{"self.h"})
	assert.NoError(t, err, log)
}

// TestNVRTCIncludeWorkBounded: headers without recursion that include the
// next one twice (2^40 inclusions) stop at the fake's bound on the work of
// one compile.
func TestNVRTCIncludeWorkBounded(t *testing.T) {
	b := newBackend(PretendNVRTC())
	var headers, names []string
	for i := 0; i < 40; i++ {
		next := fmt.Sprintf("h%d.h", i+1)
		headers = append(headers, fmt.Sprintf("#define H%d 1\n#include \"%s\"\n#include \"%s\"\n", i, next, next))
		names = append(names, fmt.Sprintf("h%d.h", i))
	}
	headers = append(headers, "int x;\n")
	names = append(names, "h40.h")
	log, err := compileWithin(t, b, 5*time.Second, "#include \"h0.h\"\n", headers, names)
	assert.Equal(t, backend.NVRTCErrorCompilation, compileCode(err))
	assert.Contains(t, log, "catastrophic error: ")
	assert.Contains(t, log, "exceeds the fake NVRTC's limit")
}

// TestNVRTCIfExpressions: #if evaluates C preprocessor expressions with C's
// precedence and arithmetic.
func TestNVRTCIfExpressions(t *testing.T) {
	b := newBackend(PretendNVRTC())
	defs := []string{"-DA=1", "-DB=0", "-DC=0", "-DN=4", "-DM=N+1", "-DE=", "-DNEG=-1", "-DPAREN=(A||B)"}
	taken := map[string]bool{
		"(A || B) && C":                         false,
		"A || B && C":                           true,
		"(A || B) && !C":                        true,
		"PAREN && C":                            false,
		"1 + 2 * 3 == 7":                        true,
		"(1 + 2) * 3 == 9":                      true,
		"10 - 2 - 3 == 5":                       true,
		"0x10 == 16 && 010 == 8":                true,
		"0X1f == 31 && 0b101 == 5":              true,
		"10u == 10 && 0x10UL == 16":             true,
		"1LL && 2ull && 3lu && 4Ul":             true,
		"-1 < 0":                                true,
		"-1 < 0u":                               false, // -1 converts to the largest unsigned value
		"NEG > 0u":                              true,
		"18446744073709551615 == -1":            true, // too large for a signed value: unsigned
		"~0 == -1":                              true,
		"1 << 4 == 16 && 256 >> 4 == 16":        true,
		"-16 >> 2 == -4":                        true,
		"5 / 2 == 2 && 5 % 2 == 1":              true,
		"-5 / 2 == -2 && -5 % 2 == -1":          true,
		"(3 & 5) == 1 && (3 | 5) == 7":          true,
		"(3 ^ 5) == 6":                          true,
		"3 & 5 == 5":                            true, // == binds tighter than &
		"1 ? 2 : 0":                             true,
		"0 ? 1 : 0":                             false,
		"1 ? 0 : 1":                             false,
		"0 ? 1 : 1 ? 0 : 1":                     false,
		"defined A && defined(B) && !defined D": true,
		"defined ( N ) && defined M":            true,
		"UNDEFINED_X":                           false,
		"UNDEFINED_X == 0":                      true,
		"!0 && !!1":                             true,
		"N > 3":                                 true,
		"N > 4":                                 false,
		"M == 5":                                true,
		"M * 2 == 6":                            true, // N+1*2: macros expand as text
		"1'000 == 1000 && 0x1'0 == 16":          true,
		"0 && (1 / 0)":                          false,
		"1 || 1 / 0":                            true,
		"1 ? 1 : 1 / 0":                         true,
		"1 >= 1 && 1 <= 1 && 2 > 1 && 1 != 2":   true,
		"+1 == 1 && - - 1 == 1":                 true,
		"'A' == 65 && '\\n' == 10":              true,
		"true && !false":                        true,
		"(2 || 0) == 1":                         true,
		"(0, 1)":                                true,
	}
	for expr, want := range taken {
		t.Run(expr, func(t *testing.T) {
			src := "#if " + expr + "\n#error taken\n#else\n#error not taken\n#endif\n"
			log, err := compileWithin(t, b, 5*time.Second, src, nil, nil, defs...)
			require.Equal(t, backend.NVRTCErrorCompilation, compileCode(err), log)
			if want {
				assert.Contains(t, log, "#error directive: taken\n", log)
			} else {
				assert.Contains(t, log, "#error directive: not taken\n", log)
			}
			assert.Contains(t, log, "\n\n1 error detected", "the only error is the #error: %s", log)
		})
	}
}

// TestNVRTCIfErrors: what #if cannot evaluate is an error in the log, never
// a guess.
func TestNVRTCIfErrors(t *testing.T) {
	b := newBackend(PretendNVRTC())
	cases := map[string]string{
		"1 / 0":                "division by zero in #if",
		"1 % 0":                "division by zero in #if",
		"(1":                   `expected a ")"`,
		"1 +":                  "expected an expression",
		"":                     "expected an expression",
		"E":                    "expected an expression",
		"1 2":                  "extra text after expression",
		"1.5":                  "floating constant in #if",
		"08":                   `invalid digit "8" in octal constant`,
		"99999999999999999999": "integer constant is too large",
		"1 ? 2":                `expected a ":"`,
		"F(2)":                 "function-like macro F in #if is not supported",
		"__has_include(<x.h>)": "__has_include in #if is not supported",
		"\"str\"":              "string literal in #if",
		"1 = 1":                `token "=" is not valid in #if`,
		"defined":              "defined without a macro name",
		"defined(A":            `expected a ")" after defined(A`,
		"--1":                  `token "--" is not valid in #if`,
		"1 $ 2":                `token "$" is not valid in #if`,
		"'ab'":                 "multi-character constant in #if is not supported",
		"'a":                   "unterminated character constant",
		"LOOP_A":               "",
	}
	for expr, want := range cases {
		t.Run(expr, func(t *testing.T) {
			src := "#define F(x) x\n#define LOOP_A LOOP_B\n#define LOOP_B LOOP_A\n#if " + expr + "\n#endif\n"
			log, err := compileWithin(t, b, 5*time.Second, src, nil, nil, "-DA=1", "-DE=")
			if want == "" {
				// A macro that expands to itself stops expanding: 0.
				assert.NoError(t, err, log)
				return
			}
			assert.Equal(t, backend.NVRTCErrorCompilation, compileCode(err), log)
			assert.Contains(t, log, "prog.cu(4): error: "+want, log)
		})
	}

	// Skipped groups are not evaluated.
	log, err := compileWithin(t, b, 5*time.Second, "#if 0\n#if 1/0\n#endif\n#elif 1\n#else\n#if 1/0\n#endif\n#endif\n#if 1\n#elif 1/0\n#endif\n", nil, nil)
	assert.NoError(t, err, log)
	// A continued line is one directive.
	log, err = compileWithin(t, b, 5*time.Second, "#if 1 && \\\n 0\n#error taken\n#endif\n#define X \\\n  2\n#if X != 2\n#error X\n#endif\n", nil, nil)
	assert.NoError(t, err, log)
	// #elif after #else.
	log, err = compileWithin(t, b, 5*time.Second, "#if 0\n#else\n#elif 1\n#endif\n", nil, nil)
	assert.Equal(t, backend.NVRTCErrorCompilation, compileCode(err), log)
	assert.Contains(t, log, "prog.cu(3): error: #elif after #else")
}

// TestNVRTCRefusesNUL: strings with a NUL byte cannot cross NVRTC's C API,
// and the real backend (internal/libcuda) refuses them before the call: the
// fake refuses them with the same codes.
func TestNVRTCRefusesNUL(t *testing.T) {
	b := bound(t, append(kernels(), PretendNVRTC())...)
	nv, err := b.NVRTC()
	require.NoError(t, err)
	for name, c := range map[string]struct {
		src, name     string
		headers, incs []string
	}{
		"source":      {src: scaleSrc + "\x00int x;"},
		"name":        {src: scaleSrc, name: "a\x00b.cu"},
		"header":      {src: scaleSrc, headers: []string{"int\x00x;"}, incs: []string{"h.h"}},
		"header name": {src: scaleSrc, headers: []string{"int x;"}, incs: []string{"h\x00.h"}},
	} {
		_, err := nv.CreateProgram(c.src, c.name, c.headers, c.incs)
		assert.Equal(t, backend.NVRTCErrorInvalidInput, compileCode(err), name)
	}

	src := "template <typename T>\n__global__ void scale(T* p, T f) {}\n"
	p, err := nv.CreateProgram(src, "x.cu", nil, nil)
	require.NoError(t, err)
	defer nv.DestroyProgram(p)
	assert.Equal(t, backend.NVRTCErrorInvalidInput, compileCode(nv.AddNameExpression(p, "scale<float>\x00")))
	assert.Equal(t, backend.NVRTCErrorInvalidOption, compileCode(nv.Compile(p, []string{"-arch=sm_90\x00"})))
	_, err = nv.LoweredName(p, "scale\x00")
	assert.Equal(t, backend.NVRTCErrorNameExprNotValid, compileCode(err))
}

// TestNVRTCLargeSourceLinear: finding the kernels of a large source takes
// time in proportion to its size, whatever its shape (each __global__ used
// to rescan the rest of the source).
func TestNVRTCLargeSourceLinear(t *testing.T) {
	for name, src := range map[string]string{
		"no parameter list":  strings.Repeat("__global__ ", 100000) + "(",
		"unclosed lists":     strings.Repeat("__global__ void f(", 60000),
		"nested lists":       strings.Repeat("__global__ void f(int a, ", 40000) + strings.Repeat(")", 40000),
		"long names":         strings.Repeat("__global__ "+strings.Repeat("x", 1000), 1000) + "(",
		"spaces before list": strings.Repeat("__global__ f", 1000) + strings.Repeat(" ", 1<<20) + "(",
	} {
		t.Run(name, func(t *testing.T) {
			b := newBackend(PretendNVRTC()) // one that a compile still going on does not hold
			log, err := compileWithin(t, b, 10*time.Second, src, nil, nil)
			assert.Equal(t, backend.NVRTCErrorCompilation, compileCode(err), log)
		})
	}
}

// TestNVRTCIncludeFromDisk: -I reads regular files only, within the bound
// on the text of one compile.
func TestNVRTCIncludeFromDisk(t *testing.T) {
	b := newBackend(PretendNVRTC())
	log, err := compileWithin(t, b, 5*time.Second, "#include \"zero\"\n", nil, nil, "-I/dev")
	assert.Equal(t, backend.NVRTCErrorCompilation, compileCode(err), log)
	assert.Contains(t, log, `prog.cu(1): catastrophic error: cannot open source file "zero"`)

	dir := t.TempDir()
	big := "int x;" + strings.Repeat(" ", 7<<20) + "\n" // included 5 times: 35 MiB
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.h"), []byte(big), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.h"), []byte("#define OK 1\n"), 0o644))
	log, err = compileWithin(t, b, 10*time.Second, "#include \"ok.h\"\n#if !OK\n#error\n#endif\n"+strings.Repeat("#include \"big.h\"\n", 5), nil, nil, "-I"+dir)
	assert.Equal(t, backend.NVRTCErrorCompilation, compileCode(err), log)
	assert.Contains(t, log, `big.h(1): catastrophic error: the text preprocessed exceeds the fake NVRTC's limit of 33554432 bytes in one compile`)
	log, err = compileWithin(t, b, 10*time.Second, "#include \"ok.h\"\n#if !OK\n#error\n#endif\n#include \"big.h\"\n", nil, nil, "-I"+dir)
	assert.NoError(t, err, log)
}

// TestNVRTCIfNesting: deeply nested #if expressions are refused, not
// recursed into without bound.
func TestNVRTCIfNesting(t *testing.T) {
	b := newBackend(PretendNVRTC())
	for _, expr := range []string{
		strings.Repeat("(", 10000) + "1" + strings.Repeat(")", 10000),
		strings.Repeat("!", 10000) + "1",
		strings.Repeat("- ", 10000) + "1",
		strings.Repeat("1+", 100000) + "1",
	} {
		log, err := compileWithin(t, b, 5*time.Second, "#if "+expr+"\n#endif\n", nil, nil)
		assert.Equal(t, backend.NVRTCErrorCompilation, compileCode(err), log)
		assert.Contains(t, log, "prog.cu(1): error: #if expression", log)
	}
	// 200 levels are fine.
	log, err := compileWithin(t, b, 5*time.Second, "#if "+strings.Repeat("(", 200)+"1"+strings.Repeat(")", 200)+"\n#error taken\n#endif\n", nil, nil)
	assert.Equal(t, backend.NVRTCErrorCompilation, compileCode(err), log)
	assert.Contains(t, log, "#error directive: taken")
}

// A kernel with no Go body, where no libnvrtc was found: the log says that
// NVIDIA's compiler would compile it, and where it was looked for.
func TestNVRTCMissingSaysWhereItLooked(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBNVRTC", "/nonexistent/libnvrtc.so.12")
	nv, err := newBackend().NVRTC()
	require.NoError(t, err)
	h, err := nv.CreateProgram(`extern "C" __global__ void k(int* p) { *p = 1; }`, "k.cu", nil, nil)
	require.NoError(t, err)
	defer nv.DestroyProgram(h)
	require.Error(t, nv.Compile(h, nil))
	log, err := nv.ProgramLog(h)
	require.NoError(t, err)
	assert.Contains(t, log, `kernel "k" has no Go body; register one with fake.Kernel, or install NVIDIA's libnvrtc`)
	assert.Contains(t, log, "/nonexistent/libnvrtc.so.12", "where it was looked for")
}
