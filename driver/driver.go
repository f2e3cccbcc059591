// Package driver is where a program starts: the Driver (the real libcuda,
// opened by Load, or the in-process fake of package fake), its Devices, and
// the Contexts that every other object is made in. Errors of the driver are
// Result values with CUDA's names, matched with errors.Is.
//
// Every object made in a Context holds it until the object's Close; see
// Context for this lifetime rule, which every package of the module follows.
// The packages stream, memory and module build on the Context defined here;
// the seam between these objects and a driver implementation is package
// driver/backend, which users never need.
package driver

import (
	"errors"
	"fmt"
	"sync"

	"github.com/nocgo/cuda/driver/backend"
)

// Driver is a backend made ready for use: cuInit has been called on it. It is
// safe for concurrent use and holds no resources of its own to release.
type Driver struct {
	api backend.API

	mu      sync.Mutex
	devices map[int]*Device
}

// New initialises a backend (cuInit(0)) and returns a Driver over it. Load
// and fake.New call it; a program needs it only for a backend of its own.
func New(api backend.API) (*Driver, error) {
	if api == nil {
		return nil, errors.New("driver.New: nil API")
	}
	if r := api.Init(0); r != nil {
		return nil, fmt.Errorf("driver.New: cuInit: %w", r)
	}
	return &Driver{api: api, devices: map[int]*Device{}}, nil
}

// errNilDriver is what every method of a nil *Driver returns.
var errNilDriver = fmt.Errorf("driver: nil driver: %w", ErrInvalidValue)

// Version returns the driver's CUDA version as 1000*major + 10*minor
// (13000 for CUDA 13.0).
func (d *Driver) Version() (int, error) {
	if d == nil || d.api == nil {
		return 0, errNilDriver
	}
	v, r := d.api.DriverGetVersion()
	if r != nil {
		return 0, fmt.Errorf("driver: cuDriverGetVersion: %w", r)
	}
	return v, nil
}

// DeviceCount returns the number of CUDA devices visible to the process.
func (d *Driver) DeviceCount() (int, error) {
	if d == nil || d.api == nil {
		return 0, errNilDriver
	}
	n, r := d.api.DeviceGetCount()
	if r != nil {
		return 0, fmt.Errorf("driver: cuDeviceGetCount: %w", r)
	}
	return n, nil
}

// Device returns device ordinal i. The same *Device is returned for the same
// ordinal.
func (d *Driver) Device(i int) (*Device, error) {
	if d == nil || d.api == nil {
		return nil, errNilDriver
	}
	h, r := d.api.DeviceGet(i)
	if r != nil {
		return nil, fmt.Errorf("driver: device %d: cuDeviceGet: %w", i, r)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if dev, ok := d.devices[i]; ok {
		return dev, nil
	}
	dev := &Device{drv: d, ordinal: i, handle: h}
	d.devices[i] = dev
	return dev, nil
}

// deviceByHandle returns the Device for a CUdevice handle.
func (d *Driver) deviceByHandle(h int) (*Device, error) {
	n, err := d.DeviceCount()
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		dev, err := d.Device(i)
		if err != nil {
			return nil, err
		}
		if dev.handle == h {
			return dev, nil
		}
	}
	return nil, fmt.Errorf("driver: no device has handle %d: %w", h, ErrInvalidDevice)
}

// NVRTCVersion returns the version of the run-time compiler (libnvrtc) the
// driver compiles kernels with (package module), opening it on first use for
// the real driver.
func (d *Driver) NVRTCVersion() (major, minor int, err error) {
	if d == nil || d.api == nil {
		return 0, 0, errNilDriver
	}
	p, ok := d.api.(backend.NVRTCProvider)
	if !ok {
		return 0, 0, errors.New("driver: this backend has no run-time compiler (NVRTC)")
	}
	nv, err := p.NVRTC()
	if err != nil {
		return 0, 0, fmt.Errorf("driver: %w", err)
	}
	return nv.Version()
}

// LibraryPaths returns the shared libraries the backend has opened, or nil
// for a backend that opened none (the fake).
func (d *Driver) LibraryPaths() []string {
	if d == nil || d.api == nil {
		return nil
	}
	if p, ok := d.api.(backend.LibraryPaths); ok {
		return p.LibraryPaths()
	}
	return nil
}
