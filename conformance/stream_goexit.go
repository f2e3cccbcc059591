package conformance

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/stream"
)

// testStreamCallbackGoexit: a host callback that calls runtime.Goexit (as
// t.FailNow and testify's require do) instead of returning neither kills the
// process nor stops the stream: the next Synchronize reports it as a
// *stream.CallbackPanicError and later callbacks run.
func testStreamCallbackGoexit(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	s := newStream(t, ctx)
	var after atomic.Bool
	must(t, s.Callback(func() { runtime.Goexit() }))
	must(t, s.Callback(func() { after.Store(true) }))
	err := s.Synchronize()
	var pe *stream.CallbackPanicError
	mustAs(t, err, &pe)
	contains(t, pe.Error(), "Goexit")
	isTrue(t, after.Load(), "the next callback ran")
	noError(t, s.Synchronize(), "reported once")
}
