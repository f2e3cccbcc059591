package memory_test

import (
	"errors"
	"fmt"
	"log"
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// The examples run on the fake driver; with a GPU, use gpu.Load instead
// of fake.New. Errors are mostly ignored to keep them short.

func Example() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()

	b, err := memory.Alloc[float32](cc, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	if err := memory.CopyToDevice(b, []float32{1, 2, 3, 4}); err != nil {
		fmt.Println(err)
		return
	}
	tail, err := b.Slice(2, 4) // a view: never frees, dies with b
	if err != nil {
		fmt.Println(err)
		return
	}
	memory.Fill(s, tail, 9)
	out := make([]float32, 4)
	memory.CopyToHostAsync(s, out, b)
	s.Synchronize()
	fmt.Println(out)

	// Copies check sizes first and copy nothing when the source does not fit.
	err = memory.CopyToDevice(b, []float32{1, 2, 3, 4, 5})
	fmt.Println(errors.Is(err, driver.ErrInvalidValue), err)
	// Output:
	// [1 2 9 9]
	// true memory.CopyToDevice: src holds 5 elements, dst only 4: the copy does not fit: invalid argument (refused by the library, not by the driver)
}

// otherTensor stands for another library's tensor: it owns device memory
// allocated with raw driver calls.
type otherTensor struct {
	cc  *driver.Context
	ptr uintptr
	n   int
}

// rawCall runs fn with cc current on the calling OS thread, with raw calls
// on the backend under cc's driver (the fake's, here; another library
// would use its own bindings).
func rawCall(cc *driver.Context, fn func(api backend.API) error) error {
	api := fake.Of(cc.Driver()).Backend()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := api.CtxPushCurrent(cc.Handle()); err != nil {
		return err
	}
	defer api.CtxPopCurrent()
	return fn(api)
}

func newOtherTensor(cc *driver.Context, data []float32) *otherTensor {
	var ptr uintptr
	rawCall(cc, func(api backend.API) error {
		ptr, _ = api.MemAlloc(uintptr(4 * len(data)))
		return api.MemcpyHtoD(ptr, unsafe.Pointer(&data[0]), uintptr(4*len(data)))
	})
	return &otherTensor{cc: cc, ptr: ptr, n: len(data)}
}

func (t *otherTensor) values() []float32 {
	out := make([]float32, t.n)
	rawCall(t.cc, func(api backend.API) error {
		return api.MemcpyDtoH(unsafe.Pointer(&out[0]), t.ptr, uintptr(4*t.n))
	})
	return out
}

func (t *otherTensor) free() error {
	return rawCall(t.cc, func(api backend.API) error { return api.MemFree(t.ptr) })
}

// Borrow wraps memory that another library allocated, without copying it
// and without taking ownership.
func ExampleBorrow() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()

	tensor := newOtherTensor(cc, []float32{1, 2, 3, 4})

	// The tensor is kept reachable as the owner until Close.
	b, err := memory.Borrow[float32](cc, tensor.ptr, tensor.n, tensor)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("owned:", b.Owned())
	memory.Fill(s, b, 0.5) // written in place
	s.Synchronize()
	b.Close() // detaches; the memory is the tensor's
	fmt.Println("the tensor sees:", tensor.values())
	fmt.Println("its owner frees it:", tensor.free())

	// Pointers are checked against the driver before they are wrapped.
	_, err = memory.Borrow[float32](cc, 0x1000, 4, nil)
	fmt.Println(err != nil)
	// Output:
	// owned: false
	// the tensor sees: [0.5 0.5 0.5 0.5]
	// its owner frees it: <nil>
	// true
}

// AllocAsync takes memory from the device's pool in stream order; FreeAsync
// gives it back in stream order, after the work queued before it.
func ExampleAllocAsync() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{Flags: stream.NonBlocking})
	defer s.Close()

	tmp, err := memory.AllocAsync[int32](s, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	memory.Fill(s, tmp, -1)
	out := make([]int32, 3)
	memory.CopyToHostAsync(s, out, tmp)
	tmp.FreeAsync(s)
	s.Synchronize()
	fmt.Println(out, tmp.Ptr())
	// Output: [-1 -1 -1] 0
}

// Pinned host memory is the fast source and destination of async copies.
func ExampleAllocHost() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()

	h, _ := memory.AllocHost[uint16](cc, 4)
	defer h.Close()
	d, _ := memory.Alloc[uint16](cc, 4)
	defer d.Close()

	copy(h.Slice(), []uint16{10, 20, 30, 40})
	memory.CopyToDeviceAsync(s, d, h.Slice())
	mid, _ := d.Slice(1, 3)
	memory.Fill(s, mid, 0)
	memory.CopyToHostAsync(s, h.Slice(), d)
	// h.Slice() must not be touched until the stream is done with it.
	s.Synchronize()
	fmt.Println(h.Slice())
	// Output: [10 0 0 40]
}

// Bytes views copy between buffers of different element types explicitly.
func ExampleBuffer_Bytes() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()

	f, _ := memory.Alloc[float32](cc, 2)
	defer f.Close()
	u, _ := memory.Alloc[uint32](cc, 2)
	defer u.Close()
	memory.CopyToDevice(f, []float32{1, -2})
	fb, _ := f.Bytes()
	ub, _ := u.Bytes()
	memory.CopyDtoD(ub, fb)
	out := make([]uint32, 2)
	memory.CopyToHost(out, u)
	fmt.Printf("%#x\n", out)
	// Output: [0x3f800000 0xc0000000]
}

// FromSliceOn and ToSliceOn are the one-line copies in and out, ordered on
// a stream: ToSliceOn waits for the work queued before it.
func ExampleToSliceOn() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, err := dev.PrimaryContext()
	if err != nil {
		log.Fatal(err)
	}
	defer cc.Close()
	s, err := stream.New(cc, stream.Options{Flags: stream.NonBlocking})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	buf, err := memory.FromSliceOn(s, []int32{1, 2, 3})
	if err != nil {
		log.Fatal(err)
	}
	defer buf.Close()
	if err := memory.Fill(s, buf, 7); err != nil {
		log.Fatal(err)
	}
	got, err := memory.ToSliceOn(s, buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got)
	// Output: [7 7 7]
}
