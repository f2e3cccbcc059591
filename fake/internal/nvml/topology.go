package nvml

import (
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
)

// MIGSpec is one MIG device of a layout (a GPU instance with one compute
// instance).
type MIGSpec struct {
	Profile string // "1g.18gb", "3g.71gb", ...
	Memory  uint64 // bytes
}

// migDevice is one MIG device of a fake device.
type migDevice struct {
	spec   MIGSpec
	handle uintptr
	uuid   string
	gi, ci int
}

// DeviceNVLinkState is nvmlDeviceGetNvLinkState: active where the test
// connected the link.
func (l *Lib) DeviceNVLinkState(h uintptr, n uint32) (bool, error) {
	const op = "nvmlDeviceGetNvLinkState"
	d, err := l.device(op, h)
	if err != nil {
		return false, err
	}
	defer l.mu.Unlock()
	if n >= nvlinkLinks {
		return false, nvmlErr(op, backend.NVMLInvalidArgument, fmt.Sprintf("link %d of %d", n, nvlinkLinks))
	}
	return d.links[n] != nil, nil
}

// DeviceNVLinkRemotePCIInfo is nvmlDeviceGetNvLinkRemotePciInfo_v2.
func (l *Lib) DeviceNVLinkRemotePCIInfo(h uintptr, n uint32) (backend.NVMLPCIInfo, error) {
	const op = "nvmlDeviceGetNvLinkRemotePciInfo"
	d, err := l.device(op, h)
	if err != nil {
		return backend.NVMLPCIInfo{}, err
	}
	defer l.mu.Unlock()
	if n >= nvlinkLinks {
		return backend.NVMLPCIInfo{}, nvmlErr(op, backend.NVMLInvalidArgument, fmt.Sprintf("link %d of %d", n, nvlinkLinks))
	}
	if d.links[n] == nil {
		return backend.NVMLPCIInfo{}, nvmlErr(op, backend.NVMLNotSupported, "link not active")
	}
	return l.devs[d.links[n].peer].pci(), nil
}

// DeviceNVLinkErrorCounter is nvmlDeviceGetNvLinkErrorCounter (counters 0
// to 5: replay, recovery, CRC flit, CRC data, ECC data, ...).
func (l *Lib) DeviceNVLinkErrorCounter(h uintptr, n, counter uint32) (uint64, error) {
	const op = "nvmlDeviceGetNvLinkErrorCounter"
	d, err := l.device(op, h)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	if n >= nvlinkLinks || int(counter) >= len(link{}.errors) {
		return 0, nvmlErr(op, backend.NVMLInvalidArgument, fmt.Sprintf("link %d, counter %d", n, counter))
	}
	if d.links[n] == nil {
		return 0, nvmlErr(op, backend.NVMLNotSupported, "link not active")
	}
	return d.links[n].errors[counter], nil
}

// DeviceTopology is nvmlDeviceGetTopologyCommonAncestor: INTERNAL for a
// device and itself, what the test set, else NODE.
func (l *Lib) DeviceTopology(a, b uintptr) (int, error) {
	const op = "nvmlDeviceGetTopologyCommonAncestor"
	da, err := l.device(op, a)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	db, err := l.devLocked(op, b)
	if err != nil {
		return 0, err
	}
	if da == db {
		return topoInternal, nil
	}
	if v, ok := l.topo[pair(da.index, db.index)]; ok {
		return v, nil
	}
	return topoNode, nil
}

func pair(a, b int) [2]int {
	if a > b {
		a, b = b, a
	}
	return [2]int{a, b}
}

// DeviceMIGMode is nvmlDeviceGetMigMode.
func (l *Lib) DeviceMIGMode(h uintptr) (int, int, error) {
	d, err := l.device("nvmlDeviceGetMigMode", h)
	if err != nil {
		return 0, 0, err
	}
	defer l.mu.Unlock()
	if d.migOn {
		return 1, 1, nil
	}
	return 0, 0, nil
}

// DeviceMaxMIGDevices is nvmlDeviceGetMaxMigDeviceCount.
func (l *Lib) DeviceMaxMIGDevices(h uintptr) (int, error) {
	if _, err := l.device("nvmlDeviceGetMaxMigDeviceCount", h); err != nil {
		return 0, err
	}
	l.mu.Unlock()
	return maxMIGDevices, nil
}

// DeviceMIGDevice is nvmlDeviceGetMigDeviceHandleByIndex.
func (l *Lib) DeviceMIGDevice(h uintptr, i uint32) (uintptr, error) {
	const op = "nvmlDeviceGetMigDeviceHandleByIndex"
	d, err := l.device(op, h)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	if !d.migOn {
		return 0, nvmlErr(op, backend.NVMLNotSupported, "MIG mode is off")
	}
	if i >= maxMIGDevices {
		return 0, nvmlErr(op, backend.NVMLInvalidArgument, fmt.Sprintf("index %d", i))
	}
	if int(i) >= len(d.mig) {
		return 0, nvmlErr(op, backend.NVMLNotFound, fmt.Sprintf("index %d of %d MIG devices", i, len(d.mig)))
	}
	return d.mig[i].handle, nil
}

// DeviceIsMIG is nvmlDeviceIsMigDeviceHandle.
func (l *Lib) DeviceIsMIG(h uintptr) (bool, error) {
	_, m, err := l.any("nvmlDeviceIsMigDeviceHandle", h)
	if err != nil {
		return false, err
	}
	l.mu.Unlock()
	return m != nil, nil
}

// DeviceMIGParent is nvmlDeviceGetDeviceHandleFromMigDeviceHandle.
func (l *Lib) DeviceMIGParent(h uintptr) (uintptr, error) {
	const op = "nvmlDeviceGetDeviceHandleFromMigDeviceHandle"
	d, m, err := l.any(op, h)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	if m == nil {
		return 0, nvmlErr(op, backend.NVMLInvalidArgument, "not a MIG device handle")
	}
	return d.handle, nil
}

// DeviceGPUInstanceID is nvmlDeviceGetGpuInstanceId.
func (l *Lib) DeviceGPUInstanceID(h uintptr) (int, error) {
	return l.instanceID("nvmlDeviceGetGpuInstanceId", h, func(m *migDevice) int { return m.gi })
}

// DeviceComputeInstanceID is nvmlDeviceGetComputeInstanceId.
func (l *Lib) DeviceComputeInstanceID(h uintptr) (int, error) {
	return l.instanceID("nvmlDeviceGetComputeInstanceId", h, func(m *migDevice) int { return m.ci })
}

func (l *Lib) instanceID(op string, h uintptr, id func(*migDevice) int) (int, error) {
	_, m, err := l.any(op, h)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	if m == nil {
		return 0, nvmlErr(op, backend.NVMLNotSupported, "not a MIG device handle")
	}
	return id(m), nil
}
