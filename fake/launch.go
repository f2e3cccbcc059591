package fake

import (
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/abi"
)

// errSharedTooLarge is what a launch asking for more dynamic shared memory
// than the function allows returns.
var errSharedTooLarge error = driver.ErrInvalidValue

// LaunchKernel is cuLaunchKernel. The arguments are read from params (one
// pointer per parameter, each to a value of the parameter's size) at
// enqueue; the Go body runs for every thread, or the PTX interpreter runs
// the kernel, when the stream reaches the launch. The function must belong to the stream's context (else
// ErrInvalidHandle); grid and block sizes, dynamic shared memory and params
// are checked like the driver does.
func (b *fakeBackend) LaunchKernel(fh uintptr, grid, block [3]uint32, sharedMem uint32, s uintptr, params unsafe.Pointer) error {
	if err := b.enter(abi.CuLaunchKernel); err != nil {
		return err
	}
	return b.launchKernel(fh, grid, block, sharedMem, s, params, false)
}

// launchKernel checks and queues a launch; cooperative is a cooperative
// launch (LaunchKernelEx with the attribute), whose blocks are co-resident.
func (b *fakeBackend) launchKernel(fh uintptr, grid, block [3]uint32, sharedMem uint32, s uintptr, params unsafe.Pointer, cooperative bool) error {
	it := &item{}
	return b.enqueue(s, it, func(st *stream) error {
		f, err := b.funcLocked(fh)
		if err != nil {
			return err
		}
		if f.mod.ctx != st.ctx {
			return driver.ErrInvalidHandle
		}
		a := st.ctx.dev.attrs
		limits := [...]int{
			a[driver.AttrMaxGridDimX], a[driver.AttrMaxGridDimY], a[driver.AttrMaxGridDimZ],
			a[driver.AttrMaxBlockDimX], a[driver.AttrMaxBlockDimY], a[driver.AttrMaxBlockDimZ],
		}
		dims := [...]uint32{grid[0], grid[1], grid[2], block[0], block[1], block[2]}
		for i, d := range dims {
			if d == 0 || uint64(d) > uint64(limits[i]) {
				return driver.ErrInvalidValue
			}
		}
		if uint64(block[0])*uint64(block[1])*uint64(block[2]) > uint64(a[driver.AttrMaxThreadsPerBlock]) {
			return driver.ErrInvalidValue
		}
		if int(sharedMem) > f.maxDyn {
			return errSharedTooLarge
		}
		k := f.k
		if err := k.checkInterpreted(block, sharedMem, a); err != nil {
			return err
		}
		if err := k.checkRunnable(grid, block); err != nil {
			return err
		}
		if len(k.params) > 0 && params == nil {
			return driver.ErrInvalidValue
		}
		args := make([]byte, k.size)
		for i, p := range k.params {
			src := *(*unsafe.Pointer)(unsafe.Add(params, uintptr(i)*unsafe.Sizeof(params)))
			if src == nil {
				return driver.ErrInvalidValue
			}
			copy(args[p.off:p.off+p.size], unsafe.Slice((*byte)(src), p.size))
		}
		sms, resident := a[driver.AttrMultiprocessorCount], k.residentBlocks(a, block, sharedMem)
		it.run = func() error { return k.runLaunch(b, grid, block, sharedMem, sms, resident, args, cooperative) }
		it.fn = f
		return nil
	})
}
