package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// testHostRegister checks memory.Register: a Go slice page-locked for
// asynchronous copies, unregistered by Close, and its errors.
func testHostRegister(t *testing.T, drv *driver.Driver) {
	if _, ok := raw(t, drv).(backend.HostRegistration); !ok {
		t.Skip("the backend cannot register host memory")
	}
	ctx, s := memSetup(t, drv)
	host := make([]float32, 1<<16) // 256 KiB: pages of its own
	for i := range host {
		host[i] = float32(i)
	}
	r, err := memory.Register(ctx, host, 0)
	must(t, err)
	mt, err := raw(t, drv).PointerGetAttribute(backend.PointerAttrMemoryType, memHostAddr(host))
	must(t, err)
	equal(t, mt, uint64(backend.MemoryTypeHost), "the driver knows the memory")
	_, err = memory.Register(ctx, host[:8], 0)
	errorIs(t, err, memory.ErrAlreadyRegistered)

	b := memAlloc[float32](t, ctx, len(host))
	must(t, memory.CopyToDeviceAsync(s, b, r.Slice()))
	back := make([]float32, len(host))
	must(t, s.Synchronize())
	for i := range host {
		host[i] = -1
	}
	must(t, memory.CopyToHostAsync(s, r.Slice(), b))
	must(t, s.Synchronize())
	copy(back, host)
	for i, v := range back {
		if v != float32(i) {
			t.Fatalf("[%d] = %v, want %v", i, v, float32(i))
		}
	}
	must(t, r.Close())
	must(t, r.Close(), "a second Close is a no-op")
	isNil(t, r.Slice())

	_, err = memory.Register[float32](ctx, nil, 0)
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.Register(ctx, host, memory.RegisterFlag(0x4000))
	errorIs(t, err, driver.ErrInvalidValue)
}
