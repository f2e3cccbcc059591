package nvml

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// Device is one GPU, or one MIG device of a GPU, as NVML sees it. It is
// NVML's handle: valid while its Library is open, owning nothing. It is
// safe for concurrent use.
type Device struct {
	l   *Library
	h   uintptr
	mig bool
}

// query is one call of d's Library into NVML on d's handle: the Library
// read-held, the error wrapped with op and the device.
func query[T any](d *Device, op string, f func(n backend.NVML, h uintptr) (T, error)) (T, error) {
	var zero T
	if d == nil || d.l == nil {
		return zero, fmt.Errorf("%s: nil device: %w", op, driver.ErrInvalidInput)
	}
	if err := d.l.enter(op); err != nil {
		return zero, err
	}
	v, err := f(d.l.api, d.h)
	if err != nil {
		err = fmt.Errorf("%s: %s: %w", op, d.describeLocked(), err)
	}
	d.l.leave()
	return v, err
}

// describeLocked names d in errors: "device 0", "MIG device GPU-..." (l
// read-held).
func (d *Device) describeLocked() string {
	if d.mig {
		if u, err := d.l.api.DeviceUUID(d.h); err == nil {
			return "MIG device " + u
		}
		return fmt.Sprintf("MIG device handle %#x", d.h)
	}
	if i, err := d.l.api.DeviceIndex(d.h); err == nil {
		return "device " + strconv.Itoa(i)
	}
	return fmt.Sprintf("device handle %#x", d.h)
}

// String returns "nvml device 0" (or the handle where NVML cannot say).
func (d *Device) String() string {
	if d == nil || d.l == nil {
		return "nil nvml device"
	}
	if err := d.l.enter("nvml.Device.String"); err != nil {
		return fmt.Sprintf("nvml device handle %#x (closed)", d.h)
	}
	defer d.l.leave()
	return "nvml " + d.describeLocked()
}

// Index returns the GPU's index in NVML's order (nvmlDeviceGetIndex, NVML
// 1).
func (d *Device) Index() (int, error) {
	return query(d, "nvml.Device.Index", backend.NVML.DeviceIndex)
}

// Name returns the product name ("NVIDIA H200"; nvmlDeviceGetName, NVML 1).
func (d *Device) Name() (string, error) {
	return query(d, "nvml.Device.Name", backend.NVML.DeviceName)
}

// UUID returns the device's UUID ("GPU-..." or "MIG-...", as
// driver.Device.UUID; nvmlDeviceGetUUID, NVML 1).
func (d *Device) UUID() (string, error) {
	return query(d, "nvml.Device.UUID", backend.NVML.DeviceUUID)
}

// Serial returns the board's serial number (nvmlDeviceGetSerial, NVML 1).
func (d *Device) Serial() (string, error) {
	return query(d, "nvml.Device.Serial", backend.NVML.DeviceSerial)
}

// BoardPartNumber returns the board's part number
// (nvmlDeviceGetBoardPartNumber, NVML 5.319).
func (d *Device) BoardPartNumber() (string, error) {
	return query(d, "nvml.Device.BoardPartNumber", backend.NVML.DeviceBoardPartNumber)
}

// Brand is an nvmlBrandType_t.
type Brand int

// Some brands (nvml.h, nvmlBrandType_t).
const (
	BrandTesla  Brand = 2
	BrandNVIDIA Brand = 14
)

// Brand returns the product brand (nvmlDeviceGetBrand, NVML 3.295).
func (d *Device) Brand() (Brand, error) {
	b, err := query(d, "nvml.Device.Brand", backend.NVML.DeviceBrand)
	return Brand(b), err
}

// Architecture is an nvmlDeviceArchitecture_t.
type Architecture int

// The architectures (nvml.h, NVML_DEVICE_ARCH_*).
const (
	ArchKepler    Architecture = 2
	ArchMaxwell   Architecture = 3
	ArchPascal    Architecture = 4
	ArchVolta     Architecture = 5
	ArchTuring    Architecture = 6
	ArchAmpere    Architecture = 7
	ArchAda       Architecture = 8
	ArchHopper    Architecture = 9
	ArchBlackwell Architecture = 10
)

// String returns "Hopper" and the like.
func (a Architecture) String() string {
	names := [...]string{2: "Kepler", 3: "Maxwell", 4: "Pascal", 5: "Volta", 6: "Turing", 7: "Ampere", 8: "Ada", 9: "Hopper", 10: "Blackwell"}
	if a >= 2 && int(a) < len(names) {
		return names[a]
	}
	return "Architecture(" + strconv.Itoa(int(a)) + ")"
}

// Architecture returns the GPU's architecture (nvmlDeviceGetArchitecture,
// NVML 11.450).
func (d *Device) Architecture() (Architecture, error) {
	a, err := query(d, "nvml.Device.Architecture", backend.NVML.DeviceArchitecture)
	return Architecture(a), err
}

// PCIInfo is where a GPU sits on the PCI bus.
type PCIInfo struct {
	BusID       string // "00000000:19:00.0" (NVML's form; compare with SamePCIBusID)
	Domain      uint32
	Bus         uint32
	Device      uint32
	DeviceID    uint32 // device id << 16 | vendor id (0x10de)
	SubsystemID uint32
}

// PCIInfo returns the GPU's PCI location and ids (nvmlDeviceGetPciInfo_v3,
// NVML 10).
func (d *Device) PCIInfo() (PCIInfo, error) {
	p, err := query(d, "nvml.Device.PCIInfo", backend.NVML.DevicePCIInfo)
	return PCIInfo(p), err
}

// SamePCIBusID reports whether two PCI bus ids, in NVML's form
// ("00000000:19:00.0") or the driver's ("0000:19:00.0"), name the same
// device and function.
func SamePCIBusID(a, b string) bool {
	pa, oka := parseBusID(a)
	pb, okb := parseBusID(b)
	return oka && okb && pa == pb
}

func parseBusID(s string) ([4]uint64, bool) {
	var v [4]uint64
	dom, rest, ok1 := strings.Cut(s, ":")
	bus, rest, ok2 := strings.Cut(rest, ":")
	dev, fn, ok3 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || !ok3 {
		return v, false
	}
	for i, f := range []string{dom, bus, dev, fn} {
		n, err := strconv.ParseUint(f, 16, 32)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// DriverDevice returns the device of l's Driver that is this one (same
// UUID), or an error wrapping ErrNotFound when the driver does not see it
// (CUDA_VISIBLE_DEVICES hides it, or it is a MIG device not made visible).
func (d *Device) DriverDevice() (*driver.Device, error) {
	const op = "nvml.Device.DriverDevice"
	uuid, err := d.UUID()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	drv := d.l.drv
	n, err := drv.DeviceCount()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	for i := range n {
		dd, err := drv.Device(i)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		u, err := dd.UUID()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		if u == uuid {
			return dd, nil
		}
	}
	return nil, fmt.Errorf("%s: %s: the driver has no device of this UUID: %w", op, uuid, ErrNotFound)
}
