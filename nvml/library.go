package nvml

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Library is NVML, initialised for this program: where its Devices and
// EventSets come from. Open makes one; Close shuts it down. It is safe for
// concurrent use.
type Library struct {
	api backend.NVML
	drv *driver.Driver

	mu     sync.RWMutex // read-held by every call into NVML; Close takes it
	closed bool

	setsMu sync.Mutex         // guards sets
	sets   map[*EventSet]bool // the event sets not yet closed, freed by Close
}

// Open initialises NVML on drv's backend (nvmlInit_v2, NVML 5.319 and
// later): libnvidia-ml.so.1 for the real driver, opened on the first Open
// of the process; the fake's NVML for the fake driver. Each Open is matched
// by its Library's Close: NVML counts them, and stays initialised until the
// last Close.
func Open(drv *driver.Driver) (*Library, error) {
	const op = "nvml.Open"
	api := core.APIOf(drv)
	if api == nil {
		return nil, fmt.Errorf("%s: nil driver: %w", op, driver.ErrInvalidInput)
	}
	p, ok := api.(backend.NVMLProvider)
	if !ok {
		return nil, fmt.Errorf("%s: %w: %w", op, errNoNVML, errors.ErrUnsupported)
	}
	n, err := p.NVML()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := n.Init(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return &Library{api: n, drv: drv}, nil
}

// Close frees the Library's event sets still open and shuts NVML down
// (nvmlShutdown), once every call in flight has returned; later uses of the Library, its Devices and EventSets fail with
// ErrClosed. A second Close returns nil. When nvmlShutdown fails, the
// Library stays open and Close can be called again.
func (l *Library) Close() error {
	const op = "nvml.Library.Close"
	if l == nil || l.api == nil {
		return fmt.Errorf("%s: nil library: %w", op, driver.ErrInvalidInput)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.setsMu.Lock()
	open := make([]*EventSet, 0, len(l.sets))
	for s := range l.sets {
		open = append(open, s)
	}
	l.setsMu.Unlock()
	for _, s := range open {
		if err := s.freeLocked(op); err != nil {
			return err
		}
	}
	if err := l.api.Shutdown(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	l.closed = true
	return nil
}

// enter read-holds l for one call into NVML; leave ends it. enter returns
// op's error for a nil, zero or closed Library.
func (l *Library) enter(op string) error {
	if l == nil || l.api == nil {
		return fmt.Errorf("%s: nil library: %w", op, driver.ErrInvalidInput)
	}
	l.mu.RLock()
	if l.closed {
		l.mu.RUnlock()
		return fmt.Errorf("%s: %w", op, ErrClosed)
	}
	return nil
}

func (l *Library) leave() { l.mu.RUnlock() }

// DriverVersion returns the NVIDIA driver's version ("580.95.05";
// nvmlSystemGetDriverVersion, NVML 1).
func (l *Library) DriverVersion() (string, error) {
	const op = "nvml.Library.DriverVersion"
	if err := l.enter(op); err != nil {
		return "", err
	}
	defer l.leave()
	v, err := l.api.DriverVersion()
	if err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	return v, nil
}

// Version returns NVML's own version ("13.580.95.05";
// nvmlSystemGetNVMLVersion, NVML 1).
func (l *Library) Version() (string, error) {
	const op = "nvml.Library.Version"
	if err := l.enter(op); err != nil {
		return "", err
	}
	defer l.leave()
	v, err := l.api.Version()
	if err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	return v, nil
}

// CUDADriverVersion returns the CUDA version the driver supports, as
// driver.Driver.Version does (13000 for 13.0;
// nvmlSystemGetCudaDriverVersion_v2, NVML 10).
func (l *Library) CUDADriverVersion() (int, error) {
	const op = "nvml.Library.CUDADriverVersion"
	if err := l.enter(op); err != nil {
		return 0, err
	}
	defer l.leave()
	v, err := l.api.CUDADriverVersion()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return v, nil
}

// DeviceCount returns the number of GPUs NVML sees (nvmlDeviceGetCount_v2,
// NVML 5.319). It may differ from the driver's count where
// CUDA_VISIBLE_DEVICES hides some from CUDA: NVML ignores that variable.
func (l *Library) DeviceCount() (int, error) {
	const op = "nvml.Library.DeviceCount"
	if err := l.enter(op); err != nil {
		return 0, err
	}
	defer l.leave()
	n, err := l.api.DeviceCount()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return n, nil
}

// Device returns GPU i in NVML's order, which is PCI bus order
// (nvmlDeviceGetHandleByIndex_v2, NVML 5.319). It may differ from CUDA's
// order: use DeviceOf to find a driver.Device's.
func (l *Library) Device(i int) (*Device, error) {
	const op = "nvml.Library.Device"
	if err := l.enter(op); err != nil {
		return nil, err
	}
	defer l.leave()
	if uint64(i) > math.MaxUint32 {
		return nil, fmt.Errorf("%s: index %d: %w", op, i, driver.ErrInvalidInput)
	}
	h, err := l.api.DeviceByIndex(uint32(i))
	if err != nil {
		return nil, fmt.Errorf("%s: index %d: %w", op, i, err)
	}
	return &Device{l: l, h: h}, nil
}

// DeviceByUUID returns the GPU or MIG device of that UUID ("GPU-..." or
// "MIG-..."; nvmlDeviceGetHandleByUUID, NVML 1).
func (l *Library) DeviceByUUID(uuid string) (*Device, error) {
	const op = "nvml.Library.DeviceByUUID"
	if err := l.enter(op); err != nil {
		return nil, err
	}
	defer l.leave()
	if uuid == "" {
		return nil, fmt.Errorf("%s: empty UUID: %w", op, driver.ErrInvalidInput)
	}
	h, err := l.api.DeviceByUUID(uuid)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", op, uuid, err)
	}
	return l.deviceOf(h), nil
}

// deviceOf makes the Device of handle h, knowing whether it is a MIG
// device (not, where NVML cannot say: a GPU without MIG, an NVML older than
// MIG).
func (l *Library) deviceOf(h uintptr) *Device {
	mig, err := l.api.DeviceIsMIG(h)
	return &Device{l: l, h: h, mig: err == nil && mig}
}

// DeviceByPCIBusID returns the GPU at that PCI bus id, in NVML's form
// ("00000000:19:00.0") or the driver's ("0000:19:00.0", which
// driver.Device.PCIBusID returns) (nvmlDeviceGetHandleByPciBusId_v2, NVML
// 5.319).
func (l *Library) DeviceByPCIBusID(id string) (*Device, error) {
	const op = "nvml.Library.DeviceByPCIBusID"
	if err := l.enter(op); err != nil {
		return nil, err
	}
	defer l.leave()
	if id == "" {
		return nil, fmt.Errorf("%s: empty PCI bus id: %w", op, driver.ErrInvalidInput)
	}
	h, err := l.api.DeviceByPCIBusID(id)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", op, id, err)
	}
	return &Device{l: l, h: h}, nil
}

// DeviceOf returns NVML's view of a device of the driver, found by its UUID.
func (l *Library) DeviceOf(d *driver.Device) (*Device, error) {
	const op = "nvml.Library.DeviceOf"
	if d == nil || d.Driver() == nil {
		return nil, fmt.Errorf("%s: nil device: %w", op, driver.ErrInvalidInput)
	}
	uuid, err := d.UUID()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	dev, err := l.DeviceByUUID(uuid)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return dev, nil
}

// Devices iterates over the GPUs in NVML's order. On an error it yields a
// nil Device with the error, once, and stops.
func (l *Library) Devices() iter.Seq2[*Device, error] {
	return func(yield func(*Device, error) bool) {
		n, err := l.DeviceCount()
		if err != nil {
			yield(nil, fmt.Errorf("nvml.Library.Devices: %w", err))
			return
		}
		for i := range n {
			d, err := l.Device(i)
			if err != nil {
				yield(nil, fmt.Errorf("nvml.Library.Devices: %w", err))
				return
			}
			if !yield(d, nil) {
				return
			}
		}
	}
}
