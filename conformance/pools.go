package conformance

import (
	"math"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// testPools checks stream-ordered memory pools (package memory's Pool) and
// Context.MemInfo, on backends that have pools.
func testPools(t *testing.T, drv *driver.Driver) {
	if _, ok := raw(t, drv).(backend.MemPools); !ok {
		t.Skip("the backend has no memory pools")
	}
	t.Run("default", func(t *testing.T) { testPoolDefault(t, drv) })
	t.Run("accounting", func(t *testing.T) { testPoolAccounting(t, drv) })
	t.Run("current", func(t *testing.T) { testPoolCurrent(t, drv) })
	t.Run("access", func(t *testing.T) { testPoolAccess(t, drv) })
	t.Run("errors", func(t *testing.T) { testPoolErrors(t, drv) })
	t.Run("mem-info", func(t *testing.T) { testMemInfo(t, drv) })
	t.Run("reuse", func(t *testing.T) { testPoolReuse(t, drv) })
}

func testPoolDefault(t *testing.T, drv *driver.Driver) {
	ctx, _ := memSetup(t, drv)
	def, err := memory.DefaultPool(ctx)
	must(t, err)
	isFalse(t, def.Owned())
	notZero(t, def.Handle())
	cur, err := memory.CurrentPool(ctx)
	must(t, err)
	equal(t, cur.Handle(), def.Handle(), "the default pool is current unless changed")
	must(t, cur.Close())
	must(t, cur.Close(), "a second Close is a no-op")
	must(t, def.Close())
	_, err = def.Stats()
	errorIs(t, err, driver.ErrClosed)

	// Closing a wrapped pool detaches only: the device's pool still works.
	again, err := memory.DefaultPool(ctx)
	must(t, err)
	defer again.Close()
	equal(t, again.Handle(), def.Handle())
	_, err = again.Stats()
	must(t, err)
}

func testPoolAccounting(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	p, err := memory.NewPool(ctx, memory.PoolOptions{})
	must(t, err)
	defer func() { must(t, p.Close()) }()
	isTrue(t, p.Owned())
	thr, err := p.ReleaseThreshold()
	must(t, err)
	equal(t, thr, uint64(0), "the driver's default release threshold")

	const n = 1 << 20 // 4 MiB of float32
	b, err := memory.AllocFromPool[float32](s, p, n)
	must(t, err)
	isTrue(t, b.StreamOrdered())
	want := memIota(n, 1)
	must(t, memory.CopyToDeviceAsync(s, b, want))
	got := make([]float32, n)
	must(t, memory.CopyToHostAsync(s, got, b))
	must(t, s.Synchronize())
	memSame(t, want, got)
	h, err := raw(t, drv).PointerGetAttribute(backend.PointerAttrMempool, b.Ptr())
	must(t, err)
	equal(t, uintptr(h), p.Handle(), "the buffer comes from the pool")

	st, err := p.Stats()
	must(t, err)
	compare(t, st.UsedCurrent, ">=", uint64(4*n))
	compare(t, st.ReservedCurrent, ">=", st.UsedCurrent)
	compare(t, st.UsedHigh, ">=", st.UsedCurrent)
	compare(t, st.ReservedHigh, ">=", st.ReservedCurrent)

	must(t, b.Close()) // cuMemFreeAsync on s
	must(t, s.Synchronize())
	st, err = p.Stats()
	must(t, err)
	equal(t, st.UsedCurrent, uint64(0))
	compare(t, st.UsedHigh, ">=", uint64(4*n), "the high-water mark stays")
	must(t, p.Trim(0))
	st, err = p.Stats()
	must(t, err)
	equal(t, st.ReservedCurrent, uint64(0), "trimmed to nothing")

	// With the threshold at its maximum, freed memory stays reserved
	// across synchronizations until trimmed.
	must(t, p.SetReleaseThreshold(math.MaxUint64))
	thr, err = p.ReleaseThreshold()
	must(t, err)
	equal(t, thr, uint64(math.MaxUint64))
	b, err = memory.AllocFromPool[float32](s, p, n)
	must(t, err)
	must(t, b.Close())
	must(t, s.Synchronize())
	st, err = p.Stats()
	must(t, err)
	equal(t, st.UsedCurrent, uint64(0))
	compare(t, st.ReservedCurrent, ">=", uint64(4*n), "kept under the threshold")
	must(t, p.Trim(0))
	must(t, p.ResetHighWater())
	st, err = p.Stats()
	must(t, err)
	equal(t, st, memory.PoolStats{}, "trimmed, and the high-water marks reset to the current values")
}

func testPoolCurrent(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	def, err := memory.DefaultPool(ctx)
	must(t, err)
	defer def.Close()
	p, err := memory.NewPool(ctx, memory.PoolOptions{ReleaseThreshold: 1 << 20})
	must(t, err)
	defer p.Close()
	thr, err := p.ReleaseThreshold()
	must(t, err)
	equal(t, thr, uint64(1<<20))

	must(t, p.SetCurrent())
	defer func() { must(t, def.SetCurrent()) }() // process-wide: restore
	cur, err := memory.CurrentPool(ctx)
	must(t, err)
	equal(t, cur.Handle(), p.Handle())
	must(t, cur.Close())
	b, err := memory.AllocAsync[int32](s, 1000)
	must(t, err)
	must(t, s.Synchronize())
	h, err := raw(t, drv).PointerGetAttribute(backend.PointerAttrMempool, b.Ptr())
	must(t, err)
	equal(t, uintptr(h), p.Handle(), "AllocAsync takes from the current pool")
	must(t, b.Close())
	must(t, s.Synchronize())
}

func testPoolAccess(t *testing.T, drv *driver.Driver) {
	ctx, _ := memSetup(t, drv)
	p, err := memory.NewPool(ctx, memory.PoolOptions{})
	must(t, err)
	defer p.Close()
	a, err := p.Access(ctx.Device())
	must(t, err)
	equal(t, a, memory.AccessReadWrite, "the pool's own device")
	errorIs(t, p.SetAccess(ctx.Device(), memory.AccessNone), driver.ErrInvalidDevice)
	errorIs(t, p.SetAccess(ctx.Device(), memory.Access(1)), driver.ErrInvalidValue)

	n, err := drv.DeviceCount()
	must(t, err)
	if n < 2 {
		return
	}
	peer, err := drv.Device(1)
	must(t, err)
	ok, err := ctx.Device().CanAccessPeer(peer)
	must(t, err)
	if !ok {
		return
	}
	a, err = p.Access(peer)
	must(t, err)
	equal(t, a, memory.AccessNone, "no peer access by default")
	must(t, p.SetAccess(peer, memory.AccessReadWrite))
	a, err = p.Access(peer)
	must(t, err)
	equal(t, a, memory.AccessReadWrite)
	must(t, p.SetAccess(peer, memory.AccessNone))
	a, err = p.Access(peer)
	must(t, err)
	equal(t, a, memory.AccessNone)
}

func testPoolErrors(t *testing.T, drv *driver.Driver) {
	ctx, s := memSetup(t, drv)
	_, err := memory.AllocFromPool[float32](s, nil, 4)
	errorIs(t, err, driver.ErrInvalidValue)
	p, err := memory.NewPool(ctx, memory.PoolOptions{})
	must(t, err)
	_, err = memory.AllocFromPool[float32](nil, p, 4)
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.AllocFromPool[float32](s, p, -1)
	errorIs(t, err, driver.ErrInvalidValue)
	must(t, p.Close())
	must(t, p.Close())
	_, err = memory.AllocFromPool[float32](s, p, 4)
	errorIs(t, err, driver.ErrClosed)
	errorIs(t, p.Trim(0), driver.ErrClosed)
	errorIs(t, p.SetCurrent(), driver.ErrClosed)

	// An owned pool is not destroyed under its buffers (memory.ErrPoolInUse:
	// the driver's deferred release crashes a later cuMemPoolDestroy on
	// the H200); the refused Close changes nothing and can be retried.
	p, err = memory.NewPool(ctx, memory.PoolOptions{})
	must(t, err)
	b, err := memory.AllocFromPool[uint32](s, p, 16)
	must(t, err)
	errorIs(t, p.Close(), memory.ErrPoolInUse)
	must(t, memory.Fill(s, b, 7))
	must(t, s.Synchronize())
	equal(t, memRead(t, b), memFilled(16, uint32(7)))
	b2, err := memory.AllocFromPool[uint32](s, p, 4)
	must(t, err, "the pool still works after the refused Close")
	must(t, b.Close())
	errorIs(t, p.Close(), memory.ErrPoolInUse)
	must(t, b2.FreeAsync(s))
	must(t, p.Close(), "no buffers left: the frees queued are waited for, then the pool goes")
	must(t, s.Synchronize())

	// A pool of another device.
	if n, _ := drv.DeviceCount(); n > 1 {
		other := streamContext(t, drv, 1)
		q, err := memory.NewPool(other, memory.PoolOptions{})
		must(t, err)
		defer q.Close()
		_, err = memory.AllocFromPool[float32](s, q, 4)
		errorIs(t, err, driver.ErrWrongContext)
	}
}

func testMemInfo(t *testing.T, drv *driver.Driver) {
	ctx, _ := memSetup(t, drv)
	free, total, err := ctx.MemInfo()
	must(t, err)
	tm, err := ctx.Device().TotalMemory()
	must(t, err)
	compare(t, total, "<=", tm, "the memory the context sees is the device's at most")
	notZero(t, total)
	compare(t, free, "<=", total)
	notZero(t, free)
	var nilCtx *driver.Context
	_, _, err = nilCtx.MemInfo()
	errorIs(t, err, driver.ErrInvalidValue)
}
