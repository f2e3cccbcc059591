package driver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
)

// A nil or zero NVRTC is refused with an error, never a panic.
func TestNVRTCZero(t *testing.T) {
	for _, nv := range []*driver.NVRTC{nil, {}} {
		_, _, err := nv.Version()
		require.ErrorIs(t, err, driver.ErrInvalidValue)
		assert.Empty(t, nv.Implementation())
		assert.Empty(t, nv.LibraryPath())
	}
}
