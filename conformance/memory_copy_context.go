package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// testMemCopyContext checks CopyToDeviceContext and CopyToHostContext: a
// synchronous copy behind work of a blocking stream stops waiting at the
// deadline and copies nothing, then copies once the work is done.
func testMemCopyContext(t *testing.T, drv *driver.Driver) {
	ctx, _ := memSetup(t, drv)
	b := memAlloc[float32](t, ctx, 64)
	want := memIota(64, 1)
	must(t, memory.CopyToDeviceContext(timeout(t, time.Minute), b, want))

	blocking := newStream(t, ctx, stream.Options{Flags: stream.Blocking})
	release := held(t, blocking)
	got := memFilled(64, float32(-1))
	err := memory.CopyToHostContext(timeout(t, 20*time.Millisecond), got, b)
	errorIs(t, err, context.DeadlineExceeded)
	memSame(t, memFilled(64, float32(-1)), got, "nothing copied")
	errorIs(t, memory.CopyToDeviceContext(timeout(t, 20*time.Millisecond), b, memFilled(64, float32(9))), context.DeadlineExceeded)

	release()
	must(t, memory.CopyToHostContext(timeout(t, time.Minute), got, b))
	memSame(t, want, got, "the device copy was left as it was")

	c, cancel := context.WithCancel(context.Background())
	cancel()
	errorIs(t, memory.CopyToHostContext(c, got, b), context.Canceled)
	must(t, memory.CopyToHostContext(context.Background(), got, b))
	//lint:ignore SA1012 a nil context.Context is the bad input under test
	errorIs(t, memory.CopyToHostContext(nil, got, b), driver.ErrInvalidValue)
	errorIs(t, memory.CopyToHostContext(context.Background(), got[:3], b), driver.ErrInvalidValue)
}
