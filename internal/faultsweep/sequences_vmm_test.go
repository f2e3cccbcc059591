package faultsweep

import (
	"fmt"
	"slices"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// seqVMM: virtual memory (issue 23): the granularity, an address range with
// a shareable allocation mapped into it and given access, a copy through
// its view and back, the allocation exported as a file descriptor and
// imported again, the mapping's allocation handle retained (a raw call:
// another library asking whose memory a pointer is) and released, and a
// growable buffer grown twice.
func seqVMM(e *env) error {
	ctx, err := e.primary()
	if err != nil {
		return err
	}
	gran, err := memory.Granularity(ctx)
	if err != nil {
		return err
	}
	r, err := memory.ReserveAddress(ctx, 2*gran)
	if err != nil {
		return err
	}
	e.keep("address range", r)
	p, err := memory.NewPhysical(ctx, gran, memory.PhysicalOptions{Shareable: true})
	if err != nil {
		return err
	}
	e.keep("physical memory", p)
	m, err := r.Map(0, p, 0, gran)
	if err != nil {
		return err
	}
	e.keep("mapping", m)
	if err := m.SetAccess(ctx.Device(), memory.AccessReadWrite); err != nil {
		return err
	}
	if a, err := m.Access(ctx.Device()); err != nil {
		return err
	} else if a != memory.AccessReadWrite {
		return fmt.Errorf("access %v after SetAccess(ReadWrite)", a)
	}
	view, err := memory.MappedBuffer[uint32](m)
	if err != nil {
		return err
	}
	want := make([]uint32, view.Len())
	for i := range want {
		want[i] = uint32(i)
	}
	if err := memory.CopyToDevice(view, want); err != nil {
		return err
	}
	got := make([]uint32, len(want))
	if err := memory.CopyToHost(got, view); err != nil {
		return err
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("read back %v through the mapping, want %v", got, want)
	}
	f, err := p.Export()
	if err != nil {
		return err
	}
	e.keep("exported descriptor", f)
	q, err := memory.ImportPhysical(ctx, f, gran)
	if err != nil {
		return err
	}
	e.keep("imported memory", q)
	var h uintptr
	err = e.rawCall(ctx, func() error {
		vm, ok := e.b.(backend.VirtualMemory)
		if !ok {
			return fmt.Errorf("the fake has no backend.VirtualMemory")
		}
		var err error
		if h, err = vm.MemRetainAllocationHandle(m.Ptr()); err != nil {
			return err
		}
		released := false
		e.keepFunc("retained allocation handle", func() error {
			if released {
				return nil
			}
			return e.rawCall(ctx, func() error {
				err := vm.MemRelease(h)
				released = err == nil
				return err
			})
		})
		return nil
	})
	if err != nil {
		return err
	}
	if h != p.Handle() {
		return fmt.Errorf("retained handle %#x, NewPhysical's is %#x", h, p.Handle())
	}
	g, err := memory.NewGrowable[float32](ctx, 4*gran, memory.GrowableOptions{})
	if err != nil {
		return err
	}
	e.keep("growable buffer", g)
	if err := g.Grow(1000); err != nil {
		return err
	}
	return g.Grow(gran)
}
