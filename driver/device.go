package driver

import (
	"fmt"
	"strings"
)

// Device is one CUDA device (a CUdevice). Devices are owned by their Driver and
// need no release.
type Device struct {
	drv     *Driver
	ordinal int
	handle  int
}

// Driver returns the driver the device belongs to.
func (d *Device) Driver() *Driver {
	if d == nil {
		return nil
	}
	return d.drv
}

// Ordinal returns the device's index, as passed to Driver.Device (-1 for a
// nil Device).
func (d *Device) Ordinal() int {
	if d == nil {
		return -1
	}
	return d.ordinal
}

// Handle returns the raw CUdevice (-1 for a nil Device).
func (d *Device) Handle() int {
	if d == nil {
		return -1
	}
	return d.handle
}

// Name returns the device's marketing name, such as "NVIDIA H200".
func (d *Device) Name() (string, error) {
	if d == nil || d.drv == nil {
		return "", errNilDevice
	}
	s, r := d.drv.api.DeviceGetName(d.handle)
	if r != nil {
		return "", d.err("cuDeviceGetName", r)
	}
	return s, nil
}

// ComputeCapability returns the device's compute capability (9, 0 on an H200).
func (d *Device) ComputeCapability() (major, minor int, err error) {
	if d == nil || d.drv == nil {
		return 0, 0, errNilDevice
	}
	if major, err = d.Attribute(AttrComputeCapabilityMajor); err != nil {
		return 0, 0, err
	}
	if minor, err = d.Attribute(AttrComputeCapabilityMinor); err != nil {
		return 0, 0, err
	}
	return major, minor, nil
}

// TotalMemory returns the device's global memory in bytes.
func (d *Device) TotalMemory() (uint64, error) {
	if d == nil || d.drv == nil {
		return 0, errNilDevice
	}
	n, r := d.drv.api.DeviceTotalMem(d.handle)
	if r != nil {
		return 0, d.err("cuDeviceTotalMem", r)
	}
	return n, nil
}

// Attribute returns one device attribute.
func (d *Device) Attribute(a DeviceAttribute) (int, error) {
	if d == nil || d.drv == nil {
		return 0, errNilDevice
	}
	v, r := d.drv.api.DeviceGetAttribute(a, d.handle)
	if r != nil {
		return 0, d.err(fmt.Sprintf("cuDeviceGetAttribute(%d)", a), r)
	}
	return v, nil
}

// UUID returns the device's UUID in the form nvidia-smi prints
// ("GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx").
func (d *Device) UUID() (string, error) {
	if d == nil || d.drv == nil {
		return "", errNilDevice
	}
	u, r := d.drv.api.DeviceGetUUID(d.handle)
	if r != nil {
		return "", d.err("cuDeviceGetUuid", r)
	}
	return fmt.Sprintf("GPU-%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]), nil
}

// PCIBusID returns the device's PCI bus id ("0000:19:00.0").
func (d *Device) PCIBusID() (string, error) {
	if d == nil || d.drv == nil {
		return "", errNilDevice
	}
	s, r := d.drv.api.DeviceGetPCIBusID(d.handle)
	if r != nil {
		return "", d.err("cuDeviceGetPCIBusId", r)
	}
	return strings.TrimRight(s, "\x00"), nil
}

// CanAccessPeer reports whether this device can read and write peer's memory
// directly.
func (d *Device) CanAccessPeer(peer *Device) (bool, error) {
	if d == nil || d.drv == nil {
		return false, errNilDevice
	}
	if peer == nil {
		return false, fmt.Errorf("driver: device %d: CanAccessPeer: nil peer: %w", d.ordinal, ErrInvalidValue)
	}
	ok, r := d.drv.api.DeviceCanAccessPeer(d.handle, peer.handle)
	if r != nil {
		return false, d.err("cuDeviceCanAccessPeer", r)
	}
	return ok, nil
}

// errNilDevice is what every method of a nil *Device returns.
var errNilDevice = fmt.Errorf("driver: nil device: %w", ErrInvalidValue)

func (d *Device) err(op string, r error) error {
	return fmt.Errorf("driver: device %d: %s: %w", d.ordinal, op, r)
}
