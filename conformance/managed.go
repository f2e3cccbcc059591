package conformance

import (
	"runtime"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// testManaged checks managed memory: AllocManaged, host access through
// HostSlice, Prefetch and Advise, and their errors.
func testManaged(t *testing.T, drv *driver.Driver) {
	if _, ok := raw(t, drv).(backend.ManagedMemory); !ok {
		t.Skip("the backend has no managed memory")
	}
	ctx, s := memSetup(t, drv)
	if v, err := ctx.Device().Attribute(backend.AttrManagedMemory); err != nil || v == 0 {
		t.Skip("the device has no managed memory")
	}
	b, err := memory.AllocManaged[int32](ctx, 1000, memory.AttachGlobal)
	must(t, err)
	defer func() { must(t, b.Close()) }()
	isTrue(t, b.Owned())
	m, err := raw(t, drv).PointerGetAttribute(backend.PointerAttrIsManaged, b.Ptr())
	must(t, err)
	equal(t, m, uint64(1))

	host, err := b.HostSlice()
	must(t, err)
	mustLen(t, host, 1000)
	for i := range host {
		host[i] = int32(i)
	}
	// The raw call reads the current context (the H200 returns
	// CUDA_ERROR_INVALID_CONTEXT with none); Advise makes b's current.
	func() {
		api := raw(t, drv)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cur, err := api.CtxGetCurrent()
		must(t, err)
		must(t, api.CtxSetCurrent(0))
		defer func() { must(t, api.CtxSetCurrent(cur)) }()
		errorIs(t, api.(backend.ManagedMemory).MemAdvise(b.Ptr(), uintptr(b.Size()), backend.MemAdviseSetReadMostly,
			backend.MemLocation{Type: backend.MemLocationDevice}), driver.ErrInvalidContext)
	}()
	must(t, memory.Advise(b, memory.SetPreferredLocation, memory.On(ctx.Device())))
	must(t, memory.Advise(b, memory.SetReadMostly, memory.Host))
	must(t, memory.Prefetch(s, b, memory.On(ctx.Device())))
	// The device sees what the host wrote, and the host what the device
	// wrote.
	d := memAlloc[int32](t, ctx, 1000)
	must(t, memory.CopyDtoDAsync(s, d, b))
	must(t, memory.Fill(s, b, 5))
	must(t, memory.Prefetch(s, b, memory.Host))
	must(t, s.Synchronize())
	for i, v := range memRead(t, d) {
		if v != int32(i) {
			t.Fatalf("device copy [%d] = %d, want %d", i, v, i)
		}
	}
	memSame(t, memFilled(1000, int32(5)), host)

	// Not managed memory.
	_, err = d.HostSlice()
	errorIs(t, err, driver.ErrInvalidValue)
	errorIs(t, memory.Prefetch(s, d, memory.Host), driver.ErrInvalidValue)
	errorIs(t, memory.Advise(d, memory.SetReadMostly, memory.Host), driver.ErrInvalidValue)
	_, err = memory.AllocManaged[int32](ctx, 4, 0)
	errorIs(t, err, driver.ErrInvalidValue)
}
