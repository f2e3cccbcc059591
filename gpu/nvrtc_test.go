package gpu_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/loader"
)

func TestLoadNVRTCMissing(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBNVRTC", "/nonexistent/libnvrtc.so.12")
	nv, err := gpu.LoadNVRTC()
	assert.Nil(t, nv)
	var lerr *loader.LibraryError
	require.ErrorAs(t, err, &lerr)
	assert.Equal(t, []string{"/nonexistent/libnvrtc.so.12"}, lerr.Paths())
	assert.Regexp(t, `^gpu\.LoadNVRTC: `, err.Error())
}

// LoadNVRTC needs no libcuda (there is none on this machine when the
// driver does not load) and compiles CUDA C to PTX.
func TestLoadNVRTC(t *testing.T) {
	t.Setenv("NOCGO_CUDA_LIBCUDA", "/nonexistent/libcuda.so.1")
	nv, err := gpu.LoadNVRTC()
	if err != nil {
		if os.Getenv("NOCGO_CUDA_REQUIRE_NVRTC") == "1" {
			t.Fatalf("NOCGO_CUDA_REQUIRE_NVRTC=1 but libnvrtc does not load: %v", err)
		}
		t.Skipf("no libnvrtc: %v", err)
	}
	assert.Equal(t, "libnvrtc", nv.Implementation())
	assert.Contains(t, nv.LibraryPath(), "libnvrtc")
	major, _, err := nv.Version()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, major, 11)

	// The compiler the fake is given (fake.NVRTC) compiles CUDA C.
	c := core.NVRTCOf(nv)
	require.NotNil(t, c)
	h, err := c.CreateProgram(`extern "C" __global__ void k(int* p) { p[threadIdx.x] = 7; }`, "k.cu", nil, nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, c.DestroyProgram(h)) }()
	require.NoError(t, c.Compile(h, []string{"--gpu-architecture=compute_80"}))
	ptx, err := c.PTX(h)
	require.NoError(t, err)
	assert.Contains(t, string(ptx), ".visible .entry k(")

	// Each call returns a new value over the same library.
	nv2, err := gpu.LoadNVRTC()
	require.NoError(t, err)
	assert.NotSame(t, nv, nv2)
	assert.Equal(t, nv.LibraryPath(), nv2.LibraryPath())
}
