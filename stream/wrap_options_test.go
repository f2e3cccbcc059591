package stream_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/stream"
)

// WrapWithOptions names a foreign stream (Name, String, the fake's
// reports; race_report_test.go in package fake checks those), checks the
// handle as Wrap does, and refuses to name the special streams.
func TestWrapWithOptions(t *testing.T) {
	ctx, c := countingContext(t)
	var h uintptr
	bound(t, ctx, func(api backend.API) {
		var r error
		h, r = api.StreamCreateWithPriority(0, 0)
		require.NoError(t, r)
	})
	s, err := stream.WrapWithOptions(ctx, h, stream.WrapOptions{Name: "decoder"})
	require.NoError(t, err)
	assert.Equal(t, "decoder", s.Name())
	assert.Contains(t, s.String(), `wrapped stream "decoder" `)
	assert.False(t, s.Owned())
	assert.Equal(t, h, s.Handle())
	plain, err := stream.Wrap(ctx, h)
	require.NoError(t, err)
	assert.True(t, plain.Equal(s))
	assert.Empty(t, plain.Name(), "Wrap names nothing")
	require.NoError(t, s.Close())
	require.NoError(t, plain.Close())
	assert.Equal(t, int64(1), c.streams.Load(), "closing the wraps does not destroy")

	none, err := stream.WrapWithOptions(ctx, h, stream.WrapOptions{})
	require.NoError(t, err)
	assert.Empty(t, none.Name())
	require.NoError(t, none.Close())

	for _, sp := range []uintptr{backend.StreamLegacy, backend.StreamPerThread} {
		_, err = stream.WrapWithOptions(ctx, sp, stream.WrapOptions{Name: "mine"})
		prefixed(t, err, "stream.WrapWithOptions")
		assert.ErrorIs(t, err, driver.ErrInvalidInput, "a special stream cannot be named")
		w, err := stream.WrapWithOptions(ctx, sp, stream.WrapOptions{})
		require.NoError(t, err, "unnamed, it is the special stream")
		require.NoError(t, w.Close())
	}
	_, err = stream.WrapWithOptions(ctx, 0, stream.WrapOptions{Name: "x"})
	prefixed(t, err, "stream.WrapWithOptions")
	assert.ErrorIs(t, err, stream.ErrNullHandle)
	_, err = stream.WrapWithOptions(ctx, 0xdead0, stream.WrapOptions{Name: "x"})
	prefixed(t, err, "stream.WrapWithOptions")
	assert.ErrorIs(t, err, driver.ErrInvalidHandle)
	_, err = stream.WrapWithOptions(nil, h, stream.WrapOptions{Name: "x"})
	prefixed(t, err, "stream.WrapWithOptions")

	bound(t, ctx, func(api backend.API) { require.NoError(t, api.StreamDestroy(h)) })
	assert.Zero(t, c.streams.Load())
}
