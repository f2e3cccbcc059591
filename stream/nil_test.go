package stream_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/stream"
)

// TestNilReceivers: the accessors of a nil or zero Stream or Event answer
// zero values, and the operations errors, without panicking.
func TestNilReceivers(t *testing.T) {
	for name, s := range map[string]*stream.Stream{"nil": nil, "zero": {}} {
		assert.Zero(t, s.Handle(), name)
		assert.Nil(t, s.Context(), name)
		assert.False(t, s.Owned(), name)
		assert.Equal(t, "nil stream", s.String(), name)
		_, err := s.Flags()
		assert.ErrorIs(t, err, driver.ErrInvalidValue, name)
		_, err = s.Priority()
		assert.ErrorIs(t, err, driver.ErrInvalidValue, name)
		assert.ErrorIs(t, s.WaitStream(s), driver.ErrInvalidValue, name)
		assert.ErrorIs(t, s.Close(), driver.ErrInvalidValue, name)
	}
	for name, e := range map[string]*stream.Event{"nil": nil, "zero": {}} {
		assert.Zero(t, e.Handle(), name)
		assert.Nil(t, e.Context(), name)
		assert.False(t, e.Owned(), name)
		f, known := e.Flags()
		assert.Zero(t, f, name)
		assert.False(t, known, name)
		assert.Equal(t, "nil event", e.String(), name)
		_, err := e.IPCHandle()
		assert.ErrorIs(t, err, driver.ErrInvalidValue, name)
		_, err = stream.Elapsed(e, e)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, name)
		assert.ErrorIs(t, e.Close(), driver.ErrInvalidValue, name)
	}
	var pe *stream.CallbackPanicError
	assert.Equal(t, "stream.CallbackPanicError: nil", pe.Error())
	assert.NoError(t, pe.Unwrap())
}
