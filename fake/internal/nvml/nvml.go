package nvml

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nocgo/cuda/driver/backend"
)

// Core is what the fake NVML needs of the fake driver.
type Core interface {
	// Devices describes the fake's devices, in ordinal order. It is called
	// once.
	Devices() []DeviceInfo
	// Usage is device dev's state now: this process's contexts, allocated
	// bytes and queued work there.
	Usage(dev int) Usage
	// StickyFault is the CUresult of the sticky kernel fault that poisoned
	// the process (0 for none) and the ordinal of the device whose stream
	// holds it (-1 when no open stream does any more).
	StickyFault() (code backend.Result, dev int)
	// Fail is the fault-injection rule for entry point op: an error
	// (*backend.NVMLError) when a rule fires for this call, nil otherwise.
	Fail(op string) error
}

// DeviceInfo is what the driver API says of one device.
type DeviceInfo struct {
	Name         string
	UUID         [16]byte
	Domain       int
	Bus          int
	Device       int
	TotalMemory  uint64
	Major, Minor int
	MemClockKHz  int // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE
}

// Usage is one device's state in the fake's core.
type Usage struct {
	Contexts  int    // live contexts of this process on the device
	Allocated uint64 // bytes of device memory allocated
	Pending   int    // items queued on the device's streams
}

// The H200 values (see the package doc).
const (
	powerLimitMW  = 700_000
	idlePowerMW   = 75_000
	maxSMClock    = 1980
	idleSMClock   = 345
	videoClock    = 1965
	idleTempC     = 31
	busyTempC     = 62
	nvlinkLinks   = 18 // NVML_NVLINK_MAX_LINKS on Hopper
	maxMIGDevices = 7
	bar1Total     = 256 << 30
	pciDeviceID   = 0x233510de // H200 SXM: device 0x2335, vendor 0x10de (pci.ids)
	decayPeriod   = time.Second
)

// NVML's enumerations the fake answers (nvml.h; go-nvml's constants).
const (
	brandNVIDIA    = 14 // NVML_BRAND_NVIDIA
	clockGraphics  = 0  // NVML_CLOCK_GRAPHICS
	clockSM        = 1  // NVML_CLOCK_SM
	clockMem       = 2  // NVML_CLOCK_MEM
	clockVideo     = 3  // NVML_CLOCK_VIDEO
	reasonIdle     = 0x1
	topoInternal   = 0  // NVML_TOPOLOGY_INTERNAL
	topoNode       = 40 // NVML_TOPOLOGY_NODE
	eccCorrected   = 0  // NVML_MEMORY_ERROR_TYPE_CORRECTED
	eccUncorrected = 1
	eccVolatile    = 0 // NVML_VOLATILE_ECC
	eccAggregate   = 1
	noInstance     = 0xFFFFFFFF
)

// Lib is the fake NVML of one fake backend. It is safe for concurrent use.
type Lib struct {
	core  Core
	start time.Time

	mu    sync.Mutex // guards everything below
	refs  int        // nvmlInit_v2 minus nvmlShutdown
	devs  []*device
	sets  map[uintptr]*eventSet
	next  uintptr // the next event set handle
	fault backend.Result
	topo  map[[2]int]int
}

// device is one device's NVML state.
type device struct {
	info   DeviceInfo
	index  int
	handle uintptr

	util, memUtil *uint32 // set by the test, nil: derived from the work
	enc, dec      uint32
	temp          *uint32
	power         *uint32
	smClock       *uint32
	reasons       *uint64
	lost          bool
	ecc           [2][2]uint64 // [type][counter]
	remapped      backend.NVMLRemappedRows

	lastBusy  time.Time // the last call that saw queued work
	lastClock uint32    // the SM clock last reported, for clock events
	energyMJ  float64
	energyAt  time.Time

	links [nvlinkLinks]*link
	mig   []*migDevice
	migOn bool
}

// link is one NVLink link of a device.
type link struct {
	peer   int // the device at the other end
	errors [6]uint64
}

// New returns the fake NVML over core.
func New(core Core) *Lib {
	l := &Lib{core: core, start: time.Now(), sets: map[uintptr]*eventSet{}, next: 0x7e5e7000, topo: map[[2]int]int{}}
	for i, info := range core.Devices() {
		l.devs = append(l.devs, &device{info: info, index: i, handle: deviceHandle(i), energyAt: l.start})
	}
	return l
}

var _ backend.NVML = (*Lib)(nil)

// deviceHandle is device i's nvmlDevice_t: never 0, never a MIG device's.
func deviceHandle(i int) uintptr { return 0x7e000000 + uintptr(i+1)<<12 }

// migHandle is MIG device j of device i.
func migHandle(i, j int) uintptr { return deviceHandle(i) + uintptr(j+1)<<4 }

func nvmlErr(op string, r backend.NVMLReturn, detail string) error {
	return &backend.NVMLError{Return: r, Op: op, Detail: detail}
}

// enter is every entry point's prologue: a fault-injection rule, then
// NVML must be initialised. It returns with l.mu held on success.
func (l *Lib) enter(op string) error {
	if err := l.core.Fail(op); err != nil {
		return err
	}
	l.mu.Lock()
	if l.refs == 0 {
		l.mu.Unlock()
		return nvmlErr(op, backend.NVMLUninitialized, "")
	}
	return nil
}

// dev resolves a full-GPU handle (l.mu held); MIG handles are refused with
// NOT_SUPPORTED as NVML refuses whole-GPU queries on them.
func (l *Lib) devLocked(op string, h uintptr) (*device, error) {
	d, m := l.resolveLocked(h)
	if d == nil {
		return nil, nvmlErr(op, backend.NVMLInvalidArgument, fmt.Sprintf("device handle %#x", h))
	}
	if m != nil {
		return nil, nvmlErr(op, backend.NVMLNotSupported, "a MIG device handle")
	}
	if d.lost {
		return nil, nvmlErr(op, backend.NVMLGPUIsLost, "")
	}
	return d, nil
}

// resolveLocked finds h's device, and its MIG device when h is one.
func (l *Lib) resolveLocked(h uintptr) (*device, *migDevice) {
	for _, d := range l.devs {
		if h == d.handle {
			return d, nil
		}
		if h > d.handle && h < d.handle+1<<12 {
			for _, m := range d.mig {
				if m.handle == h {
					return d, m
				}
			}
			return nil, nil
		}
	}
	return nil, nil
}

// Init is nvmlInit_v2.
func (l *Lib) Init() error {
	if err := l.core.Fail("nvmlInit"); err != nil {
		return err
	}
	l.mu.Lock()
	l.refs++
	l.mu.Unlock()
	return nil
}

// Shutdown is nvmlShutdown: UNINITIALIZED once every Init is matched.
func (l *Lib) Shutdown() error {
	if err := l.enter("nvmlShutdown"); err != nil {
		return err
	}
	l.refs--
	l.mu.Unlock()
	return nil
}

// DriverVersion is nvmlSystemGetDriverVersion.
func (l *Lib) DriverVersion() (string, error) {
	if err := l.enter("nvmlSystemGetDriverVersion"); err != nil {
		return "", err
	}
	l.mu.Unlock()
	return "580.95.05", nil
}

// Version is nvmlSystemGetNVMLVersion.
func (l *Lib) Version() (string, error) {
	if err := l.enter("nvmlSystemGetNVMLVersion"); err != nil {
		return "", err
	}
	l.mu.Unlock()
	return "13.580.95.05", nil
}

// CUDADriverVersion is nvmlSystemGetCudaDriverVersion_v2.
func (l *Lib) CUDADriverVersion() (int, error) {
	if err := l.enter("nvmlSystemGetCudaDriverVersion"); err != nil {
		return 0, err
	}
	l.mu.Unlock()
	return 13000, nil
}

// DeviceCount is nvmlDeviceGetCount_v2.
func (l *Lib) DeviceCount() (int, error) {
	if err := l.enter("nvmlDeviceGetCount"); err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	return len(l.devs), nil
}

// DeviceByIndex is nvmlDeviceGetHandleByIndex_v2.
func (l *Lib) DeviceByIndex(i uint32) (uintptr, error) {
	const op = "nvmlDeviceGetHandleByIndex"
	if err := l.enter(op); err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	if int(i) >= len(l.devs) {
		return 0, nvmlErr(op, backend.NVMLInvalidArgument, fmt.Sprintf("index %d of %d devices", i, len(l.devs)))
	}
	return l.devs[i].handle, nil
}

// DeviceByUUID is nvmlDeviceGetHandleByUUID.
func (l *Lib) DeviceByUUID(uuid string) (uintptr, error) {
	const op = "nvmlDeviceGetHandleByUUID"
	if err := l.enter(op); err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	for _, d := range l.devs {
		if d.uuid() == uuid {
			return d.handle, nil
		}
		for _, m := range d.mig {
			if m.uuid == uuid {
				return m.handle, nil
			}
		}
	}
	return 0, nvmlErr(op, backend.NVMLNotFound, uuid)
}

// DeviceByPCIBusID is nvmlDeviceGetHandleByPciBusId_v2: the long and the
// legacy forms, any case.
func (l *Lib) DeviceByPCIBusID(id string) (uintptr, error) {
	const op = "nvmlDeviceGetHandleByPciBusId"
	if err := l.enter(op); err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	var dom, bus, dev, fn int
	if n, err := fmt.Sscanf(strings.ToLower(id), "%x:%x:%x.%x", &dom, &bus, &dev, &fn); err != nil || n != 4 {
		return 0, nvmlErr(op, backend.NVMLInvalidArgument, fmt.Sprintf("PCI bus id %q", id))
	}
	for _, d := range l.devs {
		if d.info.Domain == dom && d.info.Bus == bus && d.info.Device == dev && fn == 0 {
			return d.handle, nil
		}
	}
	return 0, nvmlErr(op, backend.NVMLNotFound, id)
}

// uuid is the device's UUID as NVML and nvidia-smi print it.
func (d *device) uuid() string {
	u := d.info.UUID
	return fmt.Sprintf("GPU-%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// DeviceIndex is nvmlDeviceGetIndex.
func (l *Lib) DeviceIndex(h uintptr) (int, error) {
	d, err := l.device("nvmlDeviceGetIndex", h)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	return d.index, nil
}

// device is enter and devLocked: with l.mu held on success.
func (l *Lib) device(op string, h uintptr) (*device, error) {
	if err := l.enter(op); err != nil {
		return nil, err
	}
	d, err := l.devLocked(op, h)
	if err != nil {
		l.mu.Unlock()
		return nil, err
	}
	return d, nil
}

// any is enter and resolveLocked for calls that MIG devices answer too.
func (l *Lib) any(op string, h uintptr) (*device, *migDevice, error) {
	if err := l.enter(op); err != nil {
		return nil, nil, err
	}
	d, m := l.resolveLocked(h)
	if d == nil {
		l.mu.Unlock()
		return nil, nil, nvmlErr(op, backend.NVMLInvalidArgument, fmt.Sprintf("device handle %#x", h))
	}
	if d.lost {
		l.mu.Unlock()
		return nil, nil, nvmlErr(op, backend.NVMLGPUIsLost, "")
	}
	return d, m, nil
}

// DeviceName is nvmlDeviceGetName.
func (l *Lib) DeviceName(h uintptr) (string, error) {
	d, m, err := l.any("nvmlDeviceGetName", h)
	if err != nil {
		return "", err
	}
	defer l.mu.Unlock()
	if m != nil {
		return d.info.Name + " MIG " + m.spec.Profile, nil
	}
	return d.info.Name, nil
}

// DeviceUUID is nvmlDeviceGetUUID.
func (l *Lib) DeviceUUID(h uintptr) (string, error) {
	d, m, err := l.any("nvmlDeviceGetUUID", h)
	if err != nil {
		return "", err
	}
	defer l.mu.Unlock()
	if m != nil {
		return m.uuid, nil
	}
	return d.uuid(), nil
}

// DeviceSerial is nvmlDeviceGetSerial: 13 digits made of the UUID.
func (l *Lib) DeviceSerial(h uintptr) (string, error) {
	d, err := l.device("nvmlDeviceGetSerial", h)
	if err != nil {
		return "", err
	}
	defer l.mu.Unlock()
	u := d.info.UUID
	return fmt.Sprintf("165%010d", (uint64(u[12])<<24|uint64(u[13])<<16|uint64(u[14])<<8|uint64(u[15]))%10_000_000_000), nil
}

// DeviceBoardPartNumber is nvmlDeviceGetBoardPartNumber.
func (l *Lib) DeviceBoardPartNumber(h uintptr) (string, error) {
	if _, err := l.device("nvmlDeviceGetBoardPartNumber", h); err != nil {
		return "", err
	}
	l.mu.Unlock()
	return "692-2G520-0280-FAK", nil
}

// DeviceBrand is nvmlDeviceGetBrand.
func (l *Lib) DeviceBrand(h uintptr) (int, error) {
	if _, _, err := l.any("nvmlDeviceGetBrand", h); err != nil {
		return 0, err
	}
	l.mu.Unlock()
	return brandNVIDIA, nil
}

// DeviceArchitecture is nvmlDeviceGetArchitecture, from the compute
// capability (nvmlDeviceArchitecture_t: Kepler 2 ... Hopper 9, Blackwell 10).
func (l *Lib) DeviceArchitecture(h uintptr) (int, error) {
	d, _, err := l.any("nvmlDeviceGetArchitecture", h)
	if err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	switch cc := d.info.Major*10 + d.info.Minor; {
	case cc >= 100:
		return 10, nil
	case cc >= 90:
		return 9, nil
	case cc == 89:
		return 8, nil
	case cc >= 80:
		return 7, nil
	case cc == 75:
		return 6, nil
	case cc >= 70:
		return 5, nil
	case cc >= 60:
		return 4, nil
	case cc >= 50:
		return 3, nil
	}
	return 2, nil
}

// DevicePCIInfo is nvmlDeviceGetPciInfo_v3.
func (l *Lib) DevicePCIInfo(h uintptr) (backend.NVMLPCIInfo, error) {
	d, err := l.device("nvmlDeviceGetPciInfo", h)
	if err != nil {
		return backend.NVMLPCIInfo{}, err
	}
	defer l.mu.Unlock()
	return d.pci(), nil
}

func (d *device) pci() backend.NVMLPCIInfo {
	return backend.NVMLPCIInfo{
		BusID:  fmt.Sprintf("%08X:%02X:%02X.0", d.info.Domain, d.info.Bus, d.info.Device),
		Domain: uint32(d.info.Domain), Bus: uint32(d.info.Bus), Device: uint32(d.info.Device),
		DeviceID: pciDeviceID,
	}
}

// DeviceMemoryInfo is nvmlDeviceGetMemoryInfo: used is what this process
// has allocated on the device in the fake (the fake's cuMemGetInfo agrees).
func (l *Lib) DeviceMemoryInfo(h uintptr) (backend.NVMLMemory, error) {
	d, m, err := l.any("nvmlDeviceGetMemoryInfo", h)
	if err != nil {
		return backend.NVMLMemory{}, err
	}
	defer l.mu.Unlock()
	if m != nil {
		return backend.NVMLMemory{Total: m.spec.Memory, Free: m.spec.Memory}, nil
	}
	u := l.core.Usage(d.index)
	used := min(u.Allocated, d.info.TotalMemory)
	return backend.NVMLMemory{Total: d.info.TotalMemory, Used: used, Free: d.info.TotalMemory - used}, nil
}

// DeviceBAR1MemoryInfo is nvmlDeviceGetBAR1MemoryInfo.
func (l *Lib) DeviceBAR1MemoryInfo(h uintptr) (backend.NVMLMemory, error) {
	if _, err := l.device("nvmlDeviceGetBAR1MemoryInfo", h); err != nil {
		return backend.NVMLMemory{}, err
	}
	l.mu.Unlock()
	const used = 2 << 20
	return backend.NVMLMemory{Total: bar1Total, Used: used, Free: bar1Total - used}, nil
}

// ComputeProcesses is nvmlDeviceGetComputeRunningProcesses_v3: this
// process, where it has a context, with its allocated bytes.
func (l *Lib) DeviceComputeProcesses(h uintptr) ([]backend.NVMLProcess, error) {
	d, m, err := l.any("nvmlDeviceGetComputeRunningProcesses", h)
	if err != nil {
		return nil, err
	}
	defer l.mu.Unlock()
	if m != nil {
		return nil, nil // the fake's contexts are on whole GPUs
	}
	u := l.core.Usage(d.index)
	if u.Contexts == 0 {
		return nil, nil
	}
	return []backend.NVMLProcess{{PID: uint32(os.Getpid()), UsedMemory: u.Allocated, GPUInstanceID: noInstance, ComputeInstanceID: noInstance}}, nil
}

// DeviceGraphicsProcesses is nvmlDeviceGetGraphicsRunningProcesses_v3:
// none (the fake runs no graphics).
func (l *Lib) DeviceGraphicsProcesses(h uintptr) ([]backend.NVMLProcess, error) {
	if _, _, err := l.any("nvmlDeviceGetGraphicsRunningProcesses", h); err != nil {
		return nil, err
	}
	l.mu.Unlock()
	return nil, nil
}
