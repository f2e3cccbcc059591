package fake

import (
	"os"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// TestResidentBlocksFollowOccupancy: a kernel whose blocks wait for the
// grid's last block ends when the grid fits on the device at once and is
// reported as a deadlock when it does not, with the occupancy of the
// device's SMs, threads and shared memory per SM (2 SMs here).
func TestResidentBlocksFollowOccupancy(t *testing.T) {
	src, err := os.ReadFile("internal/ptxexec/testdata/spin_90.ptx")
	require.NoError(t, err)
	for _, c := range []struct {
		name          string
		block, shared uint32
		fits          uint32 // blocks resident at once: per SM times 2
	}{
		{"threads per SM", 1024, 0, 2 * 2},         // 2048 threads per SM
		{"shared memory per SM", 32, 40000, 5 * 2}, // 228 KiB per SM, 1 KiB reserved per block
		{"blocks per SM", 32, 0, 32 * 2},           // 32 blocks per SM
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, grid := range []uint32{c.fits, c.fits + 1} {
				b := bound(t, WithDevice(DeviceSpec{SMs: 2}))
				m, err := b.ModuleLoadData(src)
				require.NoError(t, err, "%v", b.loadError())
				f, err := b.ModuleGetFunction(m, "last_block")
				require.NoError(t, err)
				flag, err := b.MemAlloc(4)
				require.NoError(t, err)
				writeI32(t, b, flag, []int32{0})
				require.NoError(t, b.LaunchKernel(f, [3]uint32{grid, 1, 1}, [3]uint32{c.block, 1, 1}, c.shared, backend.StreamNull, args(unsafe.Pointer(&flag))))
				err = b.CtxSynchronize()
				if grid == c.fits {
					require.NoError(t, err)
					assert.Equal(t, int32(1), readI32(t, b, flag, 1)[0])
					continue
				}
				require.ErrorIs(t, err, driver.ErrLaunchFailed)
				assert.Contains(t, err.Error(), "deadlock: every resident block spins")
				assert.Contains(t, err.Error(), "1 of its")
				require.Error(t, b.kernelFault())
			}
		})
	}
}

// TestHardestLaunch: an empty kernel on the largest grid runs at once; a
// kernel that does something on more blocks than the interpreter can run
// in bounded time is refused at the launch with CUDA_ERROR_NOT_SUPPORTED
// and the reason, nothing run and the context still usable.
func TestHardestLaunch(t *testing.T) {
	src, err := os.ReadFile("internal/ptxexec/testdata/spin_90.ptx")
	require.NoError(t, err)
	b := bound(t)
	m, err := b.ModuleLoadData(src)
	require.NoError(t, err)
	empty, err := b.ModuleGetFunction(m, "empty")
	require.NoError(t, err)
	last, err := b.ModuleGetFunction(m, "last_block")
	require.NoError(t, err)
	flag, err := b.MemAlloc(4)
	require.NoError(t, err)
	writeI32(t, b, flag, []int32{0})

	start := time.Now()
	require.NoError(t, b.LaunchKernel(empty, [3]uint32{1<<31 - 1, 65535, 65535}, [3]uint32{1024, 1, 1}, 0, backend.StreamNull, nil))
	require.NoError(t, b.CtxSynchronize())
	assert.Less(t, time.Since(start), 5*time.Second)

	err = b.LaunchKernel(last, [3]uint32{1<<31 - 1, 1, 1}, [3]uint32{1, 1, 1}, 0, backend.StreamNull, args(unsafe.Pointer(&flag)))
	assert.ErrorIs(t, err, driver.ErrNotSupported)
	assert.ErrorContains(t, err, "last_block on 2147483647 blocks (2147483647 threads): the fake's interpreter runs at most 134217728 blocks")
	require.NoError(t, b.CtxSynchronize())
	assert.Equal(t, int32(0), readI32(t, b, flag, 1)[0], "nothing ran")

	// A grid within the bound runs.
	require.NoError(t, b.LaunchKernel(last, [3]uint32{1000, 1, 1}, [3]uint32{1, 1, 1}, 0, backend.StreamNull, args(unsafe.Pointer(&flag))))
	require.NoError(t, b.CtxSynchronize())
	assert.Equal(t, int32(1), readI32(t, b, flag, 1)[0])
}
