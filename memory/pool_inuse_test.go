package memory_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
)

// An owned pool made current is not destroyed under the buffers AllocAsync
// took from it: Close is refused with ErrPoolInUse and changes nothing,
// until they are closed.
func TestPoolCloseRefusedUnderAllocAsyncBuffers(t *testing.T) {
	drv, ctx, s := setup(t)
	p, err := memory.NewPool(ctx, memory.PoolOptions{})
	require.NoError(t, err)
	def, err := memory.DefaultPool(ctx)
	require.NoError(t, err)
	defer def.Close()
	require.NoError(t, p.SetCurrent())
	b, err := memory.AllocAsync[float32](s, 256)
	require.NoError(t, err)
	require.NoError(t, memory.Fill(s, b, 1))

	err = p.Close()
	require.ErrorIs(t, err, memory.ErrPoolInUse)
	_, err = p.Stats()
	require.NoError(t, err, "a refused Close leaves the pool open")
	out := make([]float32, 256)
	require.NoError(t, memory.CopyToHost(out, b))
	assert.Equal(t, float32(1), out[255], "the buffer still works")

	require.NoError(t, b.Close())
	require.NoError(t, p.Close())
	cur, err := memory.CurrentPool(ctx)
	require.NoError(t, err)
	assert.Equal(t, def.Handle(), cur.Handle(), "the default pool is current again")
	require.NoError(t, cur.Close())

	// Memory the pool backs that this package did not allocate (another
	// library's cuMemAllocAsync) keeps it too: the driver counts it.
	p, err = memory.NewPool(ctx, memory.PoolOptions{})
	require.NoError(t, err)
	require.NoError(t, p.SetCurrent())
	var api backend.API = fake.Of(drv).Backend()
	ptr, err := api.MemAllocAsync(64, s.Handle()) // stream-scoped: no context to bind
	require.NoError(t, err)
	require.NoError(t, s.Synchronize())
	require.ErrorIs(t, p.Close(), memory.ErrPoolInUse)
	require.NoError(t, api.MemFreeAsync(ptr, s.Handle()))
	require.NoError(t, p.Close())
}
