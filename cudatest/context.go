package cudatest

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/stream"
)

// Context returns device 0's primary context on Driver(t, opts...) (the
// real driver where it loads, the fake elsewhere; the options apply to the
// fake only), for the test t. It is closed when the test ends, after the
// test's own cleanups and defers (so objects made in it may be closed in
// either), and before the fake's leak check; a Close that fails fails t.
// The set-up failing fails the test at once (t.Fatal).
//
//	cc := cudatest.Context(t)
//	buf, err := memory.Alloc[float32](cc, n)
func Context(t testing.TB, opts ...fake.Option) *driver.Context {
	t.Helper()
	drv := Driver(t, opts...)
	dev, err := drv.Device(0)
	if err != nil {
		t.Fatalf("cudatest.Context: %v", err)
	}
	cc, err := dev.PrimaryContext()
	if err != nil {
		t.Fatalf("cudatest.Context: %v", err)
	}
	t.Cleanup(func() {
		if err := cc.Close(); err != nil {
			t.Errorf("cudatest.Context: %v", err)
		}
	})
	return cc
}

// Stream returns a non-blocking stream (stream.NonBlocking) in
// Context(t, opts...), for the test t: the one-call set-up of a test that
// launches kernels and copies. s.Context() is its context. The stream is
// closed when the test ends, after the test's own cleanups and defers, and
// before the context; a Close that fails fails t.
//
//	s := cudatest.Stream(t)
//	in, err := memory.FromSliceOn(s, []float32{1, 2, 3})
func Stream(t testing.TB, opts ...fake.Option) *stream.Stream {
	t.Helper()
	cc := Context(t, opts...)
	s, err := stream.New(cc, stream.Options{Flags: stream.NonBlocking})
	if err != nil {
		t.Fatalf("cudatest.Stream: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("cudatest.Stream: %v", err)
		}
	})
	return s
}
