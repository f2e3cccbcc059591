package fake_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// raceContext is a fake with the race detector on, its primary context,
// and where the hazards go.
func raceContext(t *testing.T) (*driver.Context, *[]fake.Hazard) {
	t.Helper()
	var got []fake.Hazard
	drv := fake.New(fake.DetectRaces(func(h fake.Hazard) { got = append(got, h) }))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { ctx.Close() })
	return ctx, &got
}

func named(t *testing.T, ctx *driver.Context, name string) *stream.Stream {
	t.Helper()
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking, Name: name})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// What a user reads: the streams by the names they were made with, the
// user's own lines (not the library's) first in each stack and on the
// access's line, and how to order the two. A read that ran before the
// write it races with and found unwritten bytes is one report, not two;
// its race-free twin (WaitStream) reports nothing.
func TestRaceReportForAUser(t *testing.T) {
	for _, ordered := range []bool{false, true} {
		ctx, got := raceContext(t)
		loader, compute := named(t, ctx, "loader"), named(t, ctx, "compute")
		assert.Equal(t, "loader", loader.Name())
		assert.Contains(t, loader.String(), `"loader"`)
		buf, err := memory.Alloc[float32](ctx, 256)
		require.NoError(t, err)
		defer buf.Close()
		out := make([]float32, 256)
		require.NoError(t, memory.Fill(loader, buf, 1)) // the write
		if ordered {
			require.NoError(t, compute.WaitStream(loader))
		}
		require.NoError(t, memory.CopyToHostAsync(compute, out, buf)) // the read
		require.NoError(t, compute.Synchronize())                     // the read runs first: nothing wrote the bytes yet
		require.NoError(t, loader.Synchronize())
		if ordered {
			assert.Empty(t, *got)
			continue
		}
		require.Len(t, *got, 1, "one report for one bug: %v", *got)
		h := (*got)[0]
		assert.Equal(t, fake.Race, h.Kind)
		assert.True(t, h.Unwritten, "the read found unwritten bytes, folded in")
		assert.Contains(t, h.Current.Stream, `stream "loader"`)
		assert.Contains(t, h.Previous.Stream, `stream "compute"`)
		for _, a := range []fake.Access{h.Current, h.Previous} {
			require.NotEmpty(t, a.Stack)
			assert.Equal(t, "github.com/nocgo/cuda/fake_test.TestRaceReportForAUser", a.Stack[0].Function, "the user's call first")
			for _, f := range a.Stack {
				assert.False(t, strings.HasPrefix(f.Function, "github.com/nocgo/cuda/memory."), "no library frame: %s", f.Function)
			}
		}
		str := h.String()
		assert.Contains(t, str, "race_report_test.go:", "the user's file:line on the access's line")
		assert.Contains(t, str, `To fix: order work #`)
		assert.Contains(t, str, `record an event on stream "loader"`)
		assert.Contains(t, str, `wait for it on stream "compute"`)
		assert.Contains(t, str, "Stream.WaitStream")
		assert.Contains(t, str, "found bytes nothing had written yet")
		assert.Equal(t, strings.Count(str, "WARNING"), 1)
	}
}

// An uninitialised read that no earlier work could explain is reported as
// such, once, at once.
func TestRaceUninitialisedReadAlone(t *testing.T) {
	ctx, got := raceContext(t)
	s := named(t, ctx, "only")
	buf, err := memory.Alloc[float32](ctx, 64)
	require.NoError(t, err)
	defer buf.Close()
	out := make([]float32, 64)
	require.NoError(t, memory.CopyToHostAsync(s, out, buf))
	require.NoError(t, s.Synchronize())
	require.Len(t, *got, 1)
	assert.Equal(t, fake.UninitializedRead, (*got)[0].Kind)
	assert.Contains(t, (*got)[0].Current.Stream, `stream "only"`)
}

// foreignStream is a stream of ctx made by raw driver calls, as another
// library would make it; the test destroys it at the end.
func foreignStream(t *testing.T, ctx *driver.Context) uintptr {
	t.Helper()
	api := fake.Of(ctx.Driver()).Backend()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	require.NoError(t, api.CtxPushCurrent(ctx.Handle()))
	h, err := api.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
	_, perr := api.CtxPopCurrent()
	require.NoError(t, err)
	require.NoError(t, perr)
	t.Cleanup(func() { api.StreamDestroy(h) })
	return h
}

// A race between a wrapped (foreign) stream and one of New names both
// streams, the wrapped one by the name WrapWithOptions gave it (by its
// handle without one), and says how to order them, as for two streams of
// New.
func TestRaceReportWrappedStreams(t *testing.T) {
	for _, name := range []string{"decoder", ""} {
		ctx, got := raceContext(t)
		h := foreignStream(t, ctx)
		dec, err := stream.WrapWithOptions(ctx, h, stream.WrapOptions{Name: name})
		require.NoError(t, err)
		defer dec.Close()
		assert.Equal(t, name, dec.Name())
		compute := named(t, ctx, "compute")
		buf, err := memory.Alloc[float32](ctx, 256)
		require.NoError(t, err)
		defer buf.Close()
		out := make([]float32, 256)
		require.NoError(t, memory.Fill(dec, buf, 1))                  // the write, on the foreign stream
		require.NoError(t, memory.CopyToHostAsync(compute, out, buf)) // the read, unordered
		require.NoError(t, dec.Synchronize())
		require.NoError(t, compute.Synchronize())
		require.Len(t, *got, 1, "one report for one bug: %v", *got)
		hz := (*got)[0]
		assert.Equal(t, fake.Race, hz.Kind)
		decName := fmt.Sprintf("stream %q (%#x, non-blocking)", name, h)
		if name == "" {
			decName = fmt.Sprintf("stream %#x (non-blocking)", h)
		}
		assert.Equal(t, decName, hz.Previous.Stream, "the wrapped stream's write")
		assert.Contains(t, hz.Current.Stream, `stream "compute"`)
		str := hz.String()
		assert.Contains(t, str, hz.Fix())
		assert.Contains(t, hz.Fix(), "record an event on "+decName)
		assert.Contains(t, hz.Fix(), `wait for it on stream "compute"`)
		assert.Contains(t, hz.Fix(), "Stream.WaitStream")
	}
}
