//go:build linux && (amd64 || arm64)

package libcublas

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// A missing library is an error naming the path tried, for both libraries.
func TestOpenMissing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("NOCGO_CUDA_LIBCUBLAS", filepath.Join(dir, "libcublas.so.13"))
	_, err := Open()
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "libcublas.so.13"))
	t.Setenv("NOCGO_CUDA_LIBCUBLASLT", filepath.Join(dir, "libcublasLt.so.13"))
	_, err = OpenLt()
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "libcublasLt.so.13"))
}

// Every entry point has a name, and the names are the _v2 ones where
// cuBLAS exports those.
func TestSymbolNames(t *testing.T) {
	seen := map[string]bool{}
	for i, e := range symEntries {
		require.NotEmpty(t, e.Name, "symbol %d", i)
		seen[e.Name] = true
	}
	for f, syms := range familySyms {
		for p, s := range syms {
			routine := strings.ToLower(strings.TrimPrefix(symEntries[s].Name, "cublas"))
			assert.Contains(t, routine, []string{"s", "d", "c", "z"}[p], "family %d, precision %d", f, p)
		}
	}
	for _, n := range []string{"cublasSgemm_v2", "cublasCreate_v2", "cublasIzamax_v2", "cublasScnrm2_v2", "cublasZdotc_v2",
		"cublasGemmEx", "cublasGemmStridedBatchedEx", "cublasDgeam", "cublasCgemmBatched"} {
		assert.True(t, seen[n], n)
	}
	for _, e := range ltSymEntries {
		assert.NotEmpty(t, e.Name)
	}
}

// Host scalars are stored in the routine's representation and selected
// by the mask; device scalars pass their pointer.
func TestScalars(t *testing.T) {
	var sc scalars
	o := sc.base()
	assert.Equal(t, ^uintptr(0), sc.set(0, backend.BLASComplex64, backend.HostScalar(complex(1.5, -2))))
	assert.Equal(t, uint64(0xc00000003fc00000), sc[o], "cuComplex{1.5, -2}")
	assert.Equal(t, uintptr(0), sc.set(1, backend.BLASFloat32, backend.DeviceScalar(0x1000)))
	assert.Equal(t, ^uintptr(0), sc.setData(1, backend.DataR16F, backend.HostScalar(1)))
	assert.Equal(t, uint64(0x3c00), sc[o+2], "__half 1.0")
	assert.Equal(t, ^uintptr(0), sc.set(0, backend.BLASComplex128, backend.HostScalar(complex(0.25, -3))))
	assert.Equal(t, complex(0.25, -3), sc.value(backend.BLASComplex128))
	for _, c := range []struct {
		x float64
		h uint16
	}{{65504, 0x7bff}, {65520, 0x7c00}, {-2, 0xc000}, {0x1p-24, 1}, {0x1p-25, 0}, {1 + 0x1p-11, 0x3c00}, {1 + 3*0x1p-11, 0x3c02}, {0x1p-14, 0x0400}} {
		assert.Equal(t, c.h, halfOf(c.x), "%v", c.x)
	}
}

// Both slots are 16-byte aligned wherever the array lands (cuBLAS loads a
// host cuDoubleComplex with aligned instructions): on the stack at either
// 8-byte phase, and in memory laid out at both phases on purpose.
func TestScalarsAligned(t *testing.T) {
	var sc scalars
	checkAligned(t, &sc)
	var mem [7]uint64
	for i := range 2 {
		p := (*scalars)(unsafe.Pointer(&mem[i]))
		checkAligned(t, p)
	}
}

func checkAligned(t *testing.T, sc *scalars) {
	t.Helper()
	o := sc.base()
	assert.Zero(t, uintptr(unsafe.Pointer(&sc[o]))%16, "slot 0 at %p", &sc[o])
	assert.Zero(t, uintptr(unsafe.Pointer(&sc[o+2]))%16, "slot 1 at %p", &sc[o+2])
	sc.set(1, backend.BLASComplex128, backend.HostScalar(complex(7, 8)))
	assert.Equal(t, complex(7, 8), *(*complex128)(unsafe.Pointer(&sc[o+2])))
}

// The real library, where there is one: create a handle without a GPU
// context fails cleanly or works; nothing crashes. (The full checks run
// through package cublas on the GPU.)
func TestOpenReal(t *testing.T) {
	if os.Getenv("NOCGO_CUDA_REQUIRE_GPU") != "1" {
		t.Skip("NOCGO_CUDA_REQUIRE_GPU=1 runs this on a GPU machine")
	}
	l, err := Open()
	require.NoError(t, err)
	t.Log("libcublas:", l.Path())
	lt, err := OpenLt()
	require.NoError(t, err)
	assert.Greater(t, lt.Version(), 110000)
}
