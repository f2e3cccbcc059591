//go:build linux && (amd64 || arm64)

package libnvrtc

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The identity found without opening names the library Open then opens.
func TestIdentityIsTheOpenedLibrarys(t *testing.T) {
	before, ok := Identity()
	nv, err := Open()
	if err != nil {
		assert.False(t, ok, "no libnvrtc, yet an identity: %s", before)
		t.Skipf("no libnvrtc: %v", err)
	}
	after, ok2 := IdentityOf(nv)
	require.True(t, ok2, "an opened libnvrtc has an identity")
	assert.True(t, strings.HasPrefix(after, identityPrefix), after)
	if ok {
		assert.Equal(t, after, before)
	}
	_, ok = IdentityOf(nil)
	assert.False(t, ok, "not this package's compiler")
}

// Another file at NOCGO_CUDA_LIBNVRTC is another identity.
func TestIdentityFollowsTheFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("NOCGO_CUDA_LIBNVRTC", filepath.Join(dir, "missing.so"))
	_, ok := Identity()
	assert.False(t, ok, "nothing to open")
	// A libc of this binary's architecture: Open's file check refuses
	// another machine's ELF (the arm64 tests run on an amd64 host).
	triple := map[string]string{"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu"}[runtime.GOARCH]
	libc, err := filepath.EvalSymlinks("/lib/" + triple + "/libc.so.6")
	if triple == "" || err != nil {
		t.Skip("no libc at a known path")
	}
	data, err := os.ReadFile(libc)
	require.NoError(t, err)
	a := filepath.Join(dir, "a.so")
	require.NoError(t, os.WriteFile(a, data, 0o644))
	t.Setenv("NOCGO_CUDA_LIBNVRTC", a)
	ida, ok := Identity()
	require.True(t, ok)
	require.NoError(t, os.WriteFile(a, append(data, 0), 0o644))
	idb, ok := Identity()
	require.True(t, ok)
	assert.NotEqual(t, ida, idb, "a changed file is another compiler")
}
