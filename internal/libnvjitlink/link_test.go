//go:build linux && (amd64 || arm64)

package libnvjitlink

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"
)

func TestOpenMissingLibraryListsThePath(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBNVJITLINK", "/nonexistent/libnvJitLink.so.13")
	_, err := Open()
	var lerr *loader.LibraryError
	require.ErrorAs(t, err, &lerr)
	assert.Equal(t, []string{"/nonexistent/libnvJitLink.so.13"}, lerr.Paths())
}

// Over a library without nvJitLink (libc), bad input is refused before any
// entry point is looked up, and a missing entry point is a SymbolError
// naming itself and the CUDA version that has it.
func TestLinkRefusalsAndMissingSymbols(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBNVJITLINK", "libc.so.6")
	jl, err := Open()
	require.NoError(t, err)
	for name, in := range map[string]backend.JITLinkInput{
		"no data":      {Kind: backend.JITLinkLTOIR, Name: "a"},
		"unknown kind": {Kind: 99, Data: []byte("x"), Name: "a"},
		"NUL in name":  {Kind: backend.JITLinkPTX, Data: []byte("x"), Name: "a\x00b"},
	} {
		_, _, err := jl.Link([]string{"-arch=sm_90"}, []backend.JITLinkInput{in})
		var je *backend.JITLinkError
		require.ErrorAs(t, err, &je, name)
		assert.Equal(t, 3, je.Code, name)
		assert.Equal(t, "NVJITLINK_ERROR_INVALID_INPUT", je.Name)
	}
	_, _, err = jl.Link([]string{"-arch=sm_90\x00"}, nil)
	var je *backend.JITLinkError
	require.ErrorAs(t, err, &je)
	assert.Equal(t, "NVJITLINK_ERROR_UNRECOGNIZED_OPTION", je.Name)

	_, _, err = jl.Link([]string{"-arch=sm_90"}, []backend.JITLinkInput{{Kind: backend.JITLinkLTOIR, Data: []byte("x"), Name: "a"}})
	var serr *loader.SymbolError
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "nvJitLinkCreate", serr.Symbol)
	assert.Equal(t, 12000, serr.Since)
	_, _, err = jl.Version()
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "nvJitLinkVersion", serr.Symbol)
}

func TestResultNames(t *testing.T) {
	assert.NoError(t, result("nvJitLinkComplete", 0))
	err := result("nvJitLinkComplete", 5|0xffffffff00000000)
	var je *backend.JITLinkError
	require.ErrorAs(t, err, &je)
	assert.Equal(t, 5, je.Code, "the low 32 bits")
	assert.Equal(t, "nvJitLinkComplete: NVJITLINK_ERROR_NVVM_COMPILE", err.Error())
	assert.Equal(t, "NVJITLINK_ERROR_99", result("x", 99).(*backend.JITLinkError).Name)
	je.Log = "line 1"
	assert.Equal(t, "nvJitLinkComplete: NVJITLINK_ERROR_NVVM_COMPILE:\nline 1", je.Error())
}
