package conformance

import (
	"errors"
	"testing"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// testFaults: a kernel that faults (a sticky error) poisons the process, as
// the real driver does (on the H200 with driver 580, even new contexts and a
// reset primary context fail after it); the error says so, every object
// still closes, and the primary context's reference is released. This group
// runs last in the suite, since nothing works in the process afterwards.
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
		must(t, dev.ResetPrimaryContext(), "nothing holds it")
		var nilDev *driver.Device
		errorIs(t, nilDev.ResetPrimaryContext(), driver.ErrInvalidValue)
	})
	t.Run("sticky-illegal-address", func(t *testing.T) { testStickyFault(t, drv) })
}

func testStickyFault(t *testing.T, drv *driver.Driver) {
	dev, err := drv.Device(0)
	must(t, err)
	ctx, err := dev.PrimaryContext()
	must(t, err)
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	must(t, err)
	buf, err := memory.Alloc[float32](ctx, 1024)
	must(t, err)
	m, err := module.Compile(ctx, kernels.Source, module.Options{Name: "conformance_kernels.cu", NameExpressions: []string{kernels.FillFloat}, NoCache: true})
	must(t, err)
	f, err := m.Function(kernels.WriteAt)
	must(t, err)

	// 4 TiB past the buffer: no memory there.
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(32)}
	must(t, f.Launch(s, cfg, buf, int64(1)<<40))
	err = s.Synchronize()
	mustIs(t, err, driver.ErrIllegalAddress, "the fault surfaces at the next synchronisation")
	errorIs(t, err, driver.ErrStickyFault, "the error says it is sticky")
	contains(t, err.Error(), "restart the process", "and what to do")
	var r driver.Result
	if errors.As(err, &r) {
		isTrue(t, r.Sticky(), "ILLEGAL_ADDRESS is sticky")
	}
	errorIs(t, s.Synchronize(), driver.ErrIllegalAddress, "the error stays")
	_, err = stream.New(ctx, stream.Options{})
	errorIs(t, err, driver.ErrIllegalAddress, "no new work in the context")
	_, err = dev.NewContext(driver.ContextOptions{})
	errorIs(t, err, driver.ErrIllegalAddress, "nor in a new context: the process is poisoned")

	// Everything closes, even where the driver refuses for the dead
	// context: a Close that returns an error has closed all the same.
	for _, c := range []interface{ Close() error }{m, buf, s} {
		if err := c.Close(); err != nil {
			errorIs(t, err, driver.ErrStickyFault, "a Close that fails says why: %v", err)
		}
		must(t, c.Close(), "closed: a second Close is a no-op")
	}
	errorIs(t, s.Synchronize(), driver.ErrClosed)
	must(t, ctx.Close(), "the primary context's reference is released")
	_, active, err := raw(t, drv).DevicePrimaryCtxGetState(dev.Handle())
	must(t, err)
	isFalse(t, active, "nothing of the process holds the primary context")
	must(t, dev.ResetPrimaryContext(), "the reset itself succeeds")
	_, err = dev.PrimaryContext()
	errorIs(t, err, driver.ErrIllegalAddress, "but does not recover the process")
}
