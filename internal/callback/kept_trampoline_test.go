//go:build linux && (amd64 || arm64)

package callback_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/callback"
	"github.com/nocgo/cuda/internal/dl"
)

// The kept trampoline, called from C as the driver calls a host node's
// CUhostFn, runs the kept function each time and leaves it kept; it is a
// pointer of its own, distinct from the one-shot trampoline.
func TestKeptTrampoline(t *testing.T) {
	kt, err := callback.KeptTrampoline()
	require.NoError(t, err)
	require.NotZero(t, kt)
	again, err := callback.KeptTrampoline()
	require.NoError(t, err)
	assert.Equal(t, kt, again)
	assert.NotEqual(t, trampoline(t), kt)
	n := 0
	id := callback.Keep(func() { n++ })
	for range 5 {
		dl.Call1(kt, id)
	}
	assert.Equal(t, 5, n)
	assert.True(t, callback.Forget(id), "still kept after the calls")
}
