//go:build linux && (amd64 || arm64)

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/dl"
)

// MemAlloc is cuMemAlloc_v2(CUdeviceptr*, size_t), in the current context.
func (l *libcuda) MemAlloc(size uintptr) (uintptr, error) {
	p, err := l.fn(symMemAlloc)
	if err != nil {
		return 0, err
	}
	var d uintptr
	r := dl.Call2(p, uintptr(unsafe.Pointer(&d)), size)
	return d, check(r)
}

// MemFree is cuMemFree_v2(CUdeviceptr).
func (l *libcuda) MemFree(ptr uintptr) error {
	p, err := l.fn(symMemFree)
	if err != nil {
		return err
	}
	r := dl.Call1(p, ptr)
	return check(r)
}

// MemAllocAsync is cuMemAllocAsync(CUdeviceptr*, size_t, CUstream).
func (l *libcuda) MemAllocAsync(size uintptr, s uintptr) (uintptr, error) {
	p, err := l.fn(symMemAllocAsync)
	if err != nil {
		return 0, err
	}
	var d uintptr
	r := dl.Call3(p, uintptr(unsafe.Pointer(&d)), size, s)
	return d, check(r)
}

// MemFreeAsync is cuMemFreeAsync(CUdeviceptr, CUstream).
func (l *libcuda) MemFreeAsync(ptr uintptr, s uintptr) error {
	p, err := l.fn(symMemFreeAsync)
	if err != nil {
		return err
	}
	r := dl.Call2(p, ptr, s)
	return check(r)
}

// MemGetInfo is cuMemGetInfo_v2(size_t *free, size_t *total).
func (l *libcuda) MemGetInfo() (uint64, uint64, error) {
	p, err := l.fn(symMemGetInfo)
	if err != nil {
		return 0, 0, err
	}
	var m struct{ free, total uint64 }
	r := dl.Call2(p, uintptr(unsafe.Pointer(&m.free)), uintptr(unsafe.Pointer(&m.total)))
	return m.free, m.total, check(r)
}

// MemGetAddressRange is cuMemGetAddressRange_v2(CUdeviceptr *base,
// size_t *size, CUdeviceptr).
func (l *libcuda) MemGetAddressRange(ptr uintptr) (uintptr, uintptr, error) {
	p, err := l.fn(symMemGetAddressRange)
	if err != nil {
		return 0, 0, err
	}
	o := getOuts()
	r := dl.Call3(p, uintptr(unsafe.Pointer(&o.v[0])), uintptr(unsafe.Pointer(&o.v[1])), ptr)
	base, size := uintptr(o.v[0]), uintptr(o.v[1])
	putOuts(o)
	return base, size, check(r)
}

// PointerGetAttribute is cuPointerGetAttribute(void *data,
// CUpointer_attribute, CUdeviceptr). The value is written into zeroed 8-byte
// storage, so 4-byte attributes (memory type, flags) read back
// zero-extended; the device ordinal, a C int, is sign-extended.
func (l *libcuda) PointerGetAttribute(attr backend.PointerAttribute, ptr uintptr) (uint64, error) {
	p, err := l.fn(symPointerGetAttribute)
	if err != nil {
		return 0, err
	}
	o := getOuts()
	r := dl.Call3(p, uintptr(unsafe.Pointer(&o.v[0])), uintptr(attr), ptr)
	v := o.v[0]
	if attr == backend.PointerAttrDeviceOrdinal {
		v = uint64(int64(*(*int32)(unsafe.Pointer(&o.v[0]))))
	}
	putOuts(o)
	return v, check(r)
}

// MemcpyHtoD is cuMemcpyHtoD_v2(CUdeviceptr, const void*, size_t).
func (l *libcuda) MemcpyHtoD(dst uintptr, src unsafe.Pointer, n uintptr) error {
	p, err := l.fn(symMemcpyHtoD)
	if err != nil {
		return err
	}
	r := dl.Call3(p, dst, uintptr(src), n)
	return check(r)
}

// MemcpyDtoH is cuMemcpyDtoH_v2(void*, CUdeviceptr, size_t).
func (l *libcuda) MemcpyDtoH(dst unsafe.Pointer, src uintptr, n uintptr) error {
	p, err := l.fn(symMemcpyDtoH)
	if err != nil {
		return err
	}
	r := dl.Call3(p, uintptr(dst), src, n)
	return check(r)
}

// MemcpyDtoD is cuMemcpyDtoD_v2(CUdeviceptr, CUdeviceptr, size_t).
func (l *libcuda) MemcpyDtoD(dst, src uintptr, n uintptr) error {
	p, err := l.fn(symMemcpyDtoD)
	if err != nil {
		return err
	}
	r := dl.Call3(p, dst, src, n)
	return check(r)
}

// MemcpyHtoDAsync is cuMemcpyHtoDAsync_v2(CUdeviceptr, const void*, size_t,
// CUstream). It does not allocate; src must stay valid (and, for a truly
// asynchronous copy, be pinned memory) until the copy completes.
func (l *libcuda) MemcpyHtoDAsync(dst uintptr, src unsafe.Pointer, n uintptr, s uintptr) error {
	p, err := l.fn(symMemcpyHtoDAsync)
	if err != nil {
		return err
	}
	r := dl.Call4(p, dst, uintptr(src), n, s)
	return check(r)
}

// MemcpyDtoHAsync is cuMemcpyDtoHAsync_v2(void*, CUdeviceptr, size_t,
// CUstream). It does not allocate.
func (l *libcuda) MemcpyDtoHAsync(dst unsafe.Pointer, src uintptr, n uintptr, s uintptr) error {
	p, err := l.fn(symMemcpyDtoHAsync)
	if err != nil {
		return err
	}
	r := dl.Call4(p, uintptr(dst), src, n, s)
	return check(r)
}

// MemcpyDtoDAsync is cuMemcpyDtoDAsync_v2(CUdeviceptr, CUdeviceptr, size_t,
// CUstream). It does not allocate.
func (l *libcuda) MemcpyDtoDAsync(dst, src uintptr, n uintptr, s uintptr) error {
	p, err := l.fn(symMemcpyDtoDAsync)
	if err != nil {
		return err
	}
	r := dl.Call4(p, dst, src, n, s)
	return check(r)
}

// MemcpyPeer is cuMemcpyPeer(CUdeviceptr dst, CUcontext, CUdeviceptr src,
// CUcontext, size_t).
func (l *libcuda) MemcpyPeer(dst, dstCtx, src, srcCtx uintptr, n uintptr) error {
	p, err := l.fn(symMemcpyPeer)
	if err != nil {
		return err
	}
	r := dl.Call5(p, dst, dstCtx, src, srcCtx, n)
	return check(r)
}

// MemcpyPeerAsync is cuMemcpyPeerAsync(..., CUstream). It does not allocate.
func (l *libcuda) MemcpyPeerAsync(dst, dstCtx, src, srcCtx uintptr, n uintptr, s uintptr) error {
	p, err := l.fn(symMemcpyPeerAsync)
	if err != nil {
		return err
	}
	r := dl.Call6(p, dst, dstCtx, src, srcCtx, n, s)
	return check(r)
}

// MemsetD8 is cuMemsetD8_v2(CUdeviceptr, unsigned char, size_t).
func (l *libcuda) MemsetD8(dst uintptr, v uint8, n uintptr) error {
	p, err := l.fn(symMemsetD8)
	if err != nil {
		return err
	}
	r := dl.Call3(p, dst, uintptr(v), n)
	return check(r)
}

// MemsetD16 is cuMemsetD16_v2(CUdeviceptr, unsigned short, size_t).
func (l *libcuda) MemsetD16(dst uintptr, v uint16, n uintptr) error {
	p, err := l.fn(symMemsetD16)
	if err != nil {
		return err
	}
	r := dl.Call3(p, dst, uintptr(v), n)
	return check(r)
}

// MemsetD32 is cuMemsetD32_v2(CUdeviceptr, unsigned int, size_t).
func (l *libcuda) MemsetD32(dst uintptr, v uint32, n uintptr) error {
	p, err := l.fn(symMemsetD32)
	if err != nil {
		return err
	}
	r := dl.Call3(p, dst, uintptr(v), n)
	return check(r)
}

// MemsetD8Async is cuMemsetD8Async(CUdeviceptr, unsigned char, size_t,
// CUstream). It does not allocate.
func (l *libcuda) MemsetD8Async(dst uintptr, v uint8, n uintptr, s uintptr) error {
	p, err := l.fn(symMemsetD8Async)
	if err != nil {
		return err
	}
	r := dl.Call4(p, dst, uintptr(v), n, s)
	return check(r)
}

// MemsetD16Async is cuMemsetD16Async(CUdeviceptr, unsigned short, size_t,
// CUstream). It does not allocate.
func (l *libcuda) MemsetD16Async(dst uintptr, v uint16, n uintptr, s uintptr) error {
	p, err := l.fn(symMemsetD16Async)
	if err != nil {
		return err
	}
	r := dl.Call4(p, dst, uintptr(v), n, s)
	return check(r)
}

// MemsetD32Async is cuMemsetD32Async(CUdeviceptr, unsigned int, size_t,
// CUstream). It does not allocate.
func (l *libcuda) MemsetD32Async(dst uintptr, v uint32, n uintptr, s uintptr) error {
	p, err := l.fn(symMemsetD32Async)
	if err != nil {
		return err
	}
	r := dl.Call4(p, dst, uintptr(v), n, s)
	return check(r)
}

// MemHostAlloc is cuMemHostAlloc(void **pp, size_t, unsigned int flags):
// page-locked host memory, owned by the caller until MemFreeHost.
func (l *libcuda) MemHostAlloc(size uintptr, flags uint32) (unsafe.Pointer, error) {
	p, err := l.fn(symMemHostAlloc)
	if err != nil {
		return nil, err
	}
	var h unsafe.Pointer
	r := dl.Call3(p, uintptr(unsafe.Pointer(&h)), size, uintptr(flags))
	if err := check(r); err != nil {
		return nil, err
	}
	return h, nil
}

// MemFreeHost is cuMemFreeHost(void*).
func (l *libcuda) MemFreeHost(ptr unsafe.Pointer) error {
	p, err := l.fn(symMemFreeHost)
	if err != nil {
		return err
	}
	r := dl.Call1(p, uintptr(ptr))
	return check(r)
}

// IPCGetMemHandle is cuIpcGetMemHandle(CUipcMemHandle*, CUdeviceptr).
func (l *libcuda) IPCGetMemHandle(ptr uintptr) (backend.IPCHandle, error) {
	var h backend.IPCHandle
	p, err := l.fn(symIpcGetMemHandle)
	if err != nil {
		return h, err
	}
	r := dl.Call2(p, uintptr(unsafe.Pointer(&h[0])), ptr)
	return h, check(r)
}

// IPCOpenMemHandle is cuIpcOpenMemHandle_v2(CUdeviceptr*, CUipcMemHandle,
// unsigned int flags), the 64-byte handle passed by value (see callIPCOpen).
func (l *libcuda) IPCOpenMemHandle(h backend.IPCHandle, flags uint32) (uintptr, error) {
	p, err := l.fn(symIpcOpenMemHandle)
	if err != nil {
		return 0, err
	}
	var d uintptr
	r := callIPCOpen(p, unsafe.Pointer(&d), &h, flags, true)
	return d, check(r)
}

// IPCCloseMemHandle is cuIpcCloseMemHandle(CUdeviceptr).
func (l *libcuda) IPCCloseMemHandle(ptr uintptr) error {
	p, err := l.fn(symIpcCloseMemHandle)
	if err != nil {
		return err
	}
	r := dl.Call1(p, ptr)
	return check(r)
}
