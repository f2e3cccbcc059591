package core

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// currentAPI is a backend on which context 1 is always current.
type currentAPI struct{ backend.API }

func (currentAPI) CtxGetCurrent() (uintptr, error) { return 1, nil }

// A made object keeps its hold; one whose setup fails is destroyed, and
// on every failure the hold is let go (the user's Release ends the context).
func TestCreate(t *testing.T) {
	var ended, destroyed []uintptr
	c := NewContext(currentAPI{}, 1, 0, "ctx", func() error { ended = append(ended, 1); return nil })
	next := uintptr(10)
	newHandle := func() (uintptr, error) { next++; return next, nil }
	destroy := func(h uintptr) error { destroyed = append(destroyed, h); return errors.New("destroy failed") }

	hold, h, err := c.Create(newHandle, func(uintptr) error { return nil }, destroy)
	require.NoError(t, err)
	assert.Equal(t, uintptr(11), h)
	assert.Empty(t, destroyed)

	setupFailed := errors.New("setup failed")
	_, h, err = c.Create(newHandle, func(uintptr) error { return setupFailed }, destroy)
	assert.ErrorIs(t, err, setupFailed)
	assert.ErrorContains(t, err, "destroy failed", "destroy's error is joined")
	assert.Zero(t, h)
	assert.Equal(t, []uintptr{12}, destroyed, "what setup could not configure is destroyed")

	makeFailed := errors.New("make failed")
	_, _, err = c.Create(func() (uintptr, error) { return 0, makeFailed }, nil, nil)
	assert.ErrorIs(t, err, makeFailed)

	require.NoError(t, c.Release())
	assert.Empty(t, ended, "the made object still holds the context")
	require.NoError(t, hold.Close(nil))
	assert.Equal(t, []uintptr{1}, ended, "the failed ones let go of theirs")
	_, _, err = c.Create(newHandle, nil, nil)
	assert.ErrorIs(t, err, ErrClosed, "no object in a released context")
}
