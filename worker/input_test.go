package worker_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
	"github.com/nocgo/cuda/worker"
)

type withInts struct{ S []int32 }

func noop(*worker.Env, int32) (int32, error) { return 0, nil }

// Registrations are made at package level, as the package requires (the
// workers, this binary, make the same ones).
var (
	first     = worker.Register("test.sum.int32", noop)
	taken     = worker.Register("test.sum.int32", noop)
	unnamed   = worker.Register("", noop)
	nilFn     = worker.Register[int32, int32]("test.nil", nil)
	intsArg   = worker.Register("test.ints", func(*worker.Env, withInts) (int32, error) { return 0, nil })
	bufResult = worker.Register("test.bufresult", func(*worker.Env, int32) (worker.Buffer[float32], error) { return worker.Buffer[float32]{}, nil })
)

func TestRegisterRefusals(t *testing.T) {
	bg := context.Background()
	assert.Equal(t, "test.sum.int32", first.Name())
	_, err := taken.Call(bg, nil, 1)
	assert.ErrorContains(t, err, "taken")
	_, err = unnamed.Call(bg, nil, 1)
	assert.ErrorContains(t, err, "empty name")
	_, err = nilFn.Call(bg, nil, 1)
	assert.ErrorContains(t, err, "nil function")
	_, err = intsArg.Call(bg, nil, withInts{[]int32{1}})
	assert.ErrorContains(t, err, "not plain data")
	_, err = bufResult.Call(bg, nil, 1)
	assert.ErrorContains(t, err, "result type")
	_, err = first.Call(bg, nil, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "nil pool")
	var nilFunc *worker.Func[int32, int32]
	_, err = nilFunc.Call(bg, nil, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

func TestCallRefusals(t *testing.T) {
	drv := cudatest.Fake(t, fakeDevices(2))
	ctx0, ctx1 := primary(t, drv, 0), primary(t, drv, 1)
	_, err := worker.New(worker.Options{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "no context")
	_, err = worker.New(worker.Options{PerDevice: -1}, ctx0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = worker.New(worker.Options{}, ctx0, ctx0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "two contexts of one device")
	_, err = worker.New(worker.Options{}, nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)

	p, err := worker.New(worker.Options{}, ctx0)
	require.NoError(t, err)
	bg := context.Background()
	_, err = scale.Call(bg, p, markArg{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "the zero Buffer")
	b1, err := memory.Alloc[float32](ctx1, 4)
	require.NoError(t, err)
	defer b1.Close()
	_, err = scale.Call(bg, p, markArg{Buf: worker.Share(b1)})
	assert.ErrorIs(t, err, driver.ErrWrongContext, "a device the pool has no worker for")

	freed, err := memory.Alloc[float32](ctx0, 4)
	require.NoError(t, err)
	ref := worker.Share(freed)
	require.NoError(t, freed.Close())
	_, err = scale.Call(bg, p, markArg{Buf: ref})
	assert.Error(t, err, "a freed buffer")
	assert.Empty(t, worker.Share[float32](nil).Len())

	s, err := stream.New(ctx0, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	async, err := memory.AllocAsync[float32](s, 4)
	require.NoError(t, err)
	require.NoError(t, s.Synchronize())
	_, err = scale.Call(bg, p, markArg{Buf: worker.Share(async)})
	assert.ErrorContains(t, err, "stream-ordered", "pool memory cannot be exported")
	require.NoError(t, async.FreeAsync(s))
	require.NoError(t, s.Synchronize())

	cancelled, cancel := context.WithCancel(bg)
	cancel()
	_, err = sum.Call(cancelled, p, [4]int64{})
	assert.ErrorIs(t, err, context.Canceled)

	var nilEnv *worker.Env
	_, err = worker.Buffer[float32]{}.Open(nilEnv)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = nilEnv.Context()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)

	require.NoError(t, p.Close())
	require.NoError(t, p.Close(), "a second Close is a no-op")
	_, err = sum.Call(bg, p, [4]int64{})
	assert.ErrorIs(t, err, driver.ErrClosed)
	var nilPool *worker.Pool
	assert.ErrorIs(t, nilPool.Close(), driver.ErrInvalidValue)
	_, err = sum.Call(bg, nilPool, [4]int64{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

// CallAfter orders the worker after the parent's queued work, with no
// host synchronization.
func TestFakeCallAfter(t *testing.T) { callAfter(t, cudatest.Fake(t)) }

func TestGPUCallAfter(t *testing.T) {
	if os.Getenv(cudatest.RequireGPUEnv) != "1" {
		t.Skip("needs the GPU: NOCGO_CUDA_REQUIRE_GPU=1")
	}
	callAfter(t, cudatest.Real(t))
}

func callAfter(t *testing.T, drv *driver.Driver) {
	ctx := primary(t, drv, 0)
	buf, err := memory.Alloc[float32](ctx, 4)
	require.NoError(t, err)
	defer buf.Close()
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	p, err := worker.New(worker.Options{}, ctx)
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, memory.Fill(s, buf, 3))
	_, err = scale.CallAfter(context.Background(), p, s, markArg{worker.Share(buf), 2})
	require.NoError(t, err)
	got, err := memory.ToSlice(buf)
	require.NoError(t, err)
	assert.Equal(t, []float32{6, 6, 6, 6}, got)
	_, err = scale.CallAfter(context.Background(), p, nil, markArg{worker.Share(buf), 2})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

// Zero values never panic: they are refused.
func TestZeroValues(t *testing.T) {
	bg := context.Background()
	var zf worker.Func[int32, int32]
	_, err := zf.Call(bg, nil, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Empty(t, zf.Name())
	var zp worker.Pool
	assert.ErrorIs(t, zp.Close(), driver.ErrInvalidValue)
	assert.Empty(t, zp.Workers())
	_, err = first.Call(bg, &zp, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	var ze worker.Env
	_, err = ze.Driver()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = ze.Stream()
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Zero(t, ze.Process())
	_, err = worker.Buffer[float32]{}.Open(&ze)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	var zb worker.Buffer[float32]
	assert.Equal(t, -1, zb.Device())
	assert.Zero(t, zb.Len())
	var ce worker.CallError
	assert.NotEmpty(t, ce.Error())
	assert.Empty(t, ce.Unwrap())
	assert.Equal(t, "Failure(0)", worker.Failure(0).String())
}
