package conformance

import (
	"testing"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// testModuleHold checks that a module holds its context: released first,
// the Context refuses new objects, but the module, its Functions and the
// other objects made in the context keep working; the context ends only
// when the last of them, the module, is unloaded.
func testModuleHold(t *testing.T, drv *driver.Driver) {
	api := raw(t, drv)
	dev, err := drv.Device(0)
	must(t, err)

	t.Run("owned", func(t *testing.T) {
		ctx, err := dev.NewContext(driver.ContextOptions{})
		must(t, err)
		t.Cleanup(func() { ctx.Close() })
		h := ctx.Handle()
		alive := func() error {
			_, err := api.CtxGetAPIVersion(h)
			return err
		}
		modOutlives(t, ctx, alive)
		errorIs(t, alive(), driver.ErrInvalidContext, "destroyed by the module's Unload, the last holder")
	})

	t.Run("primary", func(t *testing.T) {
		// Whether this test holds the only reference to the primary
		// context: only then does its last Release end it.
		_, before, err := api.DevicePrimaryCtxGetState(dev.Handle())
		must(t, err)
		ctx, err := dev.PrimaryContext()
		must(t, err)
		t.Cleanup(func() { ctx.Close() })
		h := ctx.Handle()
		alive := func() error {
			_, active, err := api.DevicePrimaryCtxGetState(dev.Handle())
			if err != nil {
				return err
			}
			if !active {
				return driver.ErrInvalidContext
			}
			_, err = api.CtxGetAPIVersion(h)
			return err
		}
		modOutlives(t, ctx, alive)
		if before {
			t.Log("the primary context has other references: its end is not observable here")
			return
		}
		errorIs(t, alive(), driver.ErrInvalidContext, "released by the module's Unload, the last holder")
	})
}

// modOutlives makes a stream, a buffer and a module in ctx, releases ctx,
// checks that they all still work, closes the stream and the buffer, checks
// with alive that the module alone keeps the context, and unloads it.
func modOutlives(t *testing.T, ctx *driver.Context, alive func() error) {
	t.Helper()
	const n = 1000
	s, err := stream.New(ctx, stream.Options{})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	p, err := memory.Alloc[float32](ctx, n)
	must(t, err)
	t.Cleanup(func() { p.Close() })
	m, err := module.Compile(ctx, kernels.Source, module.Options{
		Name:            "conformance_kernels.cu",
		NameExpressions: []string{kernels.FillFloat},
		NoCache:         true,
	})
	must(t, err)
	t.Cleanup(func() { m.Close() })
	add1, err := m.Function(kernels.Add1)
	must(t, err)

	must(t, ctx.Close())
	must(t, alive(), "the objects hold the context")
	_, err = module.Compile(ctx, kernels.Source, module.Options{NoCache: true})
	errorIs(t, err, driver.ErrClosed, "no new module in a released Context")
	_, err = module.Load(ctx, m.Image())
	errorIs(t, err, driver.ErrClosed, "no new module in a released Context")

	// The module works on: new lookups, attributes, launches.
	fill, err := m.Function(kernels.FillFloat)
	must(t, err, "a lookup after the Context's Release")
	_, err = fill.Attributes()
	must(t, err)
	_, block, err := fill.MaxPotentialBlockSize(0, 0)
	must(t, err)
	compare(t, block, ">", 0)
	cfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256)}
	must(t, fill.Launch(s, cfg, p, float32(2), int32(n)))
	args, err := add1.Args(p, int32(n))
	must(t, err)
	must(t, add1.LaunchArgs(s, cfg, args))
	// Over 48 KiB of dynamic shared memory: the launch sets the function's
	// attribute, through the module's hold.
	cfg.SharedMem = 64 << 10
	must(t, add1.Launch(s, cfg, p, int32(n)))
	must(t, s.Synchronize())
	got := make([]float32, n)
	must(t, memory.CopyToHost(got, p))
	equal(t, got, memFilled(n, float32(4)), "a fill and two adds ran after the Context's Release")

	must(t, s.Close())
	must(t, p.Close())
	must(t, alive(), "the module still holds the context")
	_, err = add1.Attributes()
	must(t, err, "the module works with nothing else left in its context")

	must(t, m.Close())
	must(t, m.Close(), "a second Unload is a no-op")
	_, err = m.Function(kernels.Add1)
	errorIs(t, err, driver.ErrClosed)
	_, err = add1.Attributes()
	errorIs(t, err, driver.ErrClosed)
}
