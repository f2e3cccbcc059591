package memory_test

import (
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// slowCopies is the fake with every copy and fill slowed down after the
// library's checks, and a record of the device memory freed: a copy that
// hands the driver freed memory is a use after free (on a GPU, a copy from
// or into memory that may already belong to someone else).
type slowCopies struct {
	fake.Backend
	mu    sync.Mutex
	freed map[uintptr]bool
	uses  []string // use-after-free calls seen
}

func (b *slowCopies) enter(call string, ptrs ...uintptr) {
	time.Sleep(200 * time.Microsecond) // a Close racing the call runs meanwhile
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range ptrs {
		if b.freed[p] {
			b.uses = append(b.uses, call)
		}
	}
}

func (b *slowCopies) made(p uintptr) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.freed, p) // the fake may hand out an address again
}

func (b *slowCopies) MemAlloc(n uintptr) (uintptr, error) {
	p, err := b.Backend.MemAlloc(n)
	if err == nil {
		b.made(p)
	}
	return p, err
}

func (b *slowCopies) MemAllocPitch(w, h uintptr, elem uint32) (uintptr, uintptr, error) {
	p, pitch, err := b.Backend.MemAllocPitch(w, h, elem)
	if err == nil {
		b.made(p)
	}
	return p, pitch, err
}

func (b *slowCopies) MemFree(p uintptr) error {
	err := b.Backend.MemFree(p)
	if err == nil {
		b.mu.Lock()
		b.freed[p] = true
		b.mu.Unlock()
	}
	return err
}

func (b *slowCopies) MemcpyDtoD(dst, src, n uintptr) error {
	b.enter("cuMemcpyDtoD", dst, src)
	return b.Backend.MemcpyDtoD(dst, src, n)
}

func (b *slowCopies) MemcpyDtoH(dst unsafe.Pointer, src, n uintptr) error {
	b.enter("cuMemcpyDtoH", src)
	return b.Backend.MemcpyDtoH(dst, src, n)
}

func (b *slowCopies) MemcpyHtoDAsync(dst uintptr, src unsafe.Pointer, n, s uintptr) error {
	b.enter("cuMemcpyHtoDAsync", dst)
	return b.Backend.MemcpyHtoDAsync(dst, src, n, s)
}

func (b *slowCopies) MemcpyDtoHAsync(dst unsafe.Pointer, src, n, s uintptr) error {
	b.enter("cuMemcpyDtoHAsync", src)
	return b.Backend.MemcpyDtoHAsync(dst, src, n, s)
}

func (b *slowCopies) MemcpyDtoDAsync(dst, src, n, s uintptr) error {
	b.enter("cuMemcpyDtoDAsync", dst, src)
	return b.Backend.MemcpyDtoDAsync(dst, src, n, s)
}

func (b *slowCopies) MemsetD32Async(dst uintptr, v uint32, n, s uintptr) error {
	b.enter("cuMemsetD32Async", dst)
	return b.Backend.MemsetD32Async(dst, v, n, s)
}

func (b *slowCopies) Memcpy2D(p *backend.Memcpy2D) error {
	b.enter("cuMemcpy2D", p.SrcDevice, p.DstDevice)
	return b.Backend.Memcpy2D(p)
}

func (b *slowCopies) Memcpy2DAsync(p *backend.Memcpy2D, s uintptr) error {
	b.enter("cuMemcpy2DAsync", p.SrcDevice, p.DstDevice)
	return b.Backend.Memcpy2DAsync(p, s)
}

func (b *slowCopies) Memcpy3D(p *backend.Memcpy3D) error {
	b.enter("cuMemcpy3D", p.SrcDevice, p.DstDevice)
	return b.Backend.Memcpy3D(p)
}

func (b *slowCopies) Memcpy3DAsync(p *backend.Memcpy3D, s uintptr) error {
	b.enter("cuMemcpy3DAsync", p.SrcDevice, p.DstDevice)
	return b.Backend.Memcpy3DAsync(p, s)
}

// A Close racing copies and fills of the same buffers waits for them: no
// call hands the driver freed memory (the source of a copy included), and
// every call either works or fails with driver.ErrClosed.
func TestCloseRacingCopies(t *testing.T) {
	api := &slowCopies{Backend: fake.NewBackend(fake.Devices(1)), freed: map[uintptr]bool{}}
	drv, err := driver.New(api)
	require.NoError(t, err)
	t.Cleanup(func() { assert.Empty(t, api.Leaks(), "leaks") })
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ctx.Close()) })
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })

	for range 10 {
		src, err := memory.Alloc[int32](ctx, 64)
		require.NoError(t, err)
		dst, err := memory.Alloc[int32](ctx, 64)
		require.NoError(t, err)
		p, err := memory.AllocPitched[int32](ctx, 8, 8)
		require.NoError(t, err)
		v, err := memory.AllocPitched3D[int32](ctx, 4, 4, 4)
		require.NoError(t, err)
		host := make([]int32, 64)
		calls := map[string]func() error{
			"CopyDtoD":               func() error { return memory.CopyDtoD(dst, src) },
			"CopyToHost":             func() error { return memory.CopyToHost(host, src) },
			"CopyDtoDAsync":          func() error { return memory.CopyDtoDAsync(s, dst, src) },
			"CopyToHostAsync":        func() error { return memory.CopyToHostAsync(s, make([]int32, 64), src) },
			"CopyToDeviceAsync":      func() error { return memory.CopyToDeviceAsync(s, dst, make([]int32, 64)) },
			"Fill":                   func() error { return memory.Fill(s, src, 7) },
			"CopyToPitched":          func() error { return memory.CopyToPitched(p, make([]int32, 64), 8) },
			"CopyFromPitchedAsync":   func() error { return memory.CopyFromPitchedAsync(s, make([]int32, 64), 8, p) },
			"CopyToPitched3D":        func() error { return memory.CopyToPitched3D(v, make([]int32, 64)) },
			"CopyFromPitched3DAsync": func() error { return memory.CopyFromPitched3DAsync(s, make([]int32, 64), v) },
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for name, call := range calls {
			wg.Go(func() {
				<-start
				if err := call(); err != nil {
					assert.ErrorIs(t, err, driver.ErrClosed, "%s racing Close", name)
				}
			})
		}
		wg.Go(func() {
			<-start
			time.Sleep(50 * time.Microsecond)
			assert.NoError(t, src.Close())
			assert.NoError(t, dst.Close())
			assert.NoError(t, p.Close())
			assert.NoError(t, v.Close())
		})
		close(start)
		wg.Wait()
		require.NoError(t, s.Synchronize())
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	assert.Empty(t, api.uses, "calls given freed memory")
}
