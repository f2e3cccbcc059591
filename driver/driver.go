// Package driver is where a program starts: the Driver (the real libcuda,
// opened by [github.com/nocgo/cuda/gpu.Load], or the in-process fake of
// package fake), its Devices, and the Contexts that every other object is
// made in. Errors of the driver are Result values with CUDA's names,
// matched with errors.Is.
//
// Errors name the call that failed first (driver.Device.Name: ...), then the
// object and the driver entry point, and wrap the cause (driver.Device.Name:
// device 0: cuDeviceGetName: CUDA_ERROR_...).
//
// Every object made in a Context holds it until the object's Close; see
// Context for this lifetime rule, which every package of the module follows.
// The packages stream, memory and module build on the Context defined here;
// the seam between these objects and a driver implementation is package
// driver/backend, which users never need.
//
// # Zero values, other drivers, closing
//
// One rule holds for every exported type of driver, stream, memory, module,
// graph and nccl: a nil pointer or a zero value (one not made by this
// module) never panics. Accessors answer zero values ("nil stream", 0, nil);
// every other method, Close included, returns an error wrapping
// ErrInvalidValue; only a second Close of an object that was made returns
// nil. A zero object given as an argument is refused like a nil one, and an
// object of another *Driver (see Context.Same) with an error wrapping
// ErrWrongContext, before any driver call. Calls on an object hold it while
// they run: a Close racing them waits for them (calls begun after it fail
// with ErrClosed), so no call hands the driver a destroyed handle. A create
// call either returns its object or destroys what the driver made, even
// when only its unbinding failed. A panic or runtime.Goexit in a function
// given to the library (graph.Capture, nccl.Group, stream callbacks)
// leaves the library's state as it was, and the panic goes on to the
// caller (callbacks report it through Synchronize instead).
package driver

import (
	"errors"
	"fmt"
	"sync"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Driver is a backend made ready for use: cuInit has been called on it. It is
// safe for concurrent use and holds no resources of its own to release.
type Driver struct {
	driverLink // its backend (core.APIOf), for the packages above
	api        backend.API

	mu      sync.Mutex
	devices map[int]*Device
}

// New initialises a backend (cuInit(0)) and returns a Driver over it.
// gpu.Load and fake.New call it; a program needs it only for a backend of
// its own.
//
// New is the seam's entry, as database/sql.OpenDB is: the one exported name
// of the user packages whose signature names a backend type. Everything
// else a Driver gives users is this library's own types.
func New(api backend.API) (*Driver, error) {
	d, err := newDriver(api)
	if err != nil {
		return nil, fmt.Errorf("driver.New: %w", err)
	}
	return d, nil
}

// newDriver is New, with errors that do not name the call.
func newDriver(api backend.API) (*Driver, error) {
	if api == nil {
		return nil, errors.New("nil API")
	}
	if r := api.Init(0); r != nil {
		return nil, fmt.Errorf("cuInit: %w", r)
	}
	return &Driver{driverLink: core.LinkDriver(api), api: api, devices: map[int]*Device{}}, nil
}

// driverLink ties a Driver to its backend for the packages above.
type driverLink = core.DriverLink

// nilDriver is what op, a method of a nil or zero *Driver, returns.
func nilDriver(op string) error {
	return fmt.Errorf("%s: nil driver: %w", op, ErrInvalidValue)
}

// Version returns the driver's CUDA version as 1000*major + 10*minor
// (13000 for CUDA 13.0).
func (d *Driver) Version() (int, error) {
	const op = "driver.Driver.Version"
	if d == nil || d.api == nil {
		return 0, nilDriver(op)
	}
	v, r := d.api.DriverGetVersion()
	if r != nil {
		return 0, fmt.Errorf("%s: cuDriverGetVersion: %w", op, r)
	}
	return v, nil
}

// DeviceCount returns the number of CUDA devices visible to the process.
func (d *Driver) DeviceCount() (int, error) {
	const op = "driver.Driver.DeviceCount"
	if d == nil || d.api == nil {
		return 0, nilDriver(op)
	}
	n, err := d.deviceCount()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return n, nil
}

func (d *Driver) deviceCount() (int, error) {
	n, r := d.api.DeviceGetCount()
	if r != nil {
		return 0, fmt.Errorf("cuDeviceGetCount: %w", r)
	}
	return n, nil
}

// Device returns device ordinal i. The same *Device is returned for the same
// ordinal.
func (d *Driver) Device(i int) (*Device, error) {
	const op = "driver.Driver.Device"
	if d == nil || d.api == nil {
		return nil, nilDriver(op)
	}
	dev, err := d.device(i)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return dev, nil
}

func (d *Driver) device(i int) (*Device, error) {
	h, r := d.api.DeviceGet(i)
	if r != nil {
		return nil, fmt.Errorf("device %d: cuDeviceGet: %w", i, r)
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
	n, err := d.deviceCount()
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		dev, err := d.device(i)
		if err != nil {
			return nil, err
		}
		if dev.handle == h {
			return dev, nil
		}
	}
	return nil, fmt.Errorf("no device has handle %d: %w", h, ErrInvalidDevice)
}

// NVRTCVersion returns the version of the run-time compiler (libnvrtc) the
// driver compiles kernels with (package module), opening it on first use for
// the real driver.
func (d *Driver) NVRTCVersion() (major, minor int, err error) {
	const op = "driver.Driver.NVRTCVersion"
	if d == nil || d.api == nil {
		return 0, 0, nilDriver(op)
	}
	p, ok := d.api.(backend.NVRTCProvider)
	if !ok {
		return 0, 0, fmt.Errorf("%s: this backend has no run-time compiler (NVRTC)", op)
	}
	nv, err := p.NVRTC()
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", op, err)
	}
	if major, minor, err = nv.Version(); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", op, err)
	}
	return major, minor, nil
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
