//go:build linux && (amd64 || arm64)

package libnvml

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

// needs is the reason of an entry point this NVML lacks: since is
// 1000*major + driver branch.
func needs(since int) error {
	return errors.New("needs NVML " + strconv.Itoa(since/1000) + "." + strconv.Itoa(since%1000) +
		" (driver R" + strconv.Itoa(since%1000) + ") or later")
}

// check turns an nvmlReturn_t (in the low 32 bits) from s into nil or an
// *NVMLError.
func (l *Lib) check(s sym, r uintptr) error {
	code := backend.NVMLReturn(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	return &backend.NVMLError{Return: code, Op: symEntries[s].Name}
}

// byString calls s(const char* key, nvmlDevice_t* device).
func (l *Lib) byString(s sym, key string) (uintptr, error) {
	p, err := l.fn(s)
	if err != nil {
		return 0, err
	}
	b, err := cstr.Bytes(key)
	if err != nil {
		return 0, &backend.NVMLError{Return: backend.NVMLInvalidArgument, Op: symEntries[s].Name, Detail: err.Error()}
	}
	var h uintptr
	r := dl.Call2(p, uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&h)))
	runtime.KeepAlive(b)
	if err := l.check(s, r); err != nil {
		return 0, err
	}
	return h, nil
}

// DeviceByUUID is nvmlDeviceGetHandleByUUID(const char*, nvmlDevice_t*).
func (l *Lib) DeviceByUUID(uuid string) (uintptr, error) {
	return l.byString(symDeviceGetHandleByUUID, uuid)
}

// DeviceByPCIBusID is nvmlDeviceGetHandleByPciBusId_v2(const char*,
// nvmlDevice_t*).
func (l *Lib) DeviceByPCIBusID(id string) (uintptr, error) {
	return l.byString(symDeviceGetHandleByPciBusId, id)
}

// pciInfo is nvmlPciInfo_t (v3), laid out as nvml.h declares it (offsets
// in the package doc; layout_test.go checks them).
type pciInfo struct {
	busIDLegacy   [16]byte
	domain        uint32
	bus           uint32
	device        uint32
	pciDeviceID   uint32
	pciSubSysteID uint32
	busID         [32]byte
}

func (c *pciInfo) info() backend.NVMLPCIInfo {
	return backend.NVMLPCIInfo{
		BusID: cstr.FromBytes(c.busID[:]), Domain: c.domain, Bus: c.bus, Device: c.device,
		DeviceID: c.pciDeviceID, SubsystemID: c.pciSubSysteID,
	}
}

// DevicePCIInfo is nvmlDeviceGetPciInfo_v3(nvmlDevice_t, nvmlPciInfo_t*).
func (l *Lib) DevicePCIInfo(d uintptr) (backend.NVMLPCIInfo, error) {
	p, err := l.fn(symDeviceGetPciInfo)
	if err != nil {
		return backend.NVMLPCIInfo{}, err
	}
	var c pciInfo
	if err := l.check(symDeviceGetPciInfo, dl.Call2(p, d, uintptr(unsafe.Pointer(&c)))); err != nil {
		return backend.NVMLPCIInfo{}, err
	}
	return c.info(), nil
}

// DeviceNVLinkRemotePCIInfo is nvmlDeviceGetNvLinkRemotePciInfo_v2
// (nvmlDevice_t, unsigned int, nvmlPciInfo_t*).
func (l *Lib) DeviceNVLinkRemotePCIInfo(d uintptr, link uint32) (backend.NVMLPCIInfo, error) {
	p, err := l.fn(symDeviceGetNvLinkRemotePciInfo)
	if err != nil {
		return backend.NVMLPCIInfo{}, err
	}
	var c pciInfo
	if err := l.check(symDeviceGetNvLinkRemotePciInfo, dl.Call3(p, d, uintptr(link), uintptr(unsafe.Pointer(&c)))); err != nil {
		return backend.NVMLPCIInfo{}, err
	}
	return c.info(), nil
}

// DeviceRemappedRows is nvmlDeviceGetRemappedRows(nvmlDevice_t, unsigned
// int* corrRows, unsigned int* uncRows, unsigned int* isPending, unsigned
// int* failureOccurred).
func (l *Lib) DeviceRemappedRows(d uintptr) (backend.NVMLRemappedRows, error) {
	p, err := l.fn(symDeviceGetRemappedRows)
	if err != nil {
		return backend.NVMLRemappedRows{}, err
	}
	var v [4]uint32
	r := dl.Call5(p, d, uintptr(unsafe.Pointer(&v[0])), uintptr(unsafe.Pointer(&v[1])), uintptr(unsafe.Pointer(&v[2])), uintptr(unsafe.Pointer(&v[3])))
	if err := l.check(symDeviceGetRemappedRows, r); err != nil {
		return backend.NVMLRemappedRows{}, err
	}
	return backend.NVMLRemappedRows{Correctable: int(v[0]), Uncorrectable: int(v[1]), Pending: v[2] != 0, Failure: v[3] != 0}, nil
}

// maxListTries bounds the sizing loop of the list calls: a list that grows
// between the sizing call and the filling one is asked again.
const maxListTries = 8

// list calls s(d, [arg,] unsigned int* count, T* items) until items is big
// enough: NVML answers INSUFFICIENT_SIZE with the count it needs.
func list[T any](l *Lib, s sym, d uintptr, arg *uintptr) ([]T, error) {
	p, err := l.fn(s)
	if err != nil {
		return nil, err
	}
	var items []T
	for range maxListTries {
		count := uint32(len(items))
		var base uintptr
		if len(items) > 0 {
			base = uintptr(unsafe.Pointer(&items[0]))
		}
		var r uintptr
		if arg != nil {
			r = dl.Call4(p, d, *arg, uintptr(unsafe.Pointer(&count)), base)
		} else {
			r = dl.Call3(p, d, uintptr(unsafe.Pointer(&count)), base)
		}
		runtime.KeepAlive(items)
		err := l.check(s, r)
		if err == nil {
			return items[:min(int(count), len(items))], nil
		}
		if !errors.Is(err, backend.NVMLInsufficientSize) {
			return nil, err
		}
		items = make([]T, count+count/4+4) // room for a few more
	}
	return nil, &backend.NVMLError{Return: backend.NVMLInsufficientSize, Op: symEntries[s].Name, Detail: fmt.Sprintf("the list kept growing over %d tries", maxListTries)}
}

// DeviceRetiredPages is nvmlDeviceGetRetiredPages(nvmlDevice_t,
// nvmlPageRetirementCause_t, unsigned int* pageCount, unsigned long long*
// addresses).
func (l *Lib) DeviceRetiredPages(d uintptr, cause uint32) ([]uint64, error) {
	c := uintptr(cause)
	return list[uint64](l, symDeviceGetRetiredPages, d, &c)
}

// processInfo is nvmlProcessInfo_t (nvmlProcessInfo_v2_t, which the _v3
// entry points fill), laid out as nvml.h declares it.
type processInfo struct {
	pid               uint32
	_                 uint32
	usedGpuMemory     uint64
	gpuInstanceID     uint32
	computeInstanceID uint32
}

func processes(l *Lib, s sym, d uintptr) ([]backend.NVMLProcess, error) {
	ps, err := list[processInfo](l, s, d, nil)
	if err != nil || len(ps) == 0 {
		return nil, err
	}
	out := make([]backend.NVMLProcess, len(ps))
	for i, p := range ps {
		out[i] = backend.NVMLProcess{PID: p.pid, UsedMemory: p.usedGpuMemory, GPUInstanceID: p.gpuInstanceID, ComputeInstanceID: p.computeInstanceID}
	}
	return out, nil
}

// DeviceComputeProcesses is nvmlDeviceGetComputeRunningProcesses_v3
// (nvmlDevice_t, unsigned int* infoCount, nvmlProcessInfo_t* infos).
func (l *Lib) DeviceComputeProcesses(d uintptr) ([]backend.NVMLProcess, error) {
	return processes(l, symDeviceGetComputeRunningProcesses, d)
}

// DeviceGraphicsProcesses is nvmlDeviceGetGraphicsRunningProcesses_v3.
func (l *Lib) DeviceGraphicsProcesses(d uintptr) ([]backend.NVMLProcess, error) {
	return processes(l, symDeviceGetGraphicsRunningProcesses, d)
}
