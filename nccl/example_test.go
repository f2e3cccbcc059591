package nccl_test

import (
	"fmt"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/nccl"
	"github.com/nocgo/cuda/stream"
)

// One process driving two GPUs (here the fake's): a communicator per
// device, and an all-reduce over both in one Group.
func Example() {
	drv := fake.New(fake.Devices(2))
	var ccs []*driver.Context
	var streams []*stream.Stream
	var bufs []*memory.Buffer[float32]
	for i := range 2 {
		dev, _ := drv.Device(i)
		cc, _ := dev.PrimaryContext()
		defer cc.Close()
		s, _ := stream.New(cc, stream.Options{})
		defer s.Close()
		b, _ := memory.Alloc[float32](cc, 3)
		defer b.Close()
		_ = memory.CopyToDevice(b, []float32{1, 2, float32(10 * (i + 1))})
		ccs, streams, bufs = append(ccs, cc), append(streams, s), append(bufs, b)
	}
	comms, err := nccl.NewComms(ccs)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() {
		for _, c := range comms {
			c.Close()
		}
	}()
	err = nccl.Group(func() error {
		for i, c := range comms {
			if err := nccl.AllReduce(c, streams[i], bufs[i], bufs[i], nccl.Sum); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := make([]float32, 3)
	_ = streams[1].Synchronize()
	_ = memory.CopyToHost(out, bufs[1])
	fmt.Println(out)
	// Output: [2 4 30]
}

// One rank per process, as across machines: rank 0 makes the id and
// passes its text to the others (here, goroutines standing for processes).
func ExampleNewComm() {
	drv := fake.New(fake.Devices(2))
	ctx0 := primaryOf(drv, 0)
	defer ctx0.Close()
	id, _ := nccl.NewUniqueID(ctx0)
	text := id.String() // an environment variable, a file, an HTTP response...

	var wg sync.WaitGroup
	sums := make([]int64, 2)
	for rank := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cc := primaryOf(drv, rank)
			defer cc.Close()
			id, err := nccl.ParseUniqueID(text)
			if err != nil {
				return
			}
			comm, err := nccl.NewComm(cc, 2, id, rank, nil)
			if err != nil {
				return
			}
			defer comm.Close()
			s, _ := stream.New(cc, stream.Options{})
			defer s.Close()
			b, _ := memory.Alloc[int64](cc, 1)
			defer b.Close()
			_ = memory.CopyToDevice(b, []int64{int64(100 * (rank + 1))})
			_ = nccl.AllReduce(comm, s, b, b, nccl.Max)
			_ = s.Synchronize()
			v := make([]int64, 1)
			_ = memory.CopyToHost(v, b)
			sums[rank] = v[0]
		}()
	}
	wg.Wait()
	fmt.Println(sums)
	// Output: [200 200]
}

func primaryOf(drv *driver.Driver, i int) *driver.Context {
	dev, _ := drv.Device(i)
	cc, _ := dev.PrimaryContext()
	return cc
}
