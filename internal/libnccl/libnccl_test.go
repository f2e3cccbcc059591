//go:build linux && (amd64 || arm64)

package libnccl

import (
	"errors"
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"
)

func TestConfigLayout(t *testing.T) {
	c, name, err := newConfig(&backend.NCCLConfig{Blocking: 0, CGAClusterSize: backend.NCCLConfigUndef, MinCTAs: 2, MaxCTAs: 8, SplitShare: 1, NetName: "Socket"})
	require.NoError(t, err)
	raw := unsafe.Slice((*byte)(unsafe.Pointer(c)), unsafe.Sizeof(*c))
	word := func(off int) uint32 { return *(*uint32)(unsafe.Pointer(&raw[off])) }
	assert.Equal(t, uintptr(48), *(*uintptr)(unsafe.Pointer(&raw[0])), "size")
	assert.Equal(t, uint32(0xcafebeef), word(8), "magic")
	assert.Equal(t, uint32(21800), word(12), "version")
	assert.Equal(t, uint32(0), word(16), "blocking")
	assert.Equal(t, uint32(0x80000000), word(20), "cgaClusterSize: NCCL_CONFIG_UNDEF_INT")
	assert.Equal(t, uint32(2), word(24))
	assert.Equal(t, uint32(8), word(28))
	assert.Equal(t, unsafe.Pointer(unsafe.SliceData(name)), *(*unsafe.Pointer)(unsafe.Pointer(&raw[32])), "netName")
	assert.Equal(t, "Socket\x00", string(name))
	assert.Equal(t, uint32(1), word(40), "splitShare")

	none, _, err := newConfig(nil)
	require.NoError(t, err)
	assert.Nil(t, none, "nil: NCCL's defaults")
	_, _, err = newConfig(&backend.NCCLConfig{NetName: "a\x00b"})
	assert.Error(t, err)
}

// TestOpen opens libnccl where there is one; elsewhere it checks that the
// error lists where it looked.
func TestOpen(t *testing.T) {
	l, err := Open()
	if err != nil {
		var le *loader.LibraryError
		require.True(t, errors.As(err, &le), "%v", err)
		assert.Contains(t, err.Error(), "libnccl.so.2")
		if os.Getenv("NOCGO_CUDA_REQUIRE_GPU") == "1" {
			t.Fatalf("no libnccl on a GPU machine: %v", err)
		}
		return
	}
	v, err := l.Version()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, v, 21800, "NCCL 2.18 or later")
	t.Logf("libnccl %s: version %d", l.Path(), v)
	assert.Contains(t, l.errorString(backend.NCCLInvalidArgument), "invalid argument")
}
