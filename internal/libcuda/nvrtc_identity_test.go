//go:build linux && (amd64 || arm64)

package libcuda

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/libnvrtc"
)

// The real backend names its compiler without opening libnvrtc (what
// module.Compile's cache hit relies on), and once NVRTC has opened it, by
// the file it opened.
func TestNVRTCIdentityOpensNothing(t *testing.T) {
	l := testLibcuda(t, 13000, nil)
	id, ok := l.NVRTCIdentity()
	want, wantOK := libnvrtc.Identity()
	assert.Equal(t, wantOK, ok)
	assert.Equal(t, want, id)
	assert.Nil(t, l.nvrtc.Load(), "libnvrtc not opened")
	assert.False(t, l.nvrtcDone, "not even searched for")

	nv, err := l.NVRTC()
	if err != nil {
		t.Skipf("no libnvrtc: %v", err)
	}
	opened, ok := l.NVRTCIdentity()
	require.True(t, ok)
	byFile, _ := libnvrtc.IdentityOf(nv)
	assert.Equal(t, byFile, opened, "the opened file's identity")
	if wantOK {
		assert.Equal(t, id, opened, "the file found without opening is the one opened")
	}
}
