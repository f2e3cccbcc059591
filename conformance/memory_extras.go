package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
)

// testMemExtras checks the one-call conveniences: FromSlice, ToSlice and
// AllocZeroed.
func testMemExtras(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	want := memIota(1000, 5)
	b, err := memory.FromSlice(ctx, want)
	must(t, err)
	got, err := memory.ToSlice(b)
	must(t, err)
	memSame(t, want, got)
	must(t, b.Close())

	z, err := memory.AllocZeroed[uint32](ctx, 4097)
	must(t, err)
	// Zeros are in place for work on any stream, a non-blocking one too.
	out := make([]uint32, 4097)
	must(t, memory.CopyToHostAsync(s, out, z))
	must(t, s.Synchronize())
	memSame(t, make([]uint32, 4097), out)
	must(t, z.Close())

	_, err = memory.ToSlice(z)
	errorIs(t, err, driver.ErrClosed)
}
