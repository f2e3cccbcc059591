//go:build linux && (amd64 || arm64)

package libcufft

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"
)

// TestOpen opens libcufft where there is one; elsewhere it checks that the
// error lists where it looked.
func TestOpen(t *testing.T) {
	l, err := Open()
	if err != nil {
		var le *loader.LibraryError
		require.True(t, errors.As(err, &le), "%v", err)
		assert.Contains(t, err.Error(), "libcufft.so.12")
		assert.Contains(t, err.Error(), "libcufft.so.11")
		if os.Getenv("NOCGO_CUDA_REQUIRE_GPU") == "1" {
			t.Fatalf("no libcufft on a GPU machine: %v", err)
		}
		return
	}
	v, err := l.Version()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, v, 11000, "cuFFT 11 (CUDA 12) or later")
	t.Logf("libcufft %s: version %d", l.Path(), v)
}

func TestCheck(t *testing.T) {
	var l Lib
	assert.NoError(t, l.check(symExecC2C, 0))
	err := l.check(symMakePlanMany64, 0xffffffff00000000|8)
	assert.ErrorIs(t, err, backend.FFTInvalidSize, "the upper half is not the result")
	assert.Equal(t, "cufftMakePlanMany64: CUFFT_INVALID_SIZE", err.Error())
}
