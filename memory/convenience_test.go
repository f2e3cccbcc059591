package memory_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

func TestFromSliceToSlice(t *testing.T) {
	_, ctx, _ := setup(t)
	want := iota32(100, 2)
	b, err := memory.FromSlice(ctx, want)
	require.NoError(t, err)
	assert.Equal(t, 100, b.Len())
	got, err := memory.ToSlice(b)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	require.NoError(t, b.Close())

	e, err := memory.FromSlice[float32](ctx, nil)
	require.NoError(t, err)
	assert.Zero(t, e.Len())
	got, err = memory.ToSlice(e)
	require.NoError(t, err)
	assert.Empty(t, got)
	require.NoError(t, e.Close())

	_, err = memory.ToSlice(b)
	assert.ErrorIs(t, err, driver.ErrClosed)
	assert.Equal(t, 1, strings.Count(err.Error(), "memory.ToSlice"), err.Error())
	_, err = memory.FromSlice[float32](nil, want)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.True(t, strings.HasPrefix(err.Error(), "memory.FromSlice[float32]: "), err.Error())
}

func TestFromSliceCopyFailureFrees(t *testing.T) {
	drv := fake.New(fake.FailNth("cuMemcpyHtoD", 1, driver.ErrInvalidValue))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	_, err = memory.FromSlice(ctx, []int32{1, 2, 3})
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Contains(t, err.Error(), "cuMemcpyHtoD")
	assertNoLeaks(t, drv)
	require.NoError(t, ctx.Close())
}

func TestAllocZeroed(t *testing.T) {
	_, ctx, _ := setup(t)
	b, err := memory.AllocZeroed[uint64](ctx, 33)
	require.NoError(t, err)
	got, err := memory.ToSlice(b)
	require.NoError(t, err)
	assert.Equal(t, make([]uint64, 33), got, "zeros, where Alloc gives the fake's poison")
	require.NoError(t, b.Close())

	e, err := memory.AllocZeroed[uint64](ctx, 0)
	require.NoError(t, err)
	require.NoError(t, e.Close())
	_, err = memory.AllocZeroed[uint64](ctx, -1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

func TestAllocZeroedMemsetFailureFrees(t *testing.T) {
	drv := fake.New(fake.FailNth("cuMemsetD8", 1, driver.ErrInvalidValue))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	_, err = memory.AllocZeroed[float32](ctx, 8)
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.True(t, strings.HasPrefix(err.Error(), "memory.AllocZeroed[float32]: "), err.Error())
	assertNoLeaks(t, drv)
	require.NoError(t, ctx.Close())
}

func TestRegisterBadInputAndRetry(t *testing.T) {
	drv := fake.New(fake.FailNth("cuMemHostUnregister", 1, driver.ErrInvalidValue))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	data := make([]byte, 1<<14)
	r, err := memory.Register(ctx, data, memory.RegisterPortable)
	require.NoError(t, err)
	err = r.Close()
	require.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.True(t, strings.HasPrefix(err.Error(), "memory.Registered.Close: "), err.Error())
	assert.NotNil(t, r.Slice(), "a failed Close leaves the registration")
	require.NoError(t, r.Close(), "and can be retried")
	assert.Nil(t, r.Slice())
	var nilReg *memory.Registered[byte]
	assert.ErrorIs(t, nilReg.Close(), driver.ErrInvalidValue)
	_, err = memory.Register(nil, data, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assertNoLeaks(t, drv)
	require.NoError(t, ctx.Close())
}

// FromSliceOn and ToSliceOn are ordered on their stream: a ToSliceOn right
// after a Fill on a non-blocking stream reads the filled values with no race
// (ToSlice, on the legacy stream, races with the Fill: the detector's
// report is the reason for the new forms).
func TestSliceOnIsStreamOrdered(t *testing.T) {
	var hazards []fake.Hazard
	drv := fake.New(fake.DetectRaces(func(h fake.Hazard) { hazards = append(hazards, h) }))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	defer s.Close()

	b, err := memory.FromSliceOn(s, []int32{1, 2, 3})
	require.NoError(t, err)
	defer b.Close()
	assert.Equal(t, 3, b.Len())
	require.NoError(t, memory.Fill(s, b, 7))
	got, err := memory.ToSliceOn(s, b)
	require.NoError(t, err)
	assert.Equal(t, []int32{7, 7, 7}, got)
	assert.Empty(t, hazards, "stream-ordered: no race")

	require.NoError(t, memory.Fill(s, b, 9))
	_, err = memory.ToSlice(b)
	require.NoError(t, err)
	require.NoError(t, s.Synchronize())
	assert.NotEmpty(t, hazards, "ToSlice after a Fill on a non-blocking stream is the race the new forms avoid")

	e, err := memory.FromSliceOn[float32](s, nil)
	require.NoError(t, err)
	got32, err := memory.ToSliceOn(s, e)
	require.NoError(t, err)
	assert.Empty(t, got32)
	require.NoError(t, e.Close())

	_, err = memory.FromSliceOn(nil, []int32{1})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.True(t, strings.HasPrefix(err.Error(), "memory.FromSliceOn: "), err.Error())
	_, err = memory.ToSliceOn(nil, b)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.True(t, strings.HasPrefix(err.Error(), "memory.ToSliceOn: "), err.Error())
	require.NoError(t, b.Close())
	_, err = memory.ToSliceOn(s, b)
	assert.ErrorIs(t, err, driver.ErrClosed)
}
