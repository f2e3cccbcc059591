package drivertest

import (
	"errors"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// testFaults: a kernel that faults leaves its context unusable (a sticky
// error), and a long-running process recovers without restarting: every
// object closes, the primary context is reset, and a fresh one computes
// correctly.
func testFaults(t *testing.T, drv *driver.Driver) {
	t.Run("reset-refused-while-held", func(t *testing.T) {
		dev, err := drv.Device(0)
		must(t, err)
		ctx, err := dev.PrimaryContext()
		must(t, err)
		errorIs(t, dev.ResetPrimaryContext(), driver.ErrIllegalState, "an open Context")
		s, err := stream.New(ctx, stream.Options{})
		must(t, err)
		must(t, ctx.Close())
		errorIs(t, dev.ResetPrimaryContext(), driver.ErrIllegalState, "a stream still holds the context")
		must(t, s.Close())
		var nilDev *driver.Device
		errorIs(t, nilDev.ResetPrimaryContext(), driver.ErrInvalidValue)
	})
	t.Run("recover-after-illegal-address", func(t *testing.T) { testFaultRecovery(t, drv) })
}

func testFaultRecovery(t *testing.T, drv *driver.Driver) {
	dev, err := drv.Device(0)
	must(t, err)
	ctx, err := dev.PrimaryContext()
	must(t, err)
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	must(t, err)
	buf, err := memory.Alloc[float32](ctx, 1024)
	must(t, err)
	m, err := module.Compile(ctx, KernelSource, module.Options{Name: "drivertest_kernels.cu", NameExpressions: []string{KernelFillFloat}, NoCache: true})
	must(t, err)
	f, err := m.Function(KernelWriteAt)
	must(t, err)

	// 4 TiB past the buffer: no memory there.
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(32)}
	must(t, f.Launch(s, cfg, buf, int64(1)<<40))
	err = s.Synchronize()
	mustIs(t, err, driver.ErrIllegalAddress, "the fault surfaces at the next synchronisation")
	errorIs(t, err, driver.ErrContextUnusable, "the error says the context is unusable")
	contains(t, err.Error(), "ResetPrimaryContext", "and what to do")
	var r driver.Result
	if errors.As(err, &r) {
		isTrue(t, r.Sticky(), "ILLEGAL_ADDRESS is sticky")
	}
	errorIs(t, s.Synchronize(), driver.ErrIllegalAddress, "the error stays")

	// Everything closes, even where the driver refuses for the dead
	// context: a Close that returns an error has closed all the same.
	for _, c := range []interface{ Close() error }{m, buf, s, ctx} {
		if err := c.Close(); err != nil {
			errorIs(t, err, driver.ErrContextUnusable, "a Close that fails says why: %v", err)
		}
		must(t, c.Close(), "closed: a second Close is a no-op")
	}
	errorIs(t, s.Synchronize(), driver.ErrClosed)

	// The way back: reset, then a fresh primary context computes correctly.
	must(t, dev.ResetPrimaryContext())
	ctx2, err := dev.PrimaryContext()
	must(t, err)
	defer func() { must(t, ctx2.Close()) }()
	s2, err := stream.New(ctx2, stream.Options{Flags: stream.NonBlocking})
	must(t, err)
	defer func() { must(t, s2.Close()) }()
	const n = 4096
	p, err := memory.Alloc[float32](ctx2, n)
	must(t, err)
	defer func() { must(t, p.Close()) }()
	m2, err := module.Compile(ctx2, KernelSource, module.Options{Name: "drivertest_kernels.cu", NameExpressions: []string{KernelFillFloat}, NoCache: true})
	must(t, err, "compiling in the fresh context")
	defer func() { must(t, m2.Close()) }()
	add1, err := m2.Function(KernelAdd1)
	must(t, err)
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)
	}
	must(t, memory.CopyToDeviceAsync(s2, p, in))
	must(t, add1.Launch(s2, module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256)}, p, int32(n)))
	out := make([]float32, n)
	must(t, memory.CopyToHostAsync(s2, out, p))
	must(t, s2.Synchronize())
	for i, v := range out {
		if v != float32(i)+1 {
			t.Fatalf("after the reset: element %d is %v, want %v", i, v, float32(i)+1)
		}
	}
}
