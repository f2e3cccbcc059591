package fake

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/abi"
)

// attrMax is CU_DEVICE_ATTRIBUTE_MAX in CUDA 13.0: attributes at or above it
// are invalid values; attributes below it that the fake does not model are 0.
const attrMax = 148

// Device address space: each device's allocations live in their own 1 TiB
// range, far from the Go heap.
const (
	deviceSpaceBase = 0x3000_0000_0000
	deviceSpaceSize = 1 << 40
	allocAlign      = 512
	allocGap        = 64 << 10 // unmapped bytes after every allocation
)

type device struct {
	ordinal int
	name    string
	total   uint64
	used    uint64 // bytes allocated (guarded by Backend.mu)
	attrs   map[driver.DeviceAttribute]int
	uuid    [16]byte
	bus     int
	next    uintptr // next free device address
	primary *context

	primaryFlags uint32 // cuDevicePrimaryCtxSetFlags (guarded by Backend.mu)
}

// h200 is the attribute table of the default device, as measured on an
// NVIDIA H200 (driver 580, CUDA 13.0).
func h200() map[driver.DeviceAttribute]int {
	return map[driver.DeviceAttribute]int{
		1: 1024, 2: 1024, 3: 1024, 4: 64, 5: 2147483647, 6: 65535, 7: 65535,
		8: 49152, 9: 65536, 10: 32, 11: 2147483647, 12: 65536, 13: 1980000,
		14: 512, 15: 1, 16: 132, 17: 0, 18: 0, 19: 1, 20: 0,
		30: 512, 31: 1, 32: 1, 34: 6, 35: 0, 36: 3201000, 37: 6016,
		38: 62914560, 39: 2048, 40: 3, 41: 1, 50: 0, 51: 32,
		75: 9, 76: 0, 78: 1, 79: 1, 80: 1, 81: 233472, 82: 65536, 83: 1,
		84: 0, 86: 0, 87: 2, 88: 0, 89: 1, 90: 1, 91: 0, 92: 1, 93: 1, 95: 1,
		96: 0, 97: 232448, 98: 0, 99: 1, 102: 1, 103: 1, 106: 32, 107: 1,
		108: 39321600, 109: 134213632, 110: 1, 111: 1024, 112: 1, 113: 1,
		114: 1, 115: 1, 116: 1, 117: 1, 118: 100, 119: 1, 120: 1, 121: 1,
		122: 1, 123: 1, 124: 1, 125: 1, 126: 4, 127: 1, 129: 0, 130: 0,
		131: -1, 132: 1, 133: 0, 134: -1,
	}
}

func newDevice(ordinal int, spec DeviceSpec) *device {
	d := &device{ordinal: ordinal, attrs: h200()}
	d.name = spec.Name
	if d.name == "" {
		d.name = fmt.Sprintf("Fake CUDA Device %d", ordinal)
	}
	d.total = spec.TotalMem
	if d.total == 0 {
		d.total = 8 << 30
	}
	if spec.Major != 0 || spec.Minor != 0 {
		d.attrs[driver.AttrComputeCapabilityMajor] = spec.Major
		d.attrs[driver.AttrComputeCapabilityMinor] = spec.Minor
		if spec.Major < 9 {
			d.attrs[driver.AttrClusterLaunch] = 0 // clusters came with 9.0
		}
	}
	if spec.SMs > 0 {
		d.attrs[driver.AttrMultiprocessorCount] = spec.SMs
	}
	d.bus = 0x18 + ordinal
	d.attrs[driver.AttrPCIBusID] = d.bus
	for k, v := range spec.Attrs {
		d.attrs[k] = v
	}
	copy(d.uuid[:], "fakecuda")
	d.uuid[6] = 0x40 | byte(ordinal>>8)&0x0f // version 4 style
	d.uuid[8] = 0x80
	d.uuid[14] = byte(ordinal >> 8)
	d.uuid[15] = byte(ordinal)
	d.next = deviceSpaceBase + uintptr(ordinal)*deviceSpaceSize
	return d
}

func (b *fakeBackend) dev(ordinal int) (*device, error) {
	if ordinal < 0 || ordinal >= len(b.devs) {
		return nil, driver.ErrInvalidDevice
	}
	return b.devs[ordinal], nil
}

// DeviceGetCount is cuDeviceGetCount.
func (b *fakeBackend) DeviceGetCount() (int, error) {
	if err := b.enter(abi.CuDeviceGetCount); err != nil {
		return 0, err
	}
	return len(b.devs), nil
}

// DeviceGet is cuDeviceGet: the CUdevice of an ordinal is the ordinal.
func (b *fakeBackend) DeviceGet(ordinal int) (int, error) {
	if err := b.enter(abi.CuDeviceGet); err != nil {
		return 0, err
	}
	if _, err := b.dev(ordinal); err != nil {
		return 0, err
	}
	return ordinal, nil
}

// DeviceGetName is cuDeviceGetName.
func (b *fakeBackend) DeviceGetName(dev int) (string, error) {
	if err := b.enter(abi.CuDeviceGetName); err != nil {
		return "", err
	}
	d, err := b.dev(dev)
	if err != nil {
		return "", err
	}
	return d.name, nil
}

// DeviceGetAttribute is cuDeviceGetAttribute.
func (b *fakeBackend) DeviceGetAttribute(attr driver.DeviceAttribute, dev int) (int, error) {
	if err := b.enter(abi.CuDeviceGetAttribute); err != nil {
		return 0, err
	}
	d, err := b.dev(dev)
	if err != nil {
		return 0, err
	}
	if attr <= 0 || attr >= attrMax {
		return 0, driver.ErrInvalidValue
	}
	return d.attrs[attr], nil
}

// DeviceTotalMem is cuDeviceTotalMem.
func (b *fakeBackend) DeviceTotalMem(dev int) (uint64, error) {
	if err := b.enter(abi.CuDeviceTotalMem); err != nil {
		return 0, err
	}
	d, err := b.dev(dev)
	if err != nil {
		return 0, err
	}
	return d.total, nil
}

// DeviceGetUUID is cuDeviceGetUuid; every fake device has its own.
func (b *fakeBackend) DeviceGetUUID(dev int) ([16]byte, error) {
	if err := b.enter(abi.CuDeviceGetUuid); err != nil {
		return [16]byte{}, err
	}
	d, err := b.dev(dev)
	if err != nil {
		return [16]byte{}, err
	}
	return d.uuid, nil
}

// DeviceGetPCIBusID is cuDeviceGetPCIBusId ("0000:18:06.0"), made of the
// device's PCI domain, bus and device attributes.
func (b *fakeBackend) DeviceGetPCIBusID(dev int) (string, error) {
	if err := b.enter(abi.CuDeviceGetPCIBusId); err != nil {
		return "", err
	}
	d, err := b.dev(dev)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%04x:%02x:%02x.0", d.attrs[driver.AttrPCIDomainID], d.attrs[driver.AttrPCIBusID], d.attrs[driver.AttrPCIDeviceID]), nil
}

// DeviceCanAccessPeer is cuDeviceCanAccessPeer: every fake device can
// access every other one, and none "peer-accesses" itself.
func (b *fakeBackend) DeviceCanAccessPeer(dev, peer int) (bool, error) {
	if err := b.enter(abi.CuDeviceCanAccessPeer); err != nil {
		return false, err
	}
	if _, err := b.dev(dev); err != nil {
		return false, err
	}
	if _, err := b.dev(peer); err != nil {
		return false, err
	}
	return dev != peer, nil
}
