package loader_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/loader"
)

func requireDL(t *testing.T) {
	t.Helper()
	if !dl.Supported {
		t.Skip("run-time loading is not built for this platform")
	}
}

func TestEnvPathIsTheOnlyCandidate(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libcuda.so.1")
	t.Setenv("NOCGO_CUDA_LIBCUDA", missing)

	assert.Equal(t, []string{missing}, loader.Candidates(loader.CUDA))

	lib, err := loader.Open(loader.CUDA)
	require.Error(t, err)
	assert.Nil(t, lib)
	var lerr *loader.LibraryError
	require.ErrorAs(t, err, &lerr)
	assert.Equal(t, loader.CUDA, lerr.Kind)
	assert.True(t, lerr.Env)
	assert.Equal(t, []string{missing}, lerr.Paths())
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), "NOCGO_CUDA_LIBCUDA")
	assert.Contains(t, err.Error(), missing+": no such file or directory")
}

func TestEnvBareNameGoesToTheSystemLoader(t *testing.T) {
	requireDL(t)
	t.Setenv("NOCGO_CUDA_LIBNVRTC", "libnocgo-does-not-exist.so.7")
	_, err := loader.Open(loader.NVRTC)
	var lerr *loader.LibraryError
	require.ErrorAs(t, err, &lerr)
	require.Len(t, lerr.Tried, 1)
	assert.Equal(t, "libnocgo-does-not-exist.so.7", lerr.Tried[0].Path)
	// dlopen's own message names the file and the reason.
	assert.Contains(t, lerr.Tried[0].Err.Error(), "libnocgo-does-not-exist.so.7")
	assert.Contains(t, err.Error(), "cannot open libnvrtc from NOCGO_CUDA_LIBNVRTC")
}

func TestUnknownKind(t *testing.T) {
	assert.Nil(t, loader.Candidates(loader.Kind(42)))
	_, err := loader.Open(loader.Kind(42))
	assert.ErrorIs(t, err, loader.ErrUnknownKind)
	assert.Equal(t, "loader.Kind(42)", loader.Kind(42).String())
	assert.Equal(t, "", loader.Kind(42).EnvVar())
}

func TestKindNames(t *testing.T) {
	assert.Equal(t, "libcuda", loader.CUDA.String())
	assert.Equal(t, "libnvrtc", loader.NVRTC.String())
	assert.Equal(t, "NOCGO_CUDA_LIBCUDA", loader.CUDA.EnvVar())
	assert.Equal(t, "NOCGO_CUDA_LIBNVRTC", loader.NVRTC.EnvVar())
}

// isolate clears every variable the search reads, so that the candidates
// come from the test alone.
func isolate(t *testing.T) {
	for _, v := range []string{"NOCGO_CUDA_LIBCUDA", "NOCGO_CUDA_LIBNVRTC", "CUDA_HOME", "CUDA_PATH", "VIRTUAL_ENV", "CONDA_PREFIX"} {
		t.Setenv(v, "")
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("HOME", t.TempDir())
}

func TestCandidateOrder(t *testing.T) {
	isolate(t)
	home := t.TempDir()
	t.Setenv("CUDA_HOME", home)

	got := loader.Candidates(loader.CUDA)
	want := []string{
		"libcuda.so.1", "libcuda.so",
		filepath.Join(home, "lib64", "libcuda.so.1"), filepath.Join(home, "lib64", "libcuda.so"),
		"/usr/local/cuda/lib64/libcuda.so.1", "/usr/local/cuda/lib64/libcuda.so",
		"/usr/lib/wsl/lib/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so",
	}
	assert.Equal(t, want, got)

	got = loader.Candidates(loader.NVRTC)
	want = []string{
		"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so",
		filepath.Join(home, "lib64", "libnvrtc.so.13"), filepath.Join(home, "lib64", "libnvrtc.so.12"),
		filepath.Join(home, "lib64", "libnvrtc.so.11.2"), filepath.Join(home, "lib64", "libnvrtc.so"),
		"/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12",
		"/usr/local/cuda/lib64/libnvrtc.so.11.2", "/usr/local/cuda/lib64/libnvrtc.so",
	}
	assert.Equal(t, want, got)
}

func TestCudaPathAfterCudaHome(t *testing.T) {
	isolate(t)
	t.Setenv("CUDA_HOME", "/opt/a")
	t.Setenv("CUDA_PATH", "/opt/b")
	got := loader.Candidates(loader.CUDA)
	ia := indexOf(got, "/opt/a/lib64/libcuda.so.1")
	ib := indexOf(got, "/opt/b/lib64/libcuda.so.1")
	iu := indexOf(got, "/usr/local/cuda/lib64/libcuda.so.1")
	require.True(t, ia >= 0 && ib >= 0 && iu >= 0, "%v", got)
	assert.Less(t, ia, ib)
	assert.Less(t, ib, iu)
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// mkdir creates the directories of path under root and returns the path.
func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	require.NoError(t, os.MkdirAll(p, 0o755))
	return p
}

func TestPythonWheelLayouts(t *testing.T) {
	isolate(t)

	// A virtual environment with the CUDA 13 wheel layout.
	venv := t.TempDir()
	cu13 := mkdir(t, venv, "lib", "python3.12", "site-packages", "nvidia", "cu13", "lib")
	t.Setenv("VIRTUAL_ENV", venv)

	// The python3 on PATH, in another prefix with the CUDA 12 layout.
	prefix := t.TempDir()
	bin := mkdir(t, prefix, "bin")
	require.NoError(t, os.WriteFile(filepath.Join(bin, "python3"), []byte("#!/bin/sh\nexit 1\n"), 0o755))
	cu12 := mkdir(t, prefix, "lib", "python3.11", "site-packages", "nvidia", "cuda_nvrtc", "lib")
	// A site-packages without NVIDIA wheels adds nothing.
	mkdir(t, prefix, "lib", "python3.10", "site-packages")
	t.Setenv("PATH", bin)

	got := loader.Candidates(loader.NVRTC)
	i13 := indexOf(got, filepath.Join(cu13, "libnvrtc.so.13"))
	i12 := indexOf(got, filepath.Join(cu12, "libnvrtc.so.12"))
	iu := indexOf(got, "/usr/local/cuda/lib64/libnvrtc.so")
	require.True(t, i13 >= 0 && i12 >= 0 && iu >= 0, "%v", got)
	assert.Less(t, iu, i13, "wheel directories come after the toolkit directories")
	assert.Less(t, i13, i12, "the active virtual environment comes before the python3 on PATH")
	for _, c := range got {
		assert.NotContains(t, c, "python3.10", "a site-packages without nvidia/ adds no candidate")
	}

	// Wheels never hold libcuda: the driver's search does not look there.
	for _, c := range loader.Candidates(loader.CUDA) {
		assert.NotContains(t, c, "site-packages")
	}
}

func TestPyenvShim(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	shims := mkdir(t, root, ".pyenv", "shims")
	require.NoError(t, os.WriteFile(filepath.Join(shims, "python3"), []byte("#!/bin/sh\nexit 1\n"), 0o755))
	lib := mkdir(t, root, ".pyenv", "versions", "3.12.4", "lib", "python3.12", "site-packages", "nvidia", "cu13", "lib")
	t.Setenv("PATH", shims)

	assert.Contains(t, loader.Candidates(loader.NVRTC), filepath.Join(lib, "libnvrtc.so.13"))
}

func TestOpenListsEveryCandidate(t *testing.T) {
	requireDL(t)
	isolate(t)
	t.Setenv("CUDA_HOME", t.TempDir())
	lib, err := loader.Open(loader.NVRTC)
	if err == nil {
		t.Skipf("this machine has libnvrtc (%s)", lib.Path())
	}
	var lerr *loader.LibraryError
	require.ErrorAs(t, err, &lerr)
	assert.False(t, lerr.Env)
	assert.Equal(t, loader.Candidates(loader.NVRTC), lerr.Paths())
	for _, a := range lerr.Tried {
		assert.Contains(t, err.Error(), a.Path)
		assert.Error(t, a.Err)
	}
	assert.Contains(t, err.Error(), "set NOCGO_CUDA_LIBNVRTC to its path")
}

func TestSymbolErrorText(t *testing.T) {
	err := &loader.SymbolError{Library: "/lib/libcuda.so.1", Symbol: "cuFuncGetParamInfo", Since: 12040, Have: 12020,
		Err: errors.New("symbol not found")}
	assert.Equal(t, "loader: symbol cuFuncGetParamInfo (CUDA 12.4 and newer) not found in /lib/libcuda.so.1 "+
		"(supports CUDA 12.2): symbol not found", err.Error())
	assert.Equal(t, "13.0", loader.Version(13000))
	assert.Equal(t, "11.2", loader.Version(11020))
}
