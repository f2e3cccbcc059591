package nccl_test

import (
	"errors"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/nccl"
	"github.com/nocgo/cuda/stream"
)

// The conformance cases run on the fake with two devices (CI) and on the
// real NCCL over two GPUs (TestConformanceGPU): the same code, the same
// results.

func TestConformanceFake(t *testing.T) {
	conformance(t, func(t *testing.T) *driver.Driver { return fakeDriver(t, 2) })
}

func TestConformanceGPU(t *testing.T) {
	conformance(t, func(t *testing.T) *driver.Driver { return realDriver(t, 2) })
}

func conformance(t *testing.T, open func(t *testing.T) *driver.Driver) {
	cases := []struct {
		name string
		run  func(t *testing.T, drv *driver.Driver)
	}{
		{"AllReduce", caseAllReduce},
		{"AllReduceTypes", caseAllReduceTypes},
		{"AllReduceHalf", caseAllReduceHalf},
		{"BroadcastReduce", caseBroadcastReduce},
		{"AllGather", caseAllGather},
		{"ReduceScatter", caseReduceScatter},
		{"SendRecv", caseSendRecv},
		{"NewCommGoroutines", caseNewCommGoroutines},
		{"NewCommConfig", caseNewCommConfig},
		{"Split", caseSplit},
		{"StreamOrder", caseStreamOrder},
		{"Refused", caseRefused},
		{"Closed", caseClosed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, open(t)) })
	}
}

func caseAllReduce(t *testing.T, drv *driver.Driver) {
	r := newRanks(t, drv, 2)
	in := [][]float32{{1, 2, 3, -4}, {10, 20, 30, 40}}
	want := map[nccl.Op][]float32{
		nccl.Sum:  {11, 22, 33, 36},
		nccl.Prod: {10, 40, 90, -160},
		nccl.Max:  {10, 20, 30, 40},
		nccl.Min:  {1, 2, 3, -4},
		nccl.Avg:  {5.5, 11, 16.5, 18},
	}
	for _, op := range []nccl.Op{nccl.Sum, nccl.Prod, nccl.Max, nccl.Min, nccl.Avg} {
		send := []*memory.Buffer[float32]{upload(t, r.ctxs[0], in[0]), upload(t, r.ctxs[1], in[1])}
		recv := []*memory.Buffer[float32]{zeros[float32](t, r.ctxs[0], 4), zeros[float32](t, r.ctxs[1], 4)}
		require.NoError(t, nccl.Group(func() error {
			for i, c := range r.comms {
				if err := nccl.AllReduce(c, r.streams[i], send[i], recv[i], op); err != nil {
					return err
				}
			}
			return nil
		}), op)
		r.sync(t)
		for i := range r.comms {
			assert.Equal(t, want[op], download(t, recv[i]), "%v rank %d", op, i)
			assert.Equal(t, in[i], download(t, send[i]), "%v rank %d: send unchanged", op, i)
		}
	}
	// In place.
	bufs := []*memory.Buffer[float32]{upload(t, r.ctxs[0], in[0]), upload(t, r.ctxs[1], in[1])}
	require.NoError(t, nccl.Group(func() error {
		for i, c := range r.comms {
			if err := nccl.AllReduce(c, r.streams[i], bufs[i], bufs[i], nccl.Sum); err != nil {
				return err
			}
		}
		return nil
	}))
	r.sync(t)
	for i := range r.comms {
		assert.Equal(t, want[nccl.Sum], download(t, bufs[i]), "in place, rank %d", i)
	}
}

func allReduceOf[T nccl.Elem](t *testing.T, r *ranks, in [2][]T, op nccl.Op) [2][]T {
	t.Helper()
	b := [2]*memory.Buffer[T]{upload(t, r.ctxs[0], in[0]), upload(t, r.ctxs[1], in[1])}
	require.NoError(t, nccl.Group(func() error {
		for i, c := range r.comms {
			if err := nccl.AllReduce(c, r.streams[i], b[i], b[i], op); err != nil {
				return err
			}
		}
		return nil
	}))
	r.sync(t)
	return [2][]T{download(t, b[0]), download(t, b[1])}
}

func caseAllReduceTypes(t *testing.T, drv *driver.Driver) {
	r := newRanks(t, drv, 2)
	i8 := allReduceOf(t, r, [2][]int8{{100, -3, 7}, {100, 5, -8}}, nccl.Sum)
	assert.Equal(t, []int8{-56, 2, -1}, i8[1], "int8 sums wrap")
	u8 := allReduceOf(t, r, [2][]uint8{{200, 3}, {100, 5}}, nccl.Max)
	assert.Equal(t, []uint8{200, 5}, u8[0])
	i32 := allReduceOf(t, r, [2][]int32{{7, -7, 3}, {2, 2, 4}}, nccl.Avg)
	assert.Equal(t, []int32{4, -2, 3}, i32[0], "integer avg truncates")
	u32 := allReduceOf(t, r, [2][]uint32{{3, 1 << 31}, {5, 2}}, nccl.Prod)
	assert.Equal(t, []uint32{15, 0}, u32[1])
	i64 := allReduceOf(t, r, [2][]int64{{1 << 40, -1}, {1, -(1 << 50)}}, nccl.Min)
	assert.Equal(t, []int64{1, -(1 << 50)}, i64[0])
	u64 := allReduceOf(t, r, [2][]uint64{{1 << 63, 1}, {1 << 62, 2}}, nccl.Sum)
	assert.Equal(t, []uint64{1<<63 + 1<<62, 3}, u64[1])
	f64 := allReduceOf(t, r, [2][]float64{{0.5, math.Inf(1)}, {0.25, 1}}, nccl.Sum)
	assert.Equal(t, []float64{0.75, math.Inf(1)}, f64[0])
}

func caseAllReduceHalf(t *testing.T, drv *driver.Driver) {
	r := newRanks(t, drv, 2)
	// binary16: 1.0 = 0x3c00, 2.0 = 0x4000, 3.0 = 0x4200, 0.5 = 0x3800, 1.5 = 0x3e00, 2048 = 0x6800.
	// 2048 + 1 = 2049 is not a binary16 number: ties to even give 2048.
	h := allReduceOf(t, r, [2][]nccl.Float16{{0x3c00, 0x6800, 0x3800}, {0x4000, 0x3c00, 0x3c00}}, nccl.Sum)
	assert.Equal(t, []nccl.Float16{0x4200, 0x6800, 0x3e00}, h[0])
	// avg of 1 and 2 is 1.5.
	ha := allReduceOf(t, r, [2][]nccl.Float16{{0x3c00}, {0x4000}}, nccl.Avg)
	assert.Equal(t, []nccl.Float16{0x3e00}, ha[1])
	// bfloat16: the high half of a float32. 1 + 2 = 3; 256 + 1 = 257 rounds to 256 (8 bits of mantissa).
	bf := func(f float32) nccl.BFloat16 { return nccl.BFloat16(math.Float32bits(f) >> 16) }
	b := allReduceOf(t, r, [2][]nccl.BFloat16{{bf(1), bf(256)}, {bf(2), bf(1)}}, nccl.Sum)
	assert.Equal(t, []nccl.BFloat16{bf(3), bf(256)}, b[0])
	bm := allReduceOf(t, r, [2][]nccl.BFloat16{{bf(-1), bf(5)}, {bf(2), bf(-7)}}, nccl.Max)
	assert.Equal(t, []nccl.BFloat16{bf(2), bf(5)}, bm[1])
}

func caseBroadcastReduce(t *testing.T, drv *driver.Driver) {
	r := newRanks(t, drv, 2)
	src := upload(t, r.ctxs[1], []int64{4, 5, 6})
	dst := []*memory.Buffer[int64]{zeros[int64](t, r.ctxs[0], 3), zeros[int64](t, r.ctxs[1], 3)}
	require.NoError(t, nccl.Group(func() error {
		if err := nccl.Broadcast(r.comms[0], r.streams[0], nil, dst[0], 1); err != nil {
			return err
		}
		return nccl.Broadcast(r.comms[1], r.streams[1], src, dst[1], 1)
	}))
	r.sync(t)
	assert.Equal(t, []int64{4, 5, 6}, download(t, dst[0]))
	assert.Equal(t, []int64{4, 5, 6}, download(t, dst[1]))

	in := []*memory.Buffer[int64]{upload(t, r.ctxs[0], []int64{1, 2, 3}), upload(t, r.ctxs[1], []int64{10, 20, 30})}
	out := zeros[int64](t, r.ctxs[0], 3)
	require.NoError(t, nccl.Group(func() error {
		if err := nccl.Reduce(r.comms[0], r.streams[0], in[0], out, nccl.Sum, 0); err != nil {
			return err
		}
		return nccl.Reduce(r.comms[1], r.streams[1], in[1], nil, nccl.Sum, 0)
	}))
	r.sync(t)
	assert.Equal(t, []int64{11, 22, 33}, download(t, out))
}

func caseAllGather(t *testing.T, drv *driver.Driver) {
	r := newRanks(t, drv, 2)
	send := []*memory.Buffer[int32]{upload(t, r.ctxs[0], []int32{1, 2}), upload(t, r.ctxs[1], []int32{3, 4})}
	recv := []*memory.Buffer[int32]{zeros[int32](t, r.ctxs[0], 4), zeros[int32](t, r.ctxs[1], 4)}
	require.NoError(t, nccl.Group(func() error {
		for i, c := range r.comms {
			if err := nccl.AllGather(c, r.streams[i], send[i], recv[i]); err != nil {
				return err
			}
		}
		return nil
	}))
	r.sync(t)
	for i := range r.comms {
		assert.Equal(t, []int32{1, 2, 3, 4}, download(t, recv[i]), "rank %d", i)
	}
	// In place: each rank's part already sits at its slot of recv.
	whole := []*memory.Buffer[int32]{upload(t, r.ctxs[0], []int32{5, 6, 0, 0}), upload(t, r.ctxs[1], []int32{0, 0, 7, 8})}
	require.NoError(t, nccl.Group(func() error {
		for i, c := range r.comms {
			part, err := whole[i].Slice(2*i, 2*i+2)
			if err != nil {
				return err
			}
			if err := nccl.AllGather(c, r.streams[i], part, whole[i]); err != nil {
				return err
			}
		}
		return nil
	}))
	r.sync(t)
	for i := range r.comms {
		assert.Equal(t, []int32{5, 6, 7, 8}, download(t, whole[i]), "in place, rank %d", i)
	}
}

func caseReduceScatter(t *testing.T, drv *driver.Driver) {
	r := newRanks(t, drv, 2)
	send := []*memory.Buffer[float64]{upload(t, r.ctxs[0], []float64{1, 2, 3, 4}), upload(t, r.ctxs[1], []float64{10, 20, 30, 40})}
	recv := []*memory.Buffer[float64]{zeros[float64](t, r.ctxs[0], 2), zeros[float64](t, r.ctxs[1], 2)}
	require.NoError(t, nccl.Group(func() error {
		for i, c := range r.comms {
			if err := nccl.ReduceScatter(c, r.streams[i], send[i], recv[i], nccl.Sum); err != nil {
				return err
			}
		}
		return nil
	}))
	r.sync(t)
	assert.Equal(t, []float64{11, 22}, download(t, recv[0]))
	assert.Equal(t, []float64{33, 44}, download(t, recv[1]))
	// In place: recv is the rank's own block of send.
	require.NoError(t, nccl.Group(func() error {
		for i, c := range r.comms {
			part, err := send[i].Slice(2*i, 2*i+2)
			if err != nil {
				return err
			}
			if err := nccl.ReduceScatter(c, r.streams[i], send[i], part, nccl.Max); err != nil {
				return err
			}
		}
		return nil
	}))
	r.sync(t)
	assert.Equal(t, []float64{10, 20, 3, 4}, download(t, send[0]))
	assert.Equal(t, []float64{10, 20, 30, 40}, download(t, send[1]))
}

func caseSendRecv(t *testing.T, drv *driver.Driver) {
	r := newRanks(t, drv, 2)
	out := []*memory.Buffer[uint8]{upload(t, r.ctxs[0], []uint8{1, 2, 3}), upload(t, r.ctxs[1], []uint8{7, 8, 9})}
	in := []*memory.Buffer[uint8]{zeros[uint8](t, r.ctxs[0], 3), zeros[uint8](t, r.ctxs[1], 3)}
	// Each rank sends to and receives from the other: one group.
	require.NoError(t, nccl.Group(func() error {
		for i, c := range r.comms {
			peer := 1 - i
			if err := nccl.Send(c, r.streams[i], out[i], peer); err != nil {
				return err
			}
			if err := nccl.Recv(c, r.streams[i], in[i], peer); err != nil {
				return err
			}
		}
		return nil
	}))
	r.sync(t)
	assert.Equal(t, []uint8{7, 8, 9}, download(t, in[0]))
	assert.Equal(t, []uint8{1, 2, 3}, download(t, in[1]))
}

// caseNewCommConfig makes non-blocking communicators with bounded CTAs (the
// real NCCL reads the ncclConfig_t this package lays out) and runs an
// AllReduce on each rank from its own goroutine, outside any group.
func caseNewCommConfig(t *testing.T, drv *driver.Driver) {
	ctxs := []*driver.Context{primary(t, drv, 0), primary(t, drv, 1)}
	id, err := nccl.NewUniqueID(ctxs[0])
	require.NoError(t, err)
	cfg := &nccl.Config{NonBlocking: true, MinCTAs: 1, MaxCTAs: 4}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	results := make([][]float64, 2)
	for rank := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[rank] = func() error {
				c, err := nccl.NewComm(ctxs[rank], 2, id, rank, cfg)
				if err != nil {
					return err
				}
				defer c.Close()
				s, err := stream.New(ctxs[rank], stream.Options{})
				if err != nil {
					return err
				}
				defer s.Close()
				b, err := memory.Alloc[float64](ctxs[rank], 2)
				if err != nil {
					return err
				}
				defer b.Close()
				if err := memory.CopyToDevice(b, []float64{float64(rank), 0.25}); err != nil {
					return err
				}
				if err := nccl.AllReduce(c, s, b, b, nccl.Avg); err != nil {
					return err
				}
				if err := s.Synchronize(); err != nil {
					return err
				}
				if err := c.AsyncError(); err != nil {
					return err
				}
				results[rank] = make([]float64, 2)
				return memory.CopyToHost(results[rank], b)
			}()
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	assert.Equal(t, []float64{0.5, 0.25}, results[0])
	assert.Equal(t, []float64{0.5, 0.25}, results[1])
}

// caseNewCommGoroutines is the one-rank-per-process form, with a goroutine
// per rank meeting by UniqueID through its text form.
func caseNewCommGoroutines(t *testing.T, drv *driver.Driver) {
	ctxs := []*driver.Context{primary(t, drv, 0), primary(t, drv, 1)}
	id, err := nccl.NewUniqueID(ctxs[0])
	require.NoError(t, err)
	text, err := id.MarshalText()
	require.NoError(t, err)
	var wg sync.WaitGroup
	results := make([][]int32, 2)
	errs := make([]error, 2)
	for rank := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[rank] = func() error {
				var got nccl.UniqueID
				if err := got.UnmarshalText(text); err != nil {
					return err
				}
				c, err := nccl.NewComm(ctxs[rank], 2, got, rank, nil)
				if err != nil {
					return err
				}
				defer c.Close()
				if c.Rank() != rank || c.Count() != 2 || c.Device() != ctxs[rank].Device() {
					return errors.New("wrong rank, count or device")
				}
				s, err := stream.New(ctxs[rank], stream.Options{})
				if err != nil {
					return err
				}
				defer s.Close()
				b, err := memory.Alloc[int32](ctxs[rank], 2)
				if err != nil {
					return err
				}
				defer b.Close()
				if err := memory.CopyToDevice(b, []int32{int32(rank + 1), int32(10 * (rank + 1))}); err != nil {
					return err
				}
				if err := nccl.AllReduce(c, s, b, b, nccl.Sum); err != nil {
					return err
				}
				if err := s.Synchronize(); err != nil {
					return err
				}
				results[rank] = make([]int32, 2)
				return memory.CopyToHost(results[rank], b)
			}()
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	assert.Equal(t, []int32{3, 30}, results[0])
	assert.Equal(t, []int32{3, 30}, results[1])
}

func caseSplit(t *testing.T, drv *driver.Driver) {
	r := newRanks(t, drv, 2)
	// Different colors: two communicators of one rank each. Key reverses nothing here.
	children := make([]*nccl.Comm, 2)
	require.NoError(t, nccl.Group(func() error {
		for i, c := range r.comms {
			child, err := c.Split(i, 0, nil)
			if err != nil {
				return err
			}
			children[i] = child
		}
		return nil
	}))
	for i, c := range children {
		require.NotNil(t, c)
		assert.Equal(t, 0, c.Rank(), "child %d", i)
		assert.Equal(t, 1, c.Count(), "child %d", i)
		b := upload(t, r.ctxs[i], []float32{float32(i + 1)})
		require.NoError(t, nccl.AllReduce(c, r.streams[i], b, b, nccl.Sum))
		require.NoError(t, r.streams[i].Synchronize())
		assert.Equal(t, []float32{float32(i + 1)}, download(t, b), "a clique of one reduces to itself")
		require.NoError(t, c.Close())
		require.NoError(t, c.Close(), "Close twice")
	}
	// One color, keys reversing the order: rank 0 becomes rank 1. Rank 1 of
	// the parent passes a negative color first in another split: no communicator.
	same := make([]*nccl.Comm, 2)
	require.NoError(t, nccl.Group(func() error {
		for i, c := range r.comms {
			child, err := c.Split(7, 1-i, nil)
			if err != nil {
				return err
			}
			same[i] = child
		}
		return nil
	}))
	assert.Equal(t, 1, same[0].Rank())
	assert.Equal(t, 0, same[1].Rank())
	assert.Equal(t, 2, same[0].Count())
	for _, c := range same {
		require.NoError(t, c.Close())
	}
	none := make([]*nccl.Comm, 2)
	require.NoError(t, nccl.Group(func() error {
		for i, c := range r.comms {
			color := 3
			if i == 1 {
				color = -1
			}
			child, err := c.Split(color, 0, nil)
			if err != nil {
				return err
			}
			none[i] = child
		}
		return nil
	}))
	assert.Nil(t, none[1], "no color, no communicator")
	require.NotNil(t, none[0])
	assert.Equal(t, 1, none[0].Count())
	require.NoError(t, none[0].Close())
}

// caseStreamOrder: a collective sees the work queued before it on each
// rank's stream, and the work after it sees its result.
func caseStreamOrder(t *testing.T, drv *driver.Driver) {
	r := newRanks(t, drv, 2)
	const n = 1 << 16
	bufs := []*memory.Buffer[float32]{zeros[float32](t, r.ctxs[0], n), zeros[float32](t, r.ctxs[1], n)}
	outs := [][]float32{make([]float32, n), make([]float32, n)}
	host := [][]float32{make([]float32, n), make([]float32, n)}
	for i := range host {
		for j := range host[i] {
			host[i][j] = float32(j%1000) * float32(i+1)
		}
	}
	for i := range r.comms {
		require.NoError(t, memory.CopyToDeviceAsync(r.streams[i], bufs[i], host[i]))
	}
	require.NoError(t, nccl.Group(func() error {
		for i, c := range r.comms {
			if err := nccl.AllReduce(c, r.streams[i], bufs[i], bufs[i], nccl.Sum); err != nil {
				return err
			}
		}
		return nil
	}))
	for i := range r.comms {
		require.NoError(t, memory.CopyToHostAsync(r.streams[i], outs[i], bufs[i]))
	}
	// Synchronize rank 1 first: its stream must wait for rank 0's part.
	require.NoError(t, r.streams[1].Synchronize())
	require.NoError(t, r.streams[0].Synchronize())
	for i := range outs {
		for j, v := range outs[i] {
			if v != float32(j%1000)*3 {
				t.Fatalf("rank %d element %d = %v, want %v", i, j, v, float32(j%1000)*3)
			}
		}
	}
}

// caseRefused: arguments the package refuses before NCCL sees them, alike
// on both backends; nothing is queued.
func caseRefused(t *testing.T, drv *driver.Driver) {
	r := newRanks(t, drv, 2)
	c, s := r.comms[0], r.streams[0]
	a := zeros[float32](t, r.ctxs[0], 8)
	b := zeros[float32](t, r.ctxs[0], 4)
	other := zeros[float32](t, r.ctxs[1], 8)

	err := nccl.AllReduce(c, s, a, b, nccl.Sum)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "lengths differ")
	assert.ErrorContains(t, err, "nccl.AllReduce: ")
	assert.ErrorIs(t, nccl.AllReduce(c, s, a, other, nccl.Sum), driver.ErrWrongContext, "recv on the other device")
	assert.ErrorIs(t, nccl.AllReduce(c, r.streams[1], a, a, nccl.Sum), driver.ErrWrongContext, "stream on the other device")
	assert.ErrorIs(t, nccl.AllReduce(c, s, a, a, nccl.Op(9)), driver.ErrInvalidValue, "no such reduction")
	assert.ErrorIs(t, nccl.AllReduce(c, nil, a, a, nccl.Sum), driver.ErrInvalidValue, "nil stream")
	assert.ErrorIs(t, nccl.AllReduce(c, s, nil, a, nccl.Sum), driver.ErrInvalidValue, "nil send")
	assert.ErrorIs(t, nccl.AllReduce[float32](nil, s, a, a, nccl.Sum), driver.ErrInvalidValue, "nil comm")
	part, err := a.Slice(1, 5)
	require.NoError(t, err)
	whole, err := a.Slice(0, 4)
	require.NoError(t, err)
	assert.ErrorIs(t, nccl.AllReduce(c, s, part, whole, nccl.Sum), driver.ErrInvalidValue, "partial overlap")

	assert.ErrorIs(t, nccl.AllGather(c, s, b, b), driver.ErrInvalidValue, "recv must hold 2×send")
	wrongSlot, err := a.Slice(4, 8) // rank 0's slot is [0, 4)
	require.NoError(t, err)
	assert.ErrorIs(t, nccl.AllGather(c, s, wrongSlot, a), driver.ErrInvalidValue, "in place at another rank's slot")
	assert.ErrorIs(t, nccl.ReduceScatter(c, s, b, b, nccl.Sum), driver.ErrInvalidValue, "send must hold 2×recv")
	assert.ErrorIs(t, nccl.Broadcast(c, s, a, a, 2), driver.ErrInvalidValue, "root out of range")
	assert.ErrorIs(t, nccl.Reduce(c, s, a, b, nccl.Sum, 0), driver.ErrInvalidValue, "root's recv too short")
	assert.ErrorIs(t, nccl.Send(c, s, a, 5), driver.ErrInvalidValue, "peer out of range")
	assert.ErrorIs(t, nccl.Recv(c, s, a, -1), driver.ErrInvalidValue, "peer out of range")

	_, err = nccl.NewComm(r.ctxs[0], 2, nccl.UniqueID{}, 2, nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "rank out of range")
	_, err = nccl.NewComms([]*driver.Context{r.ctxs[0], r.ctxs[0]})
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "one device twice")
	_, err = nccl.NewComms(nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = nccl.NewComm(r.ctxs[0], 2, nccl.UniqueID{}, 0, &nccl.Config{MinCTAs: 4, MaxCTAs: 2})
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "MinCTAs > MaxCTAs")

	owned, err := r.ctxs[0].Device().NewContext(driver.ContextOptions{})
	require.NoError(t, err)
	_, err = nccl.NewComms([]*driver.Context{owned})
	assert.ErrorIs(t, err, driver.ErrInvalidContext, "NCCL needs the primary context")
	require.NoError(t, owned.Close())

	// Nothing was queued: the next collective still matches across ranks.
	x := []*memory.Buffer[float32]{upload(t, r.ctxs[0], []float32{1}), upload(t, r.ctxs[1], []float32{2})}
	require.NoError(t, nccl.Group(func() error {
		for i, c := range r.comms {
			if err := nccl.AllReduce(c, r.streams[i], x[i], x[i], nccl.Sum); err != nil {
				return err
			}
		}
		return nil
	}))
	r.sync(t)
	assert.Equal(t, []float32{3}, download(t, x[1]))
}

func caseClosed(t *testing.T, drv *driver.Driver) {
	r := newRanks(t, drv, 2)
	a := zeros[float32](t, r.ctxs[0], 4)
	freed, err := memory.Alloc[float32](r.ctxs[0], 4)
	require.NoError(t, err)
	require.NoError(t, freed.Close())
	assert.ErrorIs(t, nccl.AllReduce(r.comms[0], r.streams[0], freed, a, nccl.Sum), driver.ErrClosed, "freed buffer")

	s, err := stream.New(r.ctxs[0], stream.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	assert.ErrorIs(t, nccl.AllReduce(r.comms[0], s, a, a, nccl.Sum), driver.ErrClosed, "closed stream")

	require.NoError(t, r.comms[0].Abort())
	require.NoError(t, r.comms[1].Close())
	for _, c := range r.comms {
		assert.NoError(t, c.Close(), "Close after Abort or Close is nil")
		assert.NoError(t, c.Abort())
		assert.Zero(t, c.Handle())
		assert.ErrorIs(t, nccl.AllReduce(c, r.streams[c.Rank()], a, a, nccl.Sum), driver.ErrClosed)
		assert.ErrorIs(t, c.AsyncError(), driver.ErrClosed)
		_, err := c.Split(0, 0, nil)
		assert.ErrorIs(t, err, driver.ErrClosed)
	}
}
