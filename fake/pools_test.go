package fake

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// A pool made by cuMemPoolCreate is the user's to destroy: it is listed
// until it is, and the device's default pool never is.
func TestLeaksNameCreatedPools(t *testing.T) {
	b := bound(t)
	def, err := b.DeviceGetDefaultMemPool(0)
	require.NoError(t, err)
	p, err := b.MemPoolCreate(backend.MemPoolProps{
		AllocType: backend.MemAllocationTypePinned,
		Location:  backend.MemLocation{Type: backend.MemLocationDevice, ID: 0},
	})
	require.NoError(t, err)
	var pools []Leak
	for _, l := range b.Leaks() {
		if l.Kind == backend.LeakMemPool {
			pools = append(pools, l)
		}
	}
	require.Equal(t, []Leak{{Kind: backend.LeakMemPool, Handle: p, Device: 0, Site: "pools_test.go:18 (TestLeaksNameCreatedPools)"}}, pools)
	assert.NotEqual(t, def, p)
	assert.Contains(t, pools[0].String(), "memory pool 0x")
	require.NoError(t, b.MemPoolDestroy(p))
	for _, l := range b.Leaks() {
		assert.NotEqual(t, backend.LeakMemPool, l.Kind, "%s", l)
	}
}
