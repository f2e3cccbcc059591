package fake

import (
	"errors"
	"fmt"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	fakenvml "github.com/nocgo/cuda/fake/internal/nvml"
	"github.com/nocgo/cuda/nvml"
)

// nvmlState is the backend's fake NVML, made on first use.
type nvmlState struct {
	once sync.Once
	lib  *fakenvml.Lib
}

// NVML returns the fake's NVML (backend.NVMLProvider): the management view
// of the fake's devices (see fake/internal/nvml, and NVMLDevice for what a
// test sets).
func (b *fakeBackend) NVML() (backend.NVML, error) { return b.nvmlLib(), nil }

func (b *fakeBackend) nvmlLib() *fakenvml.Lib {
	b.nvml.once.Do(func() { b.nvml.lib = fakenvml.New(nvmlCore{b}) })
	return b.nvml.lib
}

var _ backend.NVMLProvider = (*fakeBackend)(nil)

// nvmlEntryPoints are the fake NVML's entry points, for CountCalls.
var nvmlEntryPoints = fakenvml.Ops()

// nvmlCore is the fake NVML's view of the backend (fakenvml.Core).
type nvmlCore struct{ b *fakeBackend }

// Devices describes the devices (fixed at NewBackend).
func (c nvmlCore) Devices() []fakenvml.DeviceInfo {
	b := c.b
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]fakenvml.DeviceInfo, len(b.devs))
	for i, d := range b.devs {
		out[i] = fakenvml.DeviceInfo{
			Name: d.name, UUID: d.uuid, TotalMemory: d.total,
			Domain: d.attrs[driver.AttrPCIDomainID], Bus: d.attrs[driver.AttrPCIBusID], Device: d.attrs[driver.AttrPCIDeviceID],
			Major: d.attrs[driver.AttrComputeCapabilityMajor], Minor: d.attrs[driver.AttrComputeCapabilityMinor],
			MemClockKHz: d.attrs[driver.AttrMemoryClockRate],
		}
	}
	return out
}

// Usage reads device dev's contexts, allocated bytes and queued work.
func (c nvmlCore) Usage(dev int) fakenvml.Usage {
	b := c.b
	b.mu.RLock()
	defer b.mu.RUnlock()
	if dev < 0 || dev >= len(b.devs) {
		return fakenvml.Usage{}
	}
	d := b.devs[dev]
	u := fakenvml.Usage{Allocated: d.used}
	for _, ctx := range b.ctxs {
		if ctx.dev != d || ctx.dead {
			continue
		}
		u.Contexts++
		u.Pending += len(ctx.null.q) + len(ctx.perThread.q)
		for _, s := range ctx.streams {
			u.Pending += len(s.q)
		}
	}
	return u
}

// StickyFault is the code of the fault that poisoned the backend (0 for
// none) and the device of a stream that holds it (-1 for none).
func (c nvmlCore) StickyFault() (backend.Result, int) {
	b := c.b
	var r backend.Result
	if p := b.poison.Load(); p == nil || !errors.As(*p, &r) {
		return 0, -1
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, ctx := range b.ctxs {
		for _, s := range append([]*stream{ctx.null, ctx.perThread}, ctx.streams...) {
			var sr backend.Result
			if s != nil && s.err != nil && errors.As(s.err, &sr) && sr.Sticky() {
				return r, ctx.dev.ordinal
			}
		}
	}
	return r, -1
}

// Fail fires the FailNVML rules of op, counting the call as FailNth counts
// the driver's.
func (c nvmlCore) Fail(op string) error {
	fc := c.b.faults[op]
	if fc == nil {
		return nil
	}
	n := fc.calls.Add(1)
	for _, r := range fc.rules {
		if r.n == n && r.code != backend.Success {
			return &backend.NVMLError{Return: backend.NVMLReturn(r.code), Op: op, Detail: "fake.FailNVML"}
		}
	}
	return nil
}

// FailNVML makes the n-th call (counting from 1, from the backend's
// creation) of the NVML entry point op fail with err and change nothing,
// as FailNth does for the driver's. op is NVML's name without its version
// suffix ("nvmlDeviceGetMemoryInfo", "nvmlInit", "nvmlEventSetWait"). Each
// rule fires once. Calls counts the entry points that rules name, and all
// of them with CountCalls.
func FailNVML(op string, n int, err nvml.Return) Option {
	return func(c *config) {
		if c.faults == nil {
			c.faults = map[string][]faultRule{}
		}
		op = baseName(op)
		c.faults[op] = append(c.faults[op], faultRule{int64(n), driver.Result(err)})
	}
}

// NVMLDevice is what a test sets of fake device i as NVML reports it: the
// values that NVML otherwise derives from the work the fake runs (see
// fake/internal/nvml), errors and events to inject, MIG layouts. Get one
// with Fake.NVMLDevice. Its methods fail for a nil Fake or a device the
// fake does not have, and are safe for concurrent use.
type NVMLDevice struct {
	f *Fake
	i int
}

// NVMLDevice returns the NVML controls of device i.
func (f *Fake) NVMLDevice(i int) *NVMLDevice { return &NVMLDevice{f, i} }

func (d *NVMLDevice) lib() (*fakenvml.Lib, error) {
	if d == nil || d.f == nil {
		return nil, errNotFake
	}
	return d.f.b.nvmlLib(), nil
}

func (d *NVMLDevice) do(op string, f func(l *fakenvml.Lib) error) error {
	l, err := d.lib()
	if err == nil {
		err = f(l)
	}
	if err != nil {
		return fmt.Errorf("fake.NVMLDevice.%s: %w", op, err)
	}
	return nil
}

// SetUtilization fixes the GPU and memory utilisation NVML reports (at
// most 100%).
func (d *NVMLDevice) SetUtilization(gpu, memory nvml.Percent) error {
	return d.do("SetUtilization", func(l *fakenvml.Lib) error { return l.SetUtilization(d.i, uint32(gpu), uint32(memory)) })
}

// SetCodecUtilization fixes the video encoder's and decoder's utilisation.
func (d *NVMLDevice) SetCodecUtilization(encoder, decoder nvml.Percent) error {
	return d.do("SetCodecUtilization", func(l *fakenvml.Lib) error {
		return l.SetCodecUtilization(d.i, uint32(encoder), uint32(decoder))
	})
}

// SetTemperature fixes the GPU temperature.
func (d *NVMLDevice) SetTemperature(t nvml.Celsius) error {
	return d.do("SetTemperature", func(l *fakenvml.Lib) error { return l.SetTemperature(d.i, uint32(t)) })
}

// SetPower fixes the power draw (at most the 700 W limit).
func (d *NVMLDevice) SetPower(p nvml.Milliwatts) error {
	return d.do("SetPower", func(l *fakenvml.Lib) error { return l.SetPower(d.i, uint32(p)) })
}

// SetSMClock fixes the graphics and SM clock (at most 1980 MHz); a change
// raises an nvml.EventClock event.
func (d *NVMLDevice) SetSMClock(f nvml.MHz) error {
	return d.do("SetSMClock", func(l *fakenvml.Lib) error { return l.SetSMClock(d.i, uint32(f)) })
}

// SetThrottleReasons fixes the reasons the clocks are held down.
func (d *NVMLDevice) SetThrottleReasons(r nvml.ThrottleReasons) error {
	return d.do("SetThrottleReasons", func(l *fakenvml.Lib) error { return l.SetThrottleReasons(d.i, uint64(r)) })
}

// AddECCErrors counts corrected and uncorrected ECC errors (volatile and
// aggregate) and raises the ECC events for them.
func (d *NVMLDevice) AddECCErrors(corrected, uncorrected uint64) error {
	return d.do("AddECCErrors", func(l *fakenvml.Lib) error { return l.AddECCErrors(d.i, corrected, uncorrected) })
}

// SetRemappedRows sets the row remapping state.
func (d *NVMLDevice) SetRemappedRows(r nvml.RemappedRows) error {
	return d.do("SetRemappedRows", func(l *fakenvml.Lib) error {
		return l.SetRemappedRows(d.i, r.Correctable, r.Uncorrectable, r.Pending, r.Failure)
	})
}

// InjectXid raises a critical Xid error event (nvml.EventXid). A sticky
// kernel fault of the fake raises its own (31 for an illegal address, 13
// for the others) without this.
func (d *NVMLDevice) InjectXid(xid uint64) error {
	return d.do("InjectXid", func(l *fakenvml.Lib) error { return l.InjectXid(d.i, xid) })
}

// Lose makes the GPU fall off the bus for NVML: Xid 79 is raised, and every
// later NVML call on the device fails with nvml.ErrGPUIsLost. The driver
// API of the fake is not affected.
func (d *NVMLDevice) Lose() error {
	return d.do("Lose", func(l *fakenvml.Lib) error { return l.SetLost(d.i) })
}

// MIGInstance is one MIG device of a layout: a GPU instance with one
// compute instance.
type MIGInstance struct {
	Profile string     // "1g.18gb", "3g.71gb", ...
	Memory  nvml.Bytes // its memory
}

// SetMIG turns MIG mode on with the layout (at most 7 MIG devices that fit
// the device's memory), or off with none. MIG devices are NVML's alone: the
// fake's driver API keeps seeing the whole GPU.
func (d *NVMLDevice) SetMIG(layout ...MIGInstance) error {
	specs := make([]fakenvml.MIGSpec, len(layout))
	for i, m := range layout {
		specs[i] = fakenvml.MIGSpec{Profile: m.Profile, Memory: uint64(m.Memory)}
	}
	return d.do("SetMIG", func(l *fakenvml.Lib) error { return l.SetMIG(d.i, specs) })
}

// ConnectNVLink connects n NVLink links between this device and device
// peer (of the 18 each has).
func (d *NVMLDevice) ConnectNVLink(peer, n int) error {
	return d.do("ConnectNVLink", func(l *fakenvml.Lib) error { return l.ConnectNVLink(d.i, peer, n) })
}

// AddNVLinkErrors counts errors on one of the device's active links.
func (d *NVMLDevice) AddNVLinkErrors(link int, c nvml.NVLinkCounter, n uint64) error {
	return d.do("AddNVLinkErrors", func(l *fakenvml.Lib) error { return l.AddNVLinkErrors(d.i, link, int(c), n) })
}

// SetTopology sets how close this device and device peer are on the PCIe
// tree (NODE unless set).
func (d *NVMLDevice) SetTopology(peer int, t nvml.Topology) error {
	return d.do("SetTopology", func(l *fakenvml.Lib) error { return l.SetTopology(d.i, peer, int(t)) })
}
