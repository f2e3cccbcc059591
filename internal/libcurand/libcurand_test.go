//go:build linux && (amd64 || arm64)

package libcurand

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"
)

// TestOpen opens libcurand where there is one; elsewhere it checks that the
// error lists where it looked.
func TestOpen(t *testing.T) {
	l, err := Open()
	if err != nil {
		var le *loader.LibraryError
		require.True(t, errors.As(err, &le), "%v", err)
		assert.Contains(t, err.Error(), "libcurand.so.10")
		if os.Getenv("NOCGO_CUDA_REQUIRE_GPU") == "1" {
			t.Fatalf("no libcurand on a GPU machine: %v", err)
		}
		return
	}
	v, err := l.Version()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, v, 10000, "cuRAND 10")
	t.Logf("libcurand %s: version %d", l.Path(), v)
}

func TestCheck(t *testing.T) {
	var l Lib
	assert.NoError(t, l.check(symGenerate, 0))
	err := l.check(symGenerateNormal, 0xffffffff00000000|105)
	assert.ErrorIs(t, err, backend.RANDLengthNotMultiple, "the upper half is not the status")
	assert.Equal(t, "curandGenerateNormal: CURAND_STATUS_LENGTH_NOT_MULTIPLE", err.Error())
}
