//go:build linux && (amd64 || arm64)

package libnvrtc

import (
	"testing"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/symtab"
	"github.com/nocgo/cuda/loader"
)

// testNVRTC builds the real NVRTC backend over libc, opened through the
// loader: entry points named in impl resolve to libc functions, the others
// are missing.
func testNVRTC(t *testing.T, impl map[nvsym]string) *libnvrtc {
	t.Helper()
	t.Setenv("NOCGO_CUDA_LIBNVRTC", "libc.so.6")
	n, err := openLibnvrtc()
	require.NoError(t, err)
	n.syms = symtab.New(int(numNVSyms), func(i int) (uintptr, error) {
		if name, ok := impl[nvsym(i)]; ok {
			return n.lib.Symbol(name)
		}
		return n.resolve(nvsym(i))
	})
	return n
}

func TestNVRTCMissingLibrary(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBNVRTC", "/nonexistent/libnvrtc.so.13")
	_, err := openLibnvrtc()
	var lerr *loader.LibraryError
	require.ErrorAs(t, err, &lerr)
	assert.Equal(t, []string{"/nonexistent/libnvrtc.so.13"}, lerr.Paths())
}

// Errors are named by nvrtcGetErrorString (here libc's strerror stands in
// for it), and only the low 32 bits of the result register count.
func TestNVRTCErrorNames(t *testing.T) {
	n := testNVRTC(t, map[nvsym]string{nvGetErrorString: "strerror"})
	assert.NoError(t, n.check("nvrtcCompileProgram", 0))
	assert.NoError(t, n.check("nvrtcCompileProgram", 1<<32))
	err := n.check("nvrtcCompileProgram", 1<<32|2)
	var nerr *backend.NVRTCError
	require.ErrorAs(t, err, &nerr)
	assert.Equal(t, 2, nerr.Code)
	assert.Equal(t, "No such file or directory", nerr.Name) // strerror(ENOENT)
	assert.Equal(t, "nvrtcCompileProgram: No such file or directory", err.Error())
}

func TestNVRTCErrorNameWithoutGetErrorString(t *testing.T) {
	n := testNVRTC(t, nil)
	err := n.check("nvrtcGetPTX", backend.NVRTCErrorCompilation)
	var nerr *backend.NVRTCError
	require.ErrorAs(t, err, &nerr)
	assert.Equal(t, "NVRTC_ERROR_6", nerr.Name)
}

func TestNVRTCMissingEntryPoint(t *testing.T) {
	n := testNVRTC(t, nil)
	_, _, err := n.Version()
	var serr *loader.SymbolError
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "nvrtcVersion", serr.Symbol)
	assert.Equal(t, 7000, serr.Since)
	_, err = n.CUBIN(1)
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "nvrtcGetCUBINSize", serr.Symbol)
	assert.Equal(t, 11010, serr.Since)
}

// Input C cannot represent is refused before any call, with NVRTC's codes.
func TestNVRTCInputChecks(t *testing.T) {
	n := testNVRTC(t, map[nvsym]string{
		nvCreateProgram: "labs", nvCompileProgram: "labs", nvAddNameExpression: "labs", nvGetLoweredName: "labs",
	})
	var nerr *backend.NVRTCError
	_, err := n.CreateProgram("src", "a.cu", []string{"#define X 1"}, nil)
	require.ErrorAs(t, err, &nerr)
	assert.Equal(t, backend.NVRTCErrorInvalidInput, nerr.Code)
	assert.Equal(t, "nvrtcCreateProgram", nerr.Op)
	_, err = n.CreateProgram("a\x00b", "a.cu", nil, nil)
	require.ErrorAs(t, err, &nerr)
	assert.Equal(t, backend.NVRTCErrorInvalidInput, nerr.Code)
	_, err = n.CreateProgram("src", "a.cu", []string{"x\x00"}, []string{"x.h"})
	require.ErrorAs(t, err, &nerr)
	assert.Equal(t, backend.NVRTCErrorInvalidInput, nerr.Code)

	err = n.Compile(0, []string{"-arch=sm_90", "bad\x00"})
	require.ErrorAs(t, err, &nerr)
	assert.Equal(t, backend.NVRTCErrorInvalidOption, nerr.Code)
	err = n.AddNameExpression(0, "k\x00")
	require.ErrorAs(t, err, &nerr)
	assert.Equal(t, backend.NVRTCErrorInvalidInput, nerr.Code)
	_, err = n.LoweredName(0, "k\x00")
	require.ErrorAs(t, err, &nerr)
	assert.Equal(t, backend.NVRTCErrorNameExprNotValid, nerr.Code)

	// The entry points are called with the program handle first: labs(0)
	// is success.
	assert.NoError(t, n.Compile(0, []string{"-arch=sm_90", "-default-device"}))
	assert.NoError(t, n.Compile(0, nil))
	assert.NoError(t, n.AddNameExpression(0, "k<int>"))
}
