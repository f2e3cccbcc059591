package driver

import (
	"fmt"
	"strings"
	"sync"
)

// Device is one CUDA device (a CUdevice). Devices are owned by their Driver and
// need no release.
type Device struct {
	drv     *Driver
	ordinal int
	handle  int

	// mu serialises retaining, releasing and resetting the primary
	// context; primaryRefs counts this Driver's references to it that are
	// not yet released in the driver.
	mu          sync.Mutex
	primaryRefs int

	props propsCache // Properties, once read
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
		return "", nilDevice("driver.Device.Name")
	}
	s, r := d.drv.api.DeviceGetName(d.handle)
	if r != nil {
		return "", d.errf("driver.Device.Name", "cuDeviceGetName", r)
	}
	return s, nil
}

// ComputeCapability returns the device's compute capability (9, 0 on an H200).
func (d *Device) ComputeCapability() (major, minor int, err error) {
	const op = "driver.Device.ComputeCapability"
	if d == nil || d.drv == nil {
		return 0, 0, nilDevice(op)
	}
	if major, err = d.attribute(op, AttrComputeCapabilityMajor); err != nil {
		return 0, 0, err
	}
	if minor, err = d.attribute(op, AttrComputeCapabilityMinor); err != nil {
		return 0, 0, err
	}
	return major, minor, nil
}

// TotalMemory returns the device's global memory in bytes.
func (d *Device) TotalMemory() (uint64, error) {
	if d == nil || d.drv == nil {
		return 0, nilDevice("driver.Device.TotalMemory")
	}
	n, r := d.drv.api.DeviceTotalMem(d.handle)
	if r != nil {
		return 0, d.errf("driver.Device.TotalMemory", "cuDeviceTotalMem", r)
	}
	return n, nil
}

// Attribute returns one device attribute.
func (d *Device) Attribute(a DeviceAttribute) (int, error) {
	const op = "driver.Device.Attribute"
	if d == nil || d.drv == nil {
		return 0, nilDevice(op)
	}
	return d.attribute(op, a)
}

// attribute reads attribute a for op.
func (d *Device) attribute(op string, a DeviceAttribute) (int, error) {
	v, r := d.drv.api.DeviceGetAttribute(a, d.handle)
	if r != nil {
		return 0, d.errf(op, fmt.Sprintf("cuDeviceGetAttribute(%d)", a), r)
	}
	return v, nil
}

// UUID returns the device's UUID in the form nvidia-smi prints
// ("GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx").
func (d *Device) UUID() (string, error) {
	if d == nil || d.drv == nil {
		return "", nilDevice("driver.Device.UUID")
	}
	u, r := d.drv.api.DeviceGetUUID(d.handle)
	if r != nil {
		return "", d.errf("driver.Device.UUID", "cuDeviceGetUuid", r)
	}
	return fmt.Sprintf("GPU-%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]), nil
}

// PCIBusID returns the device's PCI bus id ("0000:19:00.0").
func (d *Device) PCIBusID() (string, error) {
	if d == nil || d.drv == nil {
		return "", nilDevice("driver.Device.PCIBusID")
	}
	s, r := d.drv.api.DeviceGetPCIBusID(d.handle)
	if r != nil {
		return "", d.errf("driver.Device.PCIBusID", "cuDeviceGetPCIBusId", r)
	}
	return strings.TrimRight(s, "\x00"), nil
}

// CanAccessPeer reports whether this device can read and write peer's memory
// directly.
func (d *Device) CanAccessPeer(peer *Device) (bool, error) {
	if d == nil || d.drv == nil {
		return false, nilDevice("driver.Device.CanAccessPeer")
	}
	if peer == nil || peer.drv == nil {
		return false, fmt.Errorf("driver.Device.CanAccessPeer: device %d: nil or zero peer: %w", d.ordinal, ErrInvalidValue)
	}
	if peer.drv != d.drv {
		return false, fmt.Errorf("driver.Device.CanAccessPeer: device %d: peer device %d belongs to another *driver.Driver: %w", d.ordinal, peer.ordinal, ErrWrongContext)
	}
	ok, r := d.drv.api.DeviceCanAccessPeer(d.handle, peer.handle)
	if r != nil {
		return false, d.errf("driver.Device.CanAccessPeer", "cuDeviceCanAccessPeer", r)
	}
	return ok, nil
}

// nilDevice is what op, a method of a nil or zero *Device, returns.
func nilDevice(op string) error {
	return fmt.Errorf("%s: nil device: %w", op, ErrInvalidValue)
}

// errf is op's error for the driver call that failed with r.
func (d *Device) errf(op, call string, r error) error {
	return fmt.Errorf("%s: device %d: %s: %w", op, d.ordinal, call, r)
}
