//go:build linux && (amd64 || arm64)

package libcuda

import (
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

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
