//go:build linux && (amd64 || arm64)

package dl_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

func libc(t testing.TB) uintptr {
	t.Helper()
	if !dl.Supported {
		t.Skip("run-time loading is not built for this platform")
	}
	h, err := dl.Open("libc.so.6")
	require.NoError(t, err)
	return h
}

func sym(t testing.TB, h uintptr, name string) uintptr {
	t.Helper()
	p, err := dl.Sym(h, name)
	require.NoError(t, err)
	return p
}

func TestOpenAndPath(t *testing.T) {
	h := libc(t)
	path, ok := dl.Path(h)
	require.True(t, ok)
	assert.True(t, filepath.IsAbs(path), path)
	assert.True(t, strings.HasPrefix(filepath.Base(path), "libc"), path)
}

func TestOpenErrors(t *testing.T) {
	if !dl.Supported {
		t.Skip("run-time loading is not built for this platform")
	}
	_, err := dl.Open("")
	assert.ErrorIs(t, err, dl.ErrEmptyName)
	_, err = dl.Open("libc.so.6\x00x")
	assert.ErrorIs(t, err, cstr.ErrNUL)
	_, err = dl.Open("libnocgo-missing.so.3")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "libnocgo-missing.so.3")
}

func TestSymErrors(t *testing.T) {
	h := libc(t)
	_, err := dl.Sym(h, "cuNoSuchSymbol")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cuNoSuchSymbol")
	_, err = dl.Sym(h, "")
	assert.ErrorIs(t, err, dl.ErrEmptyName)
}
