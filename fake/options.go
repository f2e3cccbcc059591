package fake

import (
	"io"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake/internal/nvrtc"
)

// Option configures a Backend built by New or NewBackend.
type Option func(*config)

// DeviceSpec describes one custom fake device for WithDevice. Zero fields take
// the default device's values (an H200-like device, compute capability 9.0).
type DeviceSpec struct {
	Name     string // cuDeviceGetName; default "Fake CUDA Device N"
	Major    int    // compute capability major; default 9
	Minor    int    // compute capability minor; default 0
	TotalMem uint64 // bytes of device memory; default 8 GiB
	SMs      int    // multiprocessor count; default 132
	// Attrs overrides or adds device attributes.
	Attrs map[driver.DeviceAttribute]int
}

type faultRule struct {
	n    int64
	code driver.Result
}

type kernelReg struct {
	name string
	body any
}

type config struct {
	devices    []DeviceSpec
	devicesSet bool
	compiler   nvrtc.Choice // NVRTC or PretendNVRTC (nvrtc.go)
	version    int
	kernels    []kernelReg
	faults     map[string][]faultRule
	workers    int       // blocks an interpreted launch runs at once (interp.go)
	output     io.Writer // where printf in interpreted kernels prints (interp.go)
	outputSet  bool
	races      bool         // the race detector is on (race.go)
	raceReport func(Hazard) // where it reports, besides Fake.Hazards
	cacheDir   string       // module.Compile's cache directory (kernel_cache.go)
	// streamRacesOnly: the race detector without its checks inside a
	// launch, for the cost benchmark (export_test.go) only.
	streamRacesOnly bool
}

// Devices adds n default devices (an H200-like device with 8 GiB of fake
// memory each). Without any Devices or WithDevice option the backend has one.
func Devices(n int) Option {
	return func(c *config) {
		c.devicesSet = true
		for i := 0; i < n; i++ {
			c.devices = append(c.devices, DeviceSpec{})
		}
	}
}

// WithDevice adds one custom device, after the devices added by earlier options.
func WithDevice(spec DeviceSpec) Option {
	return func(c *config) {
		c.devicesSet = true
		c.devices = append(c.devices, spec)
	}
}

// DriverVersion sets the version cuDriverGetVersion reports (default 13000,
// CUDA 13.0). Entry points newer than v are missing: calling them returns a
// *backend.SymbolError (loader.SymbolError is the same type), as the real
// backend does on an older driver.
func DriverVersion(v int) Option {
	return func(c *config) { c.version = v }
}

// Kernel registers the Go body of the kernel name, so that programs compiled
// by the fake NVRTC and modules loaded on the fake can launch it. body is a
// func whose first parameter is a Thread and whose other parameters are the
// kernel's, in order: Ptr (a device pointer), int8..int64, uint8..uint64,
// float32, float64, or a struct (or array) of those. For a template
// instantiated through a name expression, name is the expression's exact
// text ("scale<float>"). A body of the wrong shape makes the compile or
// module load that needs it fail with a message saying why.
func Kernel(name string, body any) Option {
	return func(c *config) { c.kernels = append(c.kernels, kernelReg{name, body}) }
}

// FailNth makes the n-th call (counting from 1, from the backend's creation)
// of the entry point op fail with code and change nothing. op is the CUDA
// name ("cuMemAlloc", "cuStreamCreateWithPriority", "cuLaunchKernel",
// "nvrtcCompileProgram"); a "_v2"/"_v3" suffix is ignored. Each rule fires
// once; several rules may name the same entry point.
func FailNth(op string, n int, code driver.Result) Option {
	return func(c *config) {
		if c.faults == nil {
			c.faults = map[string][]faultRule{}
		}
		op = baseName(op)
		c.faults[op] = append(c.faults[op], faultRule{int64(n), code})
	}
}
