//go:build linux && (amd64 || arm64)

package loader_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/loader"
)

// openLibc opens the C library through the loader's own code path, as if it
// were libcuda.
func openLibc(t testing.TB) *loader.Library {
	t.Helper()
	if !dl.Supported {
		t.Skip("run-time loading is not built for this platform")
	}
	t.Setenv("NOCGO_CUDA_LIBCUDA", "libc.so.6")
	lib, err := loader.Open(loader.CUDA)
	require.NoError(t, err)
	return lib
}

func TestOpenRealLibrary(t *testing.T) {
	lib := openLibc(t)
	assert.Equal(t, loader.CUDA, lib.Kind())
	assert.Equal(t, "libc.so.6", lib.Name())
	assert.True(t, filepath.IsAbs(lib.Path()), "path %q", lib.Path())
	assert.Contains(t, filepath.Base(lib.Path()), "libc")
	assert.NotZero(t, lib.Handle())

	p, err := lib.Symbol("getpid")
	require.NoError(t, err)
	assert.Equal(t, uintptr(os.Getpid()), dl.Call0(p))
}

func TestMissingSymbol(t *testing.T) {
	lib := openLibc(t)
	p, err := lib.Symbol("cuNoSuchEntryPoint")
	assert.Zero(t, p)
	var serr *loader.SymbolError
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "cuNoSuchEntryPoint", serr.Symbol)
	assert.Equal(t, lib.Path(), serr.Library)
	assert.Contains(t, err.Error(), "symbol cuNoSuchEntryPoint not found in "+lib.Path())

	_, err = lib.Symbol("")
	assert.ErrorAs(t, err, &serr)
	_, err = lib.Symbol("get\x00pid")
	assert.ErrorAs(t, err, &serr)
}

// dlerror's message lives per OS thread: lookups from many goroutines at
// once must each get the message of their own failure.
func TestConcurrentSymbolErrors(t *testing.T) {
	lib := openLibc(t)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				name := fmt.Sprintf("cuMissing_%d_%d", g, i)
				_, err := lib.Symbol(name)
				if err == nil || !strings.Contains(err.Error(), name) {
					errs <- fmt.Errorf("lookup of %s: got %v", name, err)
					return
				}
				if p, err := lib.Symbol("getpid"); err != nil || p == 0 {
					errs <- fmt.Errorf("getpid: %#x, %v", p, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
