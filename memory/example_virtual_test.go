//go:build linux && (amd64 || arm64)

package memory_test

import (
	"fmt"

	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
)

// A growable buffer: address space reserved once, memory mapped as it
// grows, the pointer never moving.
func ExampleNewGrowable() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()

	// Room for 1 Gi float32 (4 GiB of address space); no memory yet.
	g, err := memory.NewGrowable[float32](cc, 1<<30, memory.GrowableOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	ptr := g.Ptr()

	if err := g.Grow(1000); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := g.Buffer() // a view of the 1000 elements
	memory.CopyToDevice(b, make([]float32, 1000))
	fmt.Println("len", g.Len(), "cap", g.Cap())

	// Growing maps more 2 MiB chunks behind the first: nothing moves or is copied.
	if err := g.Grow(3 << 20); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("len", g.Len(), "cap", g.Cap(), "same pointer:", g.Ptr() == ptr)
	// Output:
	// len 1000 cap 524288
	// len 3145728 cap 3145728 same pointer: true
}

// Reserving addresses, creating memory and mapping it by hand: one
// allocation mapped twice shows the same bytes at both addresses. Export
// and ImportPhysical carry such memory to another process as a file
// descriptor.
func ExampleAddressRange_Map() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()

	gran, _ := memory.Granularity(cc) // 2 MiB, as on an H200
	r, err := memory.ReserveAddress(cc, 2*gran)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close() // after the mappings (deferred later, run first)
	p, err := memory.NewPhysical(cc, gran, memory.PhysicalOptions{Shareable: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()

	var views []*memory.Buffer[int32]
	for _, off := range []int{0, gran} {
		m, err := r.Map(off, p, 0, gran)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer m.Close()
		m.SetAccess(dev, memory.AccessReadWrite) // no access at all until set
		b, _ := memory.MappedBuffer[int32](m)
		views = append(views, b)
	}
	head, _ := views[0].Slice(0, 3) // copies need matching sizes
	if err := memory.CopyToDevice(head, []int32{1, 2, 3}); err != nil {
		fmt.Println(err)
		return
	}
	out := make([]int32, 3)
	tail, _ := views[1].Slice(0, 3)
	memory.CopyToHost(out, tail)
	fmt.Println(out, views[1].Ptr()-views[0].Ptr() == uintptr(gran))

	// In the same process, an exported descriptor imports as the same memory.
	f, _ := p.Export()
	q, err := memory.ImportPhysical(cc, f, p.Size())
	f.Close()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(q.Size() == gran)
	q.Close()
	// Output:
	// [1 2 3] true
	// true
}
