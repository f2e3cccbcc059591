package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
)

// holdCases runs check on an owned context and on the primary context of
// device 0. check makes objects in ctx, releases ctx, uses and closes the
// objects, and calls ended after the last close; ended then checks that the
// context came to its end in the driver at that moment (an owned context
// destroyed, the primary context's last reference released), unless another
// user in the process holds the primary context too. last names what closes
// the objects ("Close", "Free"), for the messages.
func holdCases(t *testing.T, drv *driver.Driver, last string, check func(t *testing.T, ctx *driver.Context, ended func(t *testing.T))) {
	dev, err := drv.Device(0)
	must(t, err)
	api := raw(t, drv)
	t.Run("owned-context", func(t *testing.T) {
		ctx, err := dev.NewContext(driver.ContextOptions{})
		must(t, err)
		t.Cleanup(func() { ctx.Close() }) // a no-op once the case released it
		h := ctx.Handle()
		check(t, ctx, func(t *testing.T) {
			_, err := api.CtxGetAPIVersion(h)
			errorIs(t, err, driver.ErrInvalidContext, "the owned context is destroyed with the last %s", last)
		})
	})
	t.Run("primary-context", func(t *testing.T) {
		_, before, err := api.DevicePrimaryCtxGetState(dev.Handle())
		must(t, err)
		ctx, err := dev.PrimaryContext()
		must(t, err)
		t.Cleanup(func() { ctx.Close() })
		h := ctx.Handle()
		check(t, ctx, func(t *testing.T) {
			if before {
				// Someone else in the process holds the primary context: it
				// stays active, and only this reference was released.
				t.Log("the primary context was active before the case: its end cannot be seen here")
				return
			}
			_, active, err := api.DevicePrimaryCtxGetState(dev.Handle())
			must(t, err)
			isFalse(t, active, "the last reference to the primary context is released with the last %s", last)
			_, err = api.CtxGetAPIVersion(h)
			errorIs(t, err, driver.ErrInvalidContext, "the primary context ended with the last %s", last)
		})
	})
}
