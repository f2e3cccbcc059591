// Package driver holds the CUDA driver API seam (API, NVRTC), its result
// codes, and the typed core objects above it: Driver, Device and Context.
//
// A Driver is built by Load (the real libcuda, found by package loader) or by
// New over any backend, such as the in-process fake of package fake. The
// packages stream, memory and module build on the Context type defined here.
package driver

import (
	"errors"
	"fmt"
	"sync"
)

// ErrClosed is returned by every operation on an object after its Close,
// Release, Free or Unload. The packages above re-export it.
var ErrClosed = errors.New("cuda: object is closed")

// Driver is a backend made ready for use: cuInit has been called on it. It is
// safe for concurrent use and holds no resources of its own to release.
type Driver struct {
	api API

	mu      sync.Mutex
	devices map[int]*Device
}

// New initialises the backend (cuInit(0)) and returns a Driver over it.
func New(api API) (*Driver, error) {
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

// API returns the raw backend, for calls the typed layer does not wrap.
func (d *Driver) API() API {
	if d == nil {
		return nil
	}
	return d.api
}

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

// NVRTC returns the backend's run-time compiler, opening libnvrtc on first use
// for the real driver.
func (d *Driver) NVRTC() (NVRTC, error) {
	if d == nil || d.api == nil {
		return nil, errNilDriver
	}
	p, ok := d.api.(NVRTCProvider)
	if !ok {
		return nil, errors.New("driver: this backend has no run-time compiler (NVRTC)")
	}
	return p.NVRTC()
}

// LibraryPaths returns the shared libraries the backend has opened, or nil
// for a backend that opened none (the fake).
func (d *Driver) LibraryPaths() []string {
	if d == nil || d.api == nil {
		return nil
	}
	if p, ok := d.api.(LibraryPaths); ok {
		return p.LibraryPaths()
	}
	return nil
}
