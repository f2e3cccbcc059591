package main

import (
	"fmt"
	"io"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/nvml"
)

// nvmlReport is NVML's view of the machine (package nvml).
type nvmlReport struct {
	DriverVersion string       `json:"driver_version,omitempty"`
	Version       string       `json:"version,omitempty"`
	Error         string       `json:"error,omitempty"` // why NVML could not be opened
	Devices       []nvmlDevice `json:"devices,omitempty"`
}

// nvmlDevice is one device as NVML sees it; a query the device does not
// answer is left out and its error kept in Errors.
type nvmlDevice struct {
	Ordinal       int      `json:"ordinal"` // the driver's
	Architecture  string   `json:"architecture,omitempty"`
	Serial        string   `json:"serial,omitempty"`
	MemoryUsed    uint64   `json:"memory_used_bytes"`
	MemoryFree    uint64   `json:"memory_free_bytes"`
	BAR1Total     uint64   `json:"bar1_total_bytes,omitempty"`
	GPUUtil       uint32   `json:"gpu_utilization_percent"`
	MemUtil       uint32   `json:"memory_utilization_percent"`
	TemperatureC  uint32   `json:"temperature_c,omitempty"`
	PowerMW       uint32   `json:"power_mw,omitempty"`
	PowerLimitMW  uint32   `json:"power_limit_mw,omitempty"`
	SMClockMHz    uint32   `json:"sm_clock_mhz,omitempty"`
	MaxSMClockMHz uint32   `json:"max_sm_clock_mhz,omitempty"`
	PState        int      `json:"pstate"`
	ECC           bool     `json:"ecc"`
	Processes     []string `json:"processes,omitempty"`
	Errors        []string `json:"errors,omitempty"`
}

// collectNVML asks NVML about each of the driver's devices.
func collectNVML(drv *driver.Driver) *nvmlReport {
	rep := &nvmlReport{}
	lib, err := nvml.Open(drv)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	defer lib.Close()
	rep.DriverVersion, _ = lib.DriverVersion()
	rep.Version, _ = lib.Version()
	n, err := drv.DeviceCount()
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	for i := range n {
		dev, err := drv.Device(i)
		if err != nil {
			rep.Error = err.Error()
			return rep
		}
		d, err := lib.DeviceOf(dev)
		if err != nil {
			rep.Devices = append(rep.Devices, nvmlDevice{Ordinal: i, Errors: []string{err.Error()}})
			continue
		}
		rep.Devices = append(rep.Devices, describeNVML(i, d))
	}
	return rep
}

func describeNVML(i int, d *nvml.Device) nvmlDevice {
	out := nvmlDevice{Ordinal: i}
	keep := func(err error) bool {
		if err != nil {
			out.Errors = append(out.Errors, err.Error())
		}
		return err == nil
	}
	if a, err := d.Architecture(); keep(err) {
		out.Architecture = a.String()
	}
	if s, err := d.Serial(); keep(err) {
		out.Serial = s
	}
	if m, err := d.Memory(); keep(err) {
		out.MemoryUsed, out.MemoryFree = uint64(m.Used), uint64(m.Free)
	}
	if m, err := d.BAR1Memory(); keep(err) {
		out.BAR1Total = uint64(m.Total)
	}
	if u, err := d.Utilization(); keep(err) {
		out.GPUUtil, out.MemUtil = uint32(u.GPU), uint32(u.Memory)
	}
	if t, err := d.Temperature(); keep(err) {
		out.TemperatureC = uint32(t)
	}
	if p, err := d.Power(); keep(err) {
		out.PowerMW = uint32(p)
	}
	if p, err := d.PowerLimit(); keep(err) {
		out.PowerLimitMW = uint32(p)
	}
	if c, err := d.Clock(nvml.ClockSM); keep(err) {
		out.SMClockMHz = uint32(c)
	}
	if c, err := d.MaxClock(nvml.ClockSM); keep(err) {
		out.MaxSMClockMHz = uint32(c)
	}
	if p, err := d.PerformanceState(); keep(err) {
		out.PState = p
	}
	if e, err := d.ECCMode(); keep(err) {
		out.ECC = e.Current
	}
	for p, err := range d.Processes() {
		if !keep(err) {
			break
		}
		out.Processes = append(out.Processes, p.String())
	}
	return out
}

func (r *nvmlReport) print(w io.Writer) {
	if r.Error != "" {
		fmt.Fprintf(w, "\nnvml:           not available: %s\n", r.Error)
		return
	}
	fmt.Fprintf(w, "\nnvml:           %s (driver %s)\n", r.Version, r.DriverVersion)
	for _, d := range r.Devices {
		fmt.Fprintf(w, "  device %d        %s, serial %s\n", d.Ordinal, d.Architecture, d.Serial)
		fmt.Fprintf(w, "    memory         %s used, %s free, BAR1 %s\n", nvml.Bytes(d.MemoryUsed), nvml.Bytes(d.MemoryFree), nvml.Bytes(d.BAR1Total))
		fmt.Fprintf(w, "    utilisation    GPU %d%%, memory %d%%\n", d.GPUUtil, d.MemUtil)
		fmt.Fprintf(w, "    temperature    %s\n", nvml.Celsius(d.TemperatureC))
		fmt.Fprintf(w, "    power          %s of %s\n", nvml.Milliwatts(d.PowerMW), nvml.Milliwatts(d.PowerLimitMW))
		fmt.Fprintf(w, "    SM clock       %s of %s, P%d\n", nvml.MHz(d.SMClockMHz), nvml.MHz(d.MaxSMClockMHz), d.PState)
		fmt.Fprintf(w, "    ECC            %v\n", d.ECC)
		for _, p := range d.Processes {
			fmt.Fprintf(w, "    process        %s\n", p)
		}
		for _, e := range d.Errors {
			fmt.Fprintf(w, "    n/a            %s\n", e)
		}
	}
}
