package stream_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/stream"
)

// instant is a backend whose hot-path calls return at once without
// allocating, so that allocations measured through it are this package's.
type instant struct {
	backend.API
	queryResult error
}

func (i *instant) StreamQuery(uintptr) error                      { return i.queryResult }
func (i *instant) EventRecord(uintptr, uintptr) error             { return nil }
func (i *instant) StreamWaitEvent(uintptr, uintptr, uint32) error { return nil }
func (i *instant) EventQuery(uintptr) error                       { return i.queryResult }

func hotPathAllocs(t *testing.T, ctx *driver.Context) {
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	ev, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.DisableTiming})
	require.NoError(t, err)
	defer ev.Close()
	legacy, err := stream.Legacy(ctx)
	require.NoError(t, err)
	defer legacy.Close()
	for name, fn := range map[string]func(){
		"Query":       func() { s.Query() },
		"Record":      func() { ev.Record(s) },
		"Wait":        func() { s.Wait(ev) },
		"Event.Query": func() { ev.Query() },
		"Legacy.Wait": func() { legacy.Wait(ev) }, // binds its context

	} {
		assert.Zero(t, testing.AllocsPerRun(1000, fn), "%s allocates", name)
	}
	require.NoError(t, s.Synchronize())
}

// TestHotPathsAllocateNothing: Query (done and not ready), Record and Wait
// allocate nothing in this package.
func TestHotPathsAllocateNothing(t *testing.T) {
	for _, res := range []error{nil, backend.Check(uintptr(driver.ErrNotReady))} {
		api := &instant{API: fake.NewBackend(fake.Devices(1)), queryResult: res}
		drv, err := driver.New(api)
		require.NoError(t, err)
		hotPathAllocs(t, primary(t, drv))
	}
}

// TestHotPathsAllocateNothingGPU: the same through the real driver.
func TestHotPathsAllocateNothingGPU(t *testing.T) {
	hotPathAllocs(t, primary(t, cudatest.Real(t)))
}
