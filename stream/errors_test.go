package stream_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/stream"
)

// prefixed checks that err names op first, and only once.
func prefixed(t *testing.T, err error, op string) {
	t.Helper()
	require.Error(t, err, op)
	msg := err.Error()
	assert.True(t, strings.HasPrefix(msg, op+": "), "%q starts with %q", msg, op)
	assert.Equal(t, 1, strings.Count(msg, op+":"), "%q names %q once", msg, op)
}

// Errors name the exported call that failed first, once, then the object
// and the driver call, and wrap the cause.
func TestErrorsNameTheCall(t *testing.T) {
	var s *stream.Stream
	prefixed(t, s.Synchronize(), "stream.Stream.Synchronize")
	prefixed(t, s.Close(), "stream.Stream.Close")
	var e *stream.Event
	prefixed(t, e.Synchronize(), "stream.Event.Synchronize")
	_, err := stream.New(nil, stream.Options{})
	prefixed(t, err, "stream.New")
	_, err = stream.Legacy(nil)
	prefixed(t, err, "stream.Legacy")

	drv := fake.New(
		fake.FailNth("cuStreamSynchronize", 1, driver.ErrUnknown),
		fake.FailNth("cuStreamDestroy", 2, driver.ErrUnknown), // s, after o,
	)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	s, err = stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	err = s.Synchronize()
	prefixed(t, err, "stream.Stream.Synchronize")
	assert.ErrorIs(t, err, driver.ErrUnknown)
	assert.Contains(t, err.Error(), s.String()+": cuStreamSynchronize: ")

	e, err = stream.NewEvent(ctx, stream.EventOptions{})
	require.NoError(t, err)
	require.NoError(t, e.Close())
	err = e.Record(s)
	prefixed(t, err, "stream.Event.Record")
	assert.ErrorIs(t, err, driver.ErrClosed)

	o, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	require.NoError(t, o.Close())
	err = s.WaitStream(o)
	prefixed(t, err, "stream.Stream.WaitStream")
	assert.ErrorIs(t, err, driver.ErrClosed)

	err = s.Close()
	prefixed(t, err, "stream.Stream.Close")
	assert.Contains(t, err.Error(), "cuStreamDestroy")
	require.NoError(t, s.Close())

	require.NoError(t, ctx.Close())
	_, err = stream.Wrap(ctx, 0x1)
	prefixed(t, err, "stream.Wrap")
	assert.NotContains(t, err.Error(), "stream.Legacy")
	assert.ErrorIs(t, err, driver.ErrClosed)
}
