package cudatest

import (
	"testing"

	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// Kernel compiles src (module.Compile with default Options: cached in the
// test's own directory on cudatest's fake) in s's context and returns its
// kernel name, for the test t. The module is closed when the test ends. A
// failure fails the test at once, with the compiler's log.
//
//	f := cudatest.Kernel(t, s, scaleSource, "scale")
func Kernel(t testing.TB, s *stream.Stream, src, name string) *module.Function {
	t.Helper()
	m, err := module.Compile(s.Context(), src, module.Options{})
	if err != nil {
		t.Fatalf("cudatest.Kernel: %v", err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("cudatest.Kernel: %v", err)
		}
	})
	f, err := m.Function(name)
	if err != nil {
		t.Fatalf("cudatest.Kernel: %v", err)
	}
	return f
}

// FromSlice is memory.FromSliceOn(s, src) for the test t: the buffer is
// closed when the test ends, and a failure fails the test at once.
func FromSlice[T any](t testing.TB, s *stream.Stream, src []T) *memory.Buffer[T] {
	t.Helper()
	b, err := memory.FromSliceOn(s, src)
	if err != nil {
		t.Fatalf("cudatest.FromSlice: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("cudatest.FromSlice: %v", err)
		}
	})
	return b
}

// Alloc is memory.Alloc[T](s.Context(), n) for the test t: the buffer is
// closed when the test ends, and a failure fails the test at once.
func Alloc[T any](t testing.TB, s *stream.Stream, n int) *memory.Buffer[T] {
	t.Helper()
	b, err := memory.Alloc[T](s.Context(), n)
	if err != nil {
		t.Fatalf("cudatest.Alloc: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("cudatest.Alloc: %v", err)
		}
	})
	return b
}

// ToSlice is memory.ToSliceOn(s, b) for the test t: b's contents once s
// has run everything queued before; a failure fails the test at once.
func ToSlice[T any](t testing.TB, s *stream.Stream, b *memory.Buffer[T]) []T {
	t.Helper()
	got, err := memory.ToSliceOn(s, b)
	if err != nil {
		t.Fatalf("cudatest.ToSlice: %v", err)
	}
	return got
}
