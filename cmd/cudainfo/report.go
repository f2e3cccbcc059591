package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// report is everything cudainfo prints.
type report struct {
	Backend       string      `json:"backend"`
	DriverVersion string      `json:"driver_version"`
	Libraries     []string    `json:"libraries,omitempty"`
	NVRTCVersion  string      `json:"nvrtc_version,omitempty"`
	NVRTCCompiler string      `json:"nvrtc_compiler,omitempty"`
	NVRTCError    string      `json:"nvrtc_error,omitempty"`
	Devices       []device    `json:"devices"`
	NVML          *nvmlReport `json:"nvml,omitempty"` // NVML's view (nvml.go)
	SelfTest      *selfResult `json:"selftest,omitempty"`
}

type device struct {
	Ordinal           int    `json:"ordinal"`
	Name              string `json:"name"`
	UUID              string `json:"uuid"`
	PCIBusID          string `json:"pci_bus_id"`
	ComputeCapability string `json:"compute_capability"`
	TotalMemoryBytes  uint64 `json:"total_memory_bytes"`
	Multiprocessors   int    `json:"multiprocessors"`
	Attributes        []attr `json:"attributes"`
	// Properties are all of driver.Device.Properties, printed one a line.
	Properties driver.Properties `json:"properties"`
}

type attr struct {
	Name  string `json:"name"`
	Value int    `json:"value"`
}

// keyAttributes are the attributes the JSON report lists for each device
// (the printed report gives all of its Properties).
var keyAttributes = []struct {
	name string
	a    driver.DeviceAttribute
}{
	{"max threads per block", driver.AttrMaxThreadsPerBlock},
	{"max threads per multiprocessor", driver.AttrMaxThreadsPerMultiprocessor},
	{"warp size", driver.AttrWarpSize},
	{"shared memory per block (bytes)", driver.AttrMaxSharedMemoryPerBlock},
	{"shared memory per block, opt-in (bytes)", driver.AttrMaxSharedMemoryPerBlockOptin},
	{"registers per block", driver.AttrMaxRegistersPerBlock},
	{"L2 cache (bytes)", driver.AttrL2CacheSize},
	{"memory bus width (bits)", driver.AttrGlobalMemoryBusWidth},
	{"clock rate (kHz)", driver.AttrClockRate},
	{"memory clock rate (kHz)", driver.AttrMemoryClockRate},
	{"async copy engines", driver.AttrAsyncEngineCount},
	{"unified addressing", driver.AttrUnifiedAddressing},
	{"memory pools supported", driver.AttrMemoryPoolsSupported},
}

func collect(drv *driver.Driver, api backend.API, isFake bool) (*report, error) {
	rep := &report{Backend: "libcuda"}
	if isFake {
		rep.Backend = "fake"
	}
	v, err := drv.Version()
	if err != nil {
		return rep, err
	}
	rep.DriverVersion = fmt.Sprintf("%d.%d", v/1000, v%1000/10)
	if major, minor, err := drv.NVRTCVersion(); err != nil {
		rep.NVRTCError = err.Error()
	} else {
		rep.NVRTCVersion = fmt.Sprintf("%d.%d", major, minor)
		rep.NVRTCCompiler = compilerOf(api, isFake)
	}
	rep.Libraries = drv.LibraryPaths()
	n, err := drv.DeviceCount()
	if err != nil {
		return rep, err
	}
	for i := 0; i < n; i++ {
		d, err := describe(drv, i)
		if err != nil {
			return rep, err
		}
		rep.Devices = append(rep.Devices, d)
	}
	rep.NVML = collectNVML(drv)
	return rep, nil
}

func describe(drv *driver.Driver, i int) (device, error) {
	out := device{Ordinal: i}
	dev, err := drv.Device(i)
	if err != nil {
		return out, err
	}
	p, err := dev.Properties()
	if err != nil {
		return out, err
	}
	out.Properties = p
	out.Name, out.UUID, out.PCIBusID = p.Name, p.UUID, p.PCIBusIDStr
	out.ComputeCapability = fmt.Sprintf("%d.%d", p.Major, p.Minor)
	out.TotalMemoryBytes, out.Multiprocessors = p.TotalMemory, p.MultiprocessorCount
	for _, k := range keyAttributes {
		v, err := dev.Attribute(k.a)
		if err != nil {
			return out, err
		}
		out.Attributes = append(out.Attributes, attr{k.name, v})
	}
	return out, nil
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "backend:        %s\n", r.Backend)
	fmt.Fprintf(w, "driver:         CUDA %s\n", r.DriverVersion)
	for _, l := range r.Libraries {
		fmt.Fprintf(w, "library:        %s\n", l)
	}
	if r.NVRTCVersion != "" {
		fmt.Fprintf(w, "nvrtc:          %s (%s)\n", r.NVRTCVersion, r.NVRTCCompiler)
	} else {
		fmt.Fprintf(w, "nvrtc:          not available: %s\n", r.NVRTCError)
	}
	fmt.Fprintf(w, "devices:        %d\n", len(r.Devices))
	for _, d := range r.Devices {
		fmt.Fprintf(w, "\ndevice %d: %s\n", d.Ordinal, d.Name)
		fmt.Fprintf(w, "  compute capability   %s\n", d.ComputeCapability)
		fmt.Fprintf(w, "  memory               %.1f GiB (%d bytes)\n", float64(d.TotalMemoryBytes)/(1<<30), d.TotalMemoryBytes)
		fmt.Fprintf(w, "  multiprocessors      %d\n", d.Multiprocessors)
		fmt.Fprintf(w, "  uuid                 %s\n", d.UUID)
		fmt.Fprintf(w, "  pci bus id           %s\n", d.PCIBusID)
		printProperties(w, d.Properties)
	}
	if r.NVML != nil {
		r.NVML.print(w)
	}
	if s := r.SelfTest; s != nil {
		fmt.Fprintf(w, "\nself-test:      %s\n", strings.TrimSpace(s.Summary))
	}
}
