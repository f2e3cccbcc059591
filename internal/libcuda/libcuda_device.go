//go:build linux && (amd64 || arm64)

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

// Init is cuInit(flags).
func (l *libcuda) Init(flags uint32) error {
	p, err := l.fn(symInit)
	if err != nil {
		return err
	}
	r := dl.Call1(p, uintptr(flags))
	return check(r)
}

// DriverGetVersion is cuDriverGetVersion(int*).
func (l *libcuda) DriverGetVersion() (int, error) {
	p, err := l.fn(symDriverGetVersion)
	if err != nil {
		return 0, err
	}
	var v int32
	r := dl.Call1(p, uintptr(unsafe.Pointer(&v)))
	return int(v), check(r)
}

// DeviceGetCount is cuDeviceGetCount(int*).
func (l *libcuda) DeviceGetCount() (int, error) {
	p, err := l.fn(symDeviceGetCount)
	if err != nil {
		return 0, err
	}
	var n int32
	r := dl.Call1(p, uintptr(unsafe.Pointer(&n)))
	return int(n), check(r)
}

// DeviceGet is cuDeviceGet(CUdevice*, int ordinal).
func (l *libcuda) DeviceGet(ordinal int) (int, error) {
	if !cInt(ordinal) {
		return 0, backend.ErrInvalidDevice
	}
	p, err := l.fn(symDeviceGet)
	if err != nil {
		return 0, err
	}
	var d int32
	r := dl.Call2(p, uintptr(unsafe.Pointer(&d)), uintptr(ordinal))
	return int(d), check(r)
}

// DeviceGetName is cuDeviceGetName(char*, int len, CUdevice).
func (l *libcuda) DeviceGetName(dev int) (string, error) {
	if !cInt(dev) {
		return "", backend.ErrInvalidDevice
	}
	p, err := l.fn(symDeviceGetName)
	if err != nil {
		return "", err
	}
	var buf [256]byte
	r := dl.Call3(p, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(dev))
	if err := check(r); err != nil {
		return "", err
	}
	return cstr.FromBytes(buf[:]), nil
}

// DeviceGetAttribute is cuDeviceGetAttribute(int*, CUdevice_attribute, CUdevice).
func (l *libcuda) DeviceGetAttribute(attr backend.DeviceAttribute, dev int) (int, error) {
	if !cInt(dev) {
		return 0, backend.ErrInvalidDevice
	}
	p, err := l.fn(symDeviceGetAttribute)
	if err != nil {
		return 0, err
	}
	var v int32
	r := dl.Call3(p, uintptr(unsafe.Pointer(&v)), uintptr(attr), uintptr(dev))
	return int(v), check(r)
}

// DeviceTotalMem is cuDeviceTotalMem_v2(size_t*, CUdevice).
func (l *libcuda) DeviceTotalMem(dev int) (uint64, error) {
	if !cInt(dev) {
		return 0, backend.ErrInvalidDevice
	}
	p, err := l.fn(symDeviceTotalMem)
	if err != nil {
		return 0, err
	}
	var n uint64
	r := dl.Call2(p, uintptr(unsafe.Pointer(&n)), uintptr(dev))
	return n, check(r)
}

// DeviceGetUUID is cuDeviceGetUuid_v2(CUuuid*, CUdevice).
func (l *libcuda) DeviceGetUUID(dev int) ([16]byte, error) {
	if !cInt(dev) {
		return [16]byte{}, backend.ErrInvalidDevice
	}
	var u [16]byte
	p, err := l.fn(symDeviceGetUuid)
	if err != nil {
		return u, err
	}
	r := dl.Call2(p, uintptr(unsafe.Pointer(&u[0])), uintptr(dev))
	return u, check(r)
}

// DeviceGetPCIBusID is cuDeviceGetPCIBusId(char*, int len, CUdevice).
func (l *libcuda) DeviceGetPCIBusID(dev int) (string, error) {
	if !cInt(dev) {
		return "", backend.ErrInvalidDevice
	}
	p, err := l.fn(symDeviceGetPCIBusId)
	if err != nil {
		return "", err
	}
	var buf [64]byte
	r := dl.Call3(p, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(dev))
	if err := check(r); err != nil {
		return "", err
	}
	return cstr.FromBytes(buf[:]), nil
}

// DeviceCanAccessPeer is cuDeviceCanAccessPeer(int*, CUdevice, CUdevice).
func (l *libcuda) DeviceCanAccessPeer(dev, peer int) (bool, error) {
	if !cInt(dev) || !cInt(peer) {
		return false, backend.ErrInvalidDevice
	}
	p, err := l.fn(symDeviceCanAccessPeer)
	if err != nil {
		return false, err
	}
	var ok int32
	r := dl.Call3(p, uintptr(unsafe.Pointer(&ok)), uintptr(dev), uintptr(peer))
	return ok != 0, check(r)
}
