package fake

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libnvrtc"
)

// stubNVRTC is a compiler for the NVRTC option that needs no libnvrtc: it
// records its calls and "compiles" to fixed PTX, so that the wrapper's own
// behaviour is tested on every machine.
type stubNVRTC struct {
	mu        sync.Mutex
	next      uintptr
	live      map[uintptr]bool
	calls     []string
	failNext  string // the entry point whose next call fails
	virtual   map[uintptr]bool
	compiled  map[uintptr]bool
	exprs     map[uintptr][]string
	destroyed int
}

func newStub() *stubNVRTC {
	return &stubNVRTC{next: 0x1000, live: map[uintptr]bool{}, virtual: map[uintptr]bool{}, compiled: map[uintptr]bool{}, exprs: map[uintptr][]string{}}
}

const stubPTX = ".version 7.8\n.target sm_90\n.address_size 64\n\n.visible .entry _Z5scaleIfEvPT_f(\n\t.param .u64 p0,\n\t.param .f32 p1\n)\n{\n\tret;\n}\n"

func (s *stubNVRTC) call(op string, h uintptr) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, op)
	if s.failNext == op {
		s.failNext = ""
		return &backend.NVRTCError{Code: 11, Name: "NVRTC_ERROR_INTERNAL_ERROR", Op: op}
	}
	if h != 0 && !s.live[h] {
		panic("stub: " + op + " on a program that is not live") // what libnvrtc would crash on
	}
	return nil
}

func (s *stubNVRTC) Version() (int, int, error)         { return 12, 4, s.call("nvrtcVersion", 0) }
func (s *stubNVRTC) Implementation() string             { return "libnvrtc" }
func (s *stubNVRTC) ProgramLog(uintptr) (string, error) { return "stub log", nil }
func (s *stubNVRTC) CreateProgram(src, name string, headers, includeNames []string) (uintptr, error) {
	if err := s.call("nvrtcCreateProgram", 0); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next += 8
	s.live[s.next] = true
	return s.next, nil
}
func (s *stubNVRTC) AddNameExpression(h uintptr, expr string) error {
	if err := s.call("nvrtcAddNameExpression", h); err != nil {
		return err
	}
	s.mu.Lock()
	s.exprs[h] = append(s.exprs[h], expr)
	s.mu.Unlock()
	return nil
}
func (s *stubNVRTC) Compile(h uintptr, options []string) error {
	if err := s.call("nvrtcCompileProgram", h); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compiled[h] = true
	s.virtual[h] = len(options) > 0 && strings.Contains(options[0], "compute_")
	return nil
}
func (s *stubNVRTC) PTX(h uintptr) ([]byte, error) {
	return []byte(stubPTX), s.call("nvrtcGetPTX", h)
}
func (s *stubNVRTC) CUBIN(h uintptr) ([]byte, error) {
	if err := s.call("nvrtcGetCUBIN", h); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.virtual[h] {
		return nil, &backend.NVRTCError{Code: 3, Name: "NVRTC_ERROR_INVALID_INPUT", Op: "nvrtcGetCUBIN"}
	}
	return []byte("\x7fELF machine code the fake cannot run"), nil
}
func (s *stubNVRTC) LoweredName(h uintptr, expr string) (string, error) {
	if err := s.call("nvrtcGetLoweredName", h); err != nil {
		return "", err
	}
	if expr == "scale<float>" {
		return "_Z5scaleIfEvPT_f", nil
	}
	return "", &backend.NVRTCError{Code: 10, Name: "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID", Op: "nvrtcGetLoweredName"}
}
func (s *stubNVRTC) DestroyProgram(h uintptr) error {
	if err := s.call("nvrtcDestroyProgram", h); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, h)
	s.destroyed++
	return nil
}

func nvrtcCode(t *testing.T, err error) int {
	t.Helper()
	var nerr *backend.NVRTCError
	require.ErrorAs(t, err, &nerr)
	return nerr.Code
}

// The NVRTC option's compiler is used as the fake's, behind the fake's own
// program handles: a stale handle never reaches it, programs not destroyed
// are leaks, FailNth applies, and a failed destroy can be retried.
func TestNVRTCOptionWrapsCompiler(t *testing.T) {
	stub := newStub()
	b := newBackend(compilerNVRTC(stub), FailNth("nvrtcCompileProgram", 2, driver.Result(backend.NVRTCErrorCompilation)))
	nv, err := b.NVRTC()
	require.NoError(t, err)
	assert.Equal(t, "libnvrtc on the fake", nv.Implementation(), "kept apart from NVIDIA's own in the cache")
	major, minor, err := nv.Version()
	require.NoError(t, err)
	assert.Equal(t, [2]int{12, 4}, [2]int{major, minor})

	h, err := nv.CreateProgram("src", "", nil, nil)
	require.NoError(t, err)
	assert.NotEqual(t, stub.next, h, "the fake's handle, not the compiler's")
	require.NoError(t, nv.Compile(h, []string{"--gpu-architecture=sm_90"}))
	err = nv.Compile(h, nil)
	assert.Equal(t, backend.NVRTCErrorCompilation, nvrtcCode(t, err), "FailNth applies")
	assert.Equal(t, []string{"nvrtcVersion", "nvrtcCreateProgram", "nvrtcCompileProgram"}, stub.calls, "an injected failure calls nothing")
	require.Len(t, b.Leaks(), 1)
	assert.Contains(t, fmt.Sprint(b.Leaks()), fmt.Sprintf("NVRTC program %#x (default_program): not destroyed", h))

	cubin, err := nv.CUBIN(h)
	require.NoError(t, err)
	assert.Equal(t, "\x7fELF"+stubPTX, string(cubin), "the fake's CUBIN: the PTX behind an ELF magic")
	log, err := nv.ProgramLog(h)
	require.NoError(t, err)
	assert.Equal(t, "stub log", log)

	stub.failNext = "nvrtcDestroyProgram"
	assert.Equal(t, 11, nvrtcCode(t, nv.DestroyProgram(h)))
	require.NoError(t, nv.DestroyProgram(h), "a failed destroy is retried")
	assert.Empty(t, b.Leaks())
	for name, call := range map[string]func() error{
		"Compile":           func() error { return nv.Compile(h, nil) },
		"AddNameExpression": func() error { return nv.AddNameExpression(h, "k") },
		"ProgramLog":        func() error { _, err := nv.ProgramLog(h); return err },
		"PTX":               func() error { _, err := nv.PTX(h); return err },
		"CUBIN":             func() error { _, err := nv.CUBIN(h); return err },
		"LoweredName":       func() error { _, err := nv.LoweredName(h, "k"); return err },
		"DestroyProgram":    func() error { return nv.DestroyProgram(h) },
		"unknown handle":    func() error { return nv.Compile(0xdead, nil) },
	} {
		assert.Equal(t, 4, nvrtcCode(t, call()), "%s on a destroyed program: NVRTC_ERROR_INVALID_PROGRAM", name)
	}
	assert.Equal(t, 1, stub.destroyed)

	// A virtual architecture has no CUBIN: the compiler's own error.
	h, err = nv.CreateProgram("src", "v.cu", nil, nil)
	require.NoError(t, err)
	require.NoError(t, nv.Compile(h, []string{"--gpu-architecture=compute_90"}))
	_, err = nv.CUBIN(h)
	assert.Equal(t, backend.NVRTCErrorInvalidInput, nvrtcCode(t, err))
	require.NoError(t, nv.DestroyProgram(h))
}

// A Go body registered under a name expression is found under the real
// lowered name too, so that it takes precedence over the compiled kernel.
func TestNVRTCOptionNameExpressionBodies(t *testing.T) {
	stub := newStub()
	b := bound(t, compilerNVRTC(stub), Kernel("scale<float>", func(t Thread, p Ptr, f float32) {
		if t.X() == 0 {
			Store(t, p, 0, f*2)
		}
	}))
	nv, err := b.NVRTC()
	require.NoError(t, err)
	h, err := nv.CreateProgram("src", "t.cu", nil, nil)
	require.NoError(t, err)
	require.NoError(t, nv.AddNameExpression(h, "scale<float>"))
	require.NoError(t, nv.Compile(h, []string{"--gpu-architecture=sm_90"}))
	lowered, err := nv.LoweredName(h, "scale<float>")
	require.NoError(t, err)
	assert.Equal(t, "_Z5scaleIfEvPT_f", lowered)
	ptx, err := nv.PTX(h)
	require.NoError(t, err)
	require.NoError(t, nv.DestroyProgram(h))

	m, err := b.ModuleLoadData(ptx)
	require.NoError(t, err)
	defer b.ModuleUnload(m)
	f, err := b.ModuleGetFunction(m, lowered)
	require.NoError(t, err)
	p, err := b.MemAlloc(4)
	require.NoError(t, err)
	defer b.MemFree(p)
	v := float32(21)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, 0, args(unsafe.Pointer(&p), unsafe.Pointer(&v))))
	require.NoError(t, b.CtxSynchronize())
	assert.Equal(t, float32(42), *(*float32)(unsafe.Pointer(&readDevice(t, b, p, 4)[0])), "the Go body ran")
}

// Without libnvrtc the fake uses its pretend compiler.
func TestNVRTCAbsentPretends(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBNVRTC", "/nonexistent/libnvrtc.so.12")
	nv, err := newBackend().NVRTC()
	require.NoError(t, err)
	assert.Equal(t, "nocgo/cuda fake", nv.Implementation())
	nv, err = newBackend(compilerNVRTC(newStub())).NVRTC()
	require.NoError(t, err)
	assert.Equal(t, "libnvrtc on the fake", nv.Implementation(), "an explicit compiler needs no search")
}

// Where libnvrtc is installed, the fake finds it by itself and compiles
// real CUDA C: errors and logs are NVIDIA's, programs are checked as above.
func TestNVRTCFoundByDefault(t *testing.T) {
	requireLibNVRTC(t)
	b := newBackend()
	nv, err := b.NVRTC()
	require.NoError(t, err)
	assert.Equal(t, "libnvrtc on the fake", nv.Implementation())
	paths := nv.(backend.LibraryPaths).LibraryPaths()
	require.Len(t, paths, 1)
	assert.Contains(t, paths[0], "libnvrtc")
	pretend, err := newBackend(PretendNVRTC()).NVRTC()
	require.NoError(t, err)
	assert.Equal(t, "nocgo/cuda fake", pretend.Implementation())

	h, err := nv.CreateProgram("extern \"C\" __global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n", "k.cu", nil, nil)
	require.NoError(t, err)
	require.NoError(t, nv.Compile(h, []string{"--gpu-architecture=sm_90"}))
	ptx, err := nv.PTX(h)
	require.NoError(t, err)
	assert.Contains(t, string(ptx), "Generated by NVIDIA NVVM Compiler")
	assert.Contains(t, string(ptx), ".visible .entry k(")
	cubin, err := nv.CUBIN(h)
	require.NoError(t, err)
	assert.Equal(t, append([]byte("\x7fELF"), ptx...), cubin)
	require.NoError(t, nv.DestroyProgram(h))

	h, err = nv.CreateProgram("__global__ void k() { undeclared(); }\n", "bad.cu", nil, nil)
	require.NoError(t, err)
	err = nv.Compile(h, nil)
	assert.Equal(t, backend.NVRTCErrorCompilation, nvrtcCode(t, err))
	log, err := nv.ProgramLog(h)
	require.NoError(t, err)
	assert.Contains(t, log, `bad.cu(1): error: identifier "undeclared" is undefined`)
	require.NoError(t, nv.DestroyProgram(h))
	assert.Equal(t, 4, nvrtcCode(t, nv.DestroyProgram(h)), "a destroyed program never reaches libnvrtc")
	assert.Empty(t, b.Leaks())

	// Programs compile concurrently (NVRTC is safe on distinct programs).
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() {
			h, err := nv.CreateProgram("extern \"C\" __global__ void k(int* p) { atomicAdd(p, 1); }\n", "c.cu", nil, nil)
			if err == nil {
				err = errors.Join(nv.Compile(h, []string{"--gpu-architecture=compute_80"}), nv.DestroyProgram(h))
			}
			errs[i] = err
		})
	}
	wg.Wait()
	assert.NoError(t, errors.Join(errs...))
}

// requireLibNVRTC skips the test without libnvrtc, or fails it with
// NOCGO_CUDA_REQUIRE_NVRTC=1 (conformance.RequireNVRTCEnv).
func requireLibNVRTC(t *testing.T) {
	t.Helper()
	if _, err := libnvrtc.Open(); err != nil {
		if os.Getenv("NOCGO_CUDA_REQUIRE_NVRTC") == "1" {
			t.Fatalf("NOCGO_CUDA_REQUIRE_NVRTC=1 but libnvrtc does not load: %v", err)
		}
		t.Skipf("no libnvrtc: %v", err)
	}
}
