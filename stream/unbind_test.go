package stream_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/stream"
)

// onOwnGoroutine runs f on a goroutine of its own: a failed unbind leaves
// that goroutine's OS thread locked, with the context pushed, and the
// thread ends with the goroutine.
func onOwnGoroutine(f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	return <-done
}

// A special stream binds its context for each call; when popping it fails,
// the call says so instead of leaving it current on the thread unnoticed.
func TestCallbackReportsUnbindFailure(t *testing.T) {
	drv := fake.New(fake.Devices(1), fake.FailNth("cuCtxPopCurrent", 1, driver.ErrUnknown))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	s, err := stream.Legacy(ctx)
	require.NoError(t, err)
	defer s.Close()

	ran := make(chan struct{}, 1)
	err = onOwnGoroutine(func() error { return s.Callback(func() { ran <- struct{}{} }) })
	require.Error(t, err)
	assert.ErrorIs(t, err, driver.ErrUnknown)
	assert.Contains(t, err.Error(), "stream.Stream.Callback")
	assert.Contains(t, err.Error(), "cuCtxPopCurrent")
	// The callback was queued all the same, and runs.
	require.NoError(t, s.Synchronize())
	assert.Len(t, ran, 1)
}
