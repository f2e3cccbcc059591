package driver_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"
)

func TestLoadNVRTCMissing(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBNVRTC", "/nonexistent/libnvrtc.so.12")
	nv, err := driver.LoadNVRTC()
	assert.Nil(t, nv)
	var lerr *loader.LibraryError
	require.ErrorAs(t, err, &lerr)
	assert.Equal(t, []string{"/nonexistent/libnvrtc.so.12"}, lerr.Paths())
	assert.Regexp(t, `^driver\.LoadNVRTC: `, err.Error())
}

// LoadNVRTC needs no libcuda (there is none on this machine when the
// driver does not load) and compiles CUDA C to PTX.
func TestLoadNVRTC(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBCUDA", "/nonexistent/libcuda.so.1")
	nv, err := driver.LoadNVRTC()
	if err != nil {
		if os.Getenv("NOCGO_CUDA_REQUIRE_NVRTC") == "1" {
			t.Fatalf("NOCGO_CUDA_REQUIRE_NVRTC=1 but libnvrtc does not load: %v", err)
		}
		t.Skipf("no libnvrtc: %v", err)
	}
	assert.Equal(t, "libnvrtc", nv.Implementation())
	paths := nv.(backend.LibraryPaths).LibraryPaths()
	require.Len(t, paths, 1)
	assert.Contains(t, paths[0], "libnvrtc")
	major, _, err := nv.Version()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, major, 11)
	h, err := nv.CreateProgram(`extern "C" __global__ void k(int* p) { p[threadIdx.x] = 7; }`, "k.cu", nil, nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, nv.DestroyProgram(h)) }()
	require.NoError(t, nv.Compile(h, []string{"--gpu-architecture=compute_80"}))
	ptx, err := nv.PTX(h)
	require.NoError(t, err)
	assert.Contains(t, string(ptx), ".visible .entry k(")
}
