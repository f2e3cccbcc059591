package memory_test

import (
	"fmt"
	"math"

	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// A pool of its own, keeping freed memory for the next allocations (the
// release threshold at its maximum), trimmed when done.
func ExampleNewPool() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()

	pool, err := memory.NewPool(cc, memory.PoolOptions{ReleaseThreshold: math.MaxUint64})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	for range 3 {
		b, err := memory.AllocFromPool[float32](s, pool, 1<<20)
		if err != nil {
			fmt.Println(err)
			return
		}
		memory.Fill(s, b, 1)
		b.Close() // back to the pool, in stream order
		s.Synchronize()
	}
	st, _ := pool.Stats()
	fmt.Printf("in use %d bytes, reserved %d MiB, at most %d MiB in use\n", st.UsedCurrent, st.ReservedCurrent>>20, st.UsedHigh>>20)
	pool.Trim(0)
	st, _ = pool.Stats()
	fmt.Printf("after Trim: reserved %d bytes\n", st.ReservedCurrent)
	// Output:
	// in use 0 bytes, reserved 4 MiB, at most 4 MiB in use
	// after Trim: reserved 0 bytes
}

// The device's default pool, shared with the process: raise its release
// threshold so that AllocAsync in a loop reuses memory instead of mapping
// it again after every synchronization.
func ExampleDefaultPool() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()

	pool, err := memory.DefaultPool(cc)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close() // detaches; the device's pool stays
	pool.SetReleaseThreshold(math.MaxUint64)
	t, _ := pool.ReleaseThreshold()
	fmt.Println(pool.Owned(), t == math.MaxUint64)
	// Output: false true
}

// One call each way: a device copy of a slice, and a new slice from a
// buffer.
func ExampleFromSlice() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()

	b, err := memory.FromSlice(cc, []int32{1, 2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	got, err := memory.ToSlice(b)
	fmt.Println(got, err)
	z, _ := memory.AllocZeroed[int32](cc, 3)
	defer z.Close()
	zeros, _ := memory.ToSlice(z)
	fmt.Println(zeros)
	// Output:
	// [1 2 3] <nil>
	// [0 0 0]
}

// Managed memory: written by the host in place, used by the device, read
// back in place after a synchronize.
func ExampleAllocManaged() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()

	b, err := memory.AllocManaged[float32](cc, 4, memory.AttachGlobal)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	host, _ := b.HostSlice() // valid until Close; touch only when no work uses it
	copy(host, []float32{1, 2, 3, 4})
	memory.Prefetch(s, b, memory.On(dev))
	memory.Fill(s, b, 9) // device work on the same memory
	memory.Prefetch(s, b, memory.Host)
	s.Synchronize()
	fmt.Println(host)
	// Output: [9 9 9 9]
}

// Page-locking a Go slice for asynchronous copies, without copying it into
// pinned memory first.
func ExampleRegister() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()

	data := make([]int32, 1<<16) // large: pages of its own
	data[0], data[1] = 4, 2
	reg, err := memory.Register(cc, data, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer reg.Close() // unregisters and unpins
	b, _ := memory.Alloc[int32](cc, len(data))
	defer b.Close()
	memory.CopyToDeviceAsync(s, b, reg.Slice()) // a true DMA on a GPU
	s.Synchronize()
	got, _ := memory.ToSlice(b)
	fmt.Println(got[:2])
	// Output: [4 2]
}

// A pitched 2D array: rows padded by the driver, copied from and to dense
// host rows.
func ExampleAllocPitched() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()

	img, err := memory.AllocPitched[float32](cc, 3, 2) // 3 wide, 2 high
	if err != nil {
		fmt.Println(err)
		return
	}
	defer img.Close()
	memory.CopyToPitched(img, []float32{1, 2, 3, 4, 5, 6}, 3)
	back := make([]float32, 6)
	memory.CopyFromPitched(back, 3, img)
	fmt.Println(back, img.Pitch() >= 3*4)
	// Output: [1 2 3 4 5 6] true
}
