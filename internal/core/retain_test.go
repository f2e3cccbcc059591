package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

type retainName string

func (n retainName) String() string { return string(n) }

// A retained object's Close is refused and changes nothing; once released,
// Close works; Retain after Close fails.
func TestRetainRefusesClose(t *testing.T) {
	c := NewContext(nil, 1, 0, "ctx", nil)
	h, err := c.Hold()
	require.NoError(t, err)
	require.NoError(t, h.Retain(retainName("buf")))
	require.NoError(t, h.Retain(retainName("buf")))
	assert.Equal(t, int64(2), h.Retained())

	destroyed := 0
	destroy := func(backend.API) error { destroyed++; return nil }
	err = h.Close(destroy)
	require.ErrorIs(t, err, ErrRetained)
	assert.Contains(t, err.Error(), "2 graph(s)")
	assert.False(t, h.Closed())
	assert.Zero(t, destroyed, "a refused Close destroys nothing")
	require.NoError(t, h.Use(retainName("buf")), "the object is still usable")
	h.Unuse()

	h.Release()
	require.ErrorIs(t, h.Close(destroy), ErrRetained)
	h.Release()
	require.NoError(t, h.Close(nil)) // nothing to destroy: no backend here
	assert.True(t, h.Closed())
	require.ErrorIs(t, h.Retain(retainName("buf")), ErrClosed)
}
