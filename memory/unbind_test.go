package memory_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// failPop is a fake whose next cuCtxPopCurrent fails, once armed.
type failPop struct {
	fake.Backend
	armed atomic.Bool
}

func (f *failPop) CtxPopCurrent() (uintptr, error) {
	if f.armed.CompareAndSwap(true, false) {
		return 0, driver.ErrUnknown
	}
	return f.Backend.CtxPopCurrent()
}

var _ backend.API = (*failPop)(nil)

// Freeing a stream-ordered buffer on a special stream binds the context;
// a failed unbind is reported, and the buffer is freed all the same.
func TestFreeAsyncReportsUnbindFailure(t *testing.T) {
	api := &failPop{Backend: fake.NewBackend(fake.Devices(1))}
	drv, err := driver.New(api)
	require.NoError(t, err)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	s, err := stream.Legacy(ctx)
	require.NoError(t, err)
	defer s.Close()
	b, err := memory.AllocAsync[float32](s, 16)
	require.NoError(t, err)

	done := make(chan error, 1)
	go func() {
		api.armed.Store(true)
		done <- b.FreeAsync(s)
	}()
	err = <-done
	require.Error(t, err)
	assert.ErrorIs(t, err, driver.ErrUnknown)
	assert.Contains(t, err.Error(), "memory.Buffer.FreeAsync")
	assert.Contains(t, err.Error(), "cuCtxPopCurrent")
	assert.True(t, b.Closed(), "the memory was freed")
	require.NoError(t, s.Synchronize())
	for _, l := range api.Leaks() {
		assert.Equal(t, backend.LeakPrimaryContext, l.Kind, "left alive: %v", l)
	}
}
