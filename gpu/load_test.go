//go:build linux && (amd64 || arm64)

package gpu_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/loader"
)

// Loading errors of the real backend, seen through Load.

func TestLoadWithoutLibcudaListsThePath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libcuda.so.1")
	t.Setenv("NOCGO_CUDA_LIBCUDA", missing)

	drv, err := gpu.Load()
	require.Error(t, err)
	assert.Nil(t, drv)
	var lerr *loader.LibraryError
	require.ErrorAs(t, err, &lerr)
	assert.Equal(t, []string{missing}, lerr.Paths())
	assert.True(t, strings.HasPrefix(err.Error(), "gpu.Load: loader: cannot open libcuda"), err.Error())
	assert.Contains(t, err.Error(), missing)
}

func TestLoadDefaultSearchListsEveryCandidate(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBCUDA", "")
	drv, err := gpu.Load()
	if err == nil {
		t.Skipf("this machine has a CUDA driver (%v)", drv.LibraryPaths())
	}
	var lerr *loader.LibraryError
	if !errors.As(err, &lerr) {
		t.Skipf("libcuda opened but the driver did not start: %v", err)
	}
	assert.Equal(t, loader.Candidates(loader.CUDA), lerr.Paths())
	for _, p := range lerr.Paths() {
		assert.Contains(t, err.Error(), p)
	}
}

// A library that is not a CUDA driver opens, and then fails on the first
// symbol the backend needs, with an error naming it.
func TestLoadNotADriver(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBCUDA", "libc.so.6")
	_, err := gpu.Load()
	var serr *loader.SymbolError
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "cuDriverGetVersion", serr.Symbol)
	assert.Contains(t, serr.Library, "libc")
}
