package memory_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
)

// prefixed checks that err names op first, and only once.
func prefixed(t *testing.T, err error, op string) {
	t.Helper()
	require.Error(t, err, op)
	msg := err.Error()
	assert.True(t, strings.HasPrefix(msg, op+": "), "%q starts with %q", msg, op)
	assert.Equal(t, 1, strings.Count(msg, op+":"), "%q names %q once", msg, op)
}

// Errors name the exported call that failed first, once, then the buffer
// and the driver call, and wrap the cause.
func TestErrorsNameTheCall(t *testing.T) {
	drv := fake.New(
		fake.FailNth("cuMemFree", 1, driver.ErrUnknown),
		fake.FailNth("cuMemFreeHost", 1, driver.ErrUnknown),
	)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()

	b, err := memory.Alloc[float32](ctx, 4)
	require.NoError(t, err)
	err = b.Close()
	prefixed(t, err, "memory.Buffer.Close")
	assert.ErrorIs(t, err, driver.ErrUnknown)
	assert.Contains(t, err.Error(), "cuMemFree")
	require.NoError(t, b.Close())
	_, err = b.Slice(0, 1)
	prefixed(t, err, "memory.Buffer.Slice")
	assert.ErrorIs(t, err, driver.ErrClosed)

	h, err := memory.AllocHost[float32](ctx, 4)
	require.NoError(t, err)
	err = h.Close()
	prefixed(t, err, "memory.HostBuffer.Close")
	assert.ErrorIs(t, err, driver.ErrUnknown)
	require.NoError(t, h.Close())

	_, err = memory.Alloc[float32](ctx, -1)
	prefixed(t, err, "memory.Alloc[float32]")
}
