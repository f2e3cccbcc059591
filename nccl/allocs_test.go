package nccl_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/nccl"
)

// countingAPI is the fake whose NCCL queues nothing on AllReduce and the
// group calls (it counts them): what is left is this package's own cost,
// which must allocate nothing, on any backend.
type countingAPI struct {
	fake.Backend
	n *countingNCCL
}

func (a countingAPI) NCCL() (backend.NCCL, error) { return a.n, nil }

type countingNCCL struct {
	backend.NCCL
	calls int
}

func (c *countingNCCL) AllReduce(_, _, _ uintptr, _ backend.NCCLDataType, _ backend.NCCLRedOp, _, _ uintptr) error {
	c.calls++
	return nil
}
func (c *countingNCCL) GroupStart() error { return nil }
func (c *countingNCCL) GroupEnd() error   { return nil }

func TestAllReduceAllocatesNothing(t *testing.T) {
	be := fake.NewBackend(fake.Devices(2))
	real, err := be.NCCL()
	require.NoError(t, err)
	counting := &countingNCCL{NCCL: real}
	drv, err := driver.New(countingAPI{be, counting})
	require.NoError(t, err)
	r := newRanks(t, drv, 2)
	bufs := []*memory.Buffer[float32]{zeros[float32](t, r.ctxs[0], 1024), zeros[float32](t, r.ctxs[1], 1024)}
	allReduce := func() error {
		for i, c := range r.comms {
			if err := nccl.AllReduce(c, r.streams[i], bufs[i], bufs[i], nccl.Sum); err != nil {
				return err
			}
		}
		return nil
	}
	require.NoError(t, nccl.Group(allReduce)) // the group state is made once per thread
	allocs := testing.AllocsPerRun(100, func() {
		if err := nccl.Group(allReduce); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs, "allocations per Group of two AllReduce calls")
	require.Equal(t, 2*(1+100+1), counting.calls, "every call reached NCCL") // AllocsPerRun runs once more to warm up
	allocs = testing.AllocsPerRun(100, func() {
		if err := nccl.AllReduce(r.comms[0], r.streams[0], bufs[0], bufs[0], nccl.Avg); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs, "allocations per AllReduce outside a group")
	require.Equal(t, 2*(1+100+1)+101, counting.calls)
}
