package nccl_test

import (
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/nccl"
	"github.com/nocgo/cuda/stream"
)

// requireGPUsEnv, with NOCGO_CUDA_REQUIRE_GPU=1, is how many GPUs the
// machine must have: the tests that need two then fail instead of skipping
// where there are fewer (nccl/testdata/gpu.sh sets it to 2).
const requireGPUsEnv = "NOCGO_CUDA_REQUIRE_GPUS"

// realDriver returns the real driver with at least n devices and a working
// NCCL, or skips (fails where the environment says the machine has them).
func realDriver(t *testing.T, n int) *driver.Driver {
	t.Helper()
	drv := cudatest.Real(t)
	must := os.Getenv(cudatest.RequireGPUEnv) == "1"
	want, _ := strconv.Atoi(os.Getenv(requireGPUsEnv))
	count, err := drv.DeviceCount()
	require.NoError(t, err)
	if count < n {
		if must && want >= n {
			t.Fatalf("%s=%d but the machine has %d GPUs", requireGPUsEnv, want, count)
		}
		t.Skipf("needs %d GPUs, the machine has %d", n, count)
	}
	keepPrimaries(t, drv, count)
	ctx := primary(t, drv, 0)
	if _, _, _, err := nccl.Version(ctx); err != nil {
		if must {
			t.Fatalf("no NCCL on a GPU machine: %v", err)
		}
		t.Skipf("no NCCL: %v", err)
	}
	return drv
}

// kept holds one reference to each GPU's primary context for the rest of
// the process, as the CUDA runtime inside NCCL does: NCCL keeps per-device
// state for the process, so the tests never let a primary context end
// between cases (each case retains and releases its own reference on top).
var kept sync.Map // device ordinal -> *driver.Context

func keepPrimaries(t *testing.T, drv *driver.Driver, n int) {
	t.Helper()
	for i := range n {
		if _, ok := kept.Load(i); ok {
			continue
		}
		dev, err := drv.Device(i)
		require.NoError(t, err)
		ctx, err := dev.PrimaryContext()
		require.NoError(t, err)
		kept.Store(i, ctx)
	}
}

// fakeDriver is the fake with n devices, checked for leaks at the end.
func fakeDriver(t *testing.T, n int) *driver.Driver {
	t.Helper()
	drv := fake.New(fake.Devices(n))
	t.Cleanup(func() {
		if !t.Failed() {
			require.Empty(t, fake.Of(drv).Leaks(), "leaks")
		}
	})
	return drv
}

func primary(t testing.TB, drv *driver.Driver, i int) *driver.Context {
	t.Helper()
	dev, err := drv.Device(i)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ctx.Close()) })
	return ctx
}

// ranks is one process's view of n ranks: a context, a stream and a
// communicator per device, from NewComms.
type ranks struct {
	ctxs    []*driver.Context
	streams []*stream.Stream
	comms   []*nccl.Comm
}

func newRanks(t testing.TB, drv *driver.Driver, n int) *ranks {
	t.Helper()
	r := &ranks{}
	for i := range n {
		ctx := primary(t, drv, i)
		s, err := stream.New(ctx, stream.Options{})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, s.Close()) })
		r.ctxs = append(r.ctxs, ctx)
		r.streams = append(r.streams, s)
	}
	comms, err := nccl.NewComms(r.ctxs)
	require.NoError(t, err)
	r.comms = comms
	t.Cleanup(func() {
		for _, c := range comms {
			require.NoError(t, c.Close())
		}
	})
	return r
}

// sync waits for every rank's stream.
func (r *ranks) sync(t testing.TB) {
	t.Helper()
	for _, s := range r.streams {
		require.NoError(t, s.Synchronize())
	}
}

// upload makes a buffer on rank i's device holding v.
func upload[T any](t testing.TB, ctx *driver.Context, v []T) *memory.Buffer[T] {
	t.Helper()
	b, err := memory.Alloc[T](ctx, len(v))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	require.NoError(t, memory.CopyToDevice(b, v))
	return b
}

func download[T any](t testing.TB, b *memory.Buffer[T]) []T {
	t.Helper()
	out := make([]T, b.Len())
	require.NoError(t, memory.CopyToHost(out, b))
	return out
}

func zeros[T any](t testing.TB, ctx *driver.Context, n int) *memory.Buffer[T] {
	return upload(t, ctx, make([]T, n))
}
