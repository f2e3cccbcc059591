package conformance

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/nvml"
	"github.com/nocgo/cuda/stream"
)

// openNVML opens NVML on drv for a case, closed when it ends; a backend
// without NVML skips it.
func openNVML(t *testing.T, drv *driver.Driver) *nvml.Library {
	t.Helper()
	lib, err := nvml.Open(drv)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("no NVML: %v", err)
	}
	must(t, err)
	t.Cleanup(func() { noError(t, lib.Close()) })
	return lib
}

// testNVML: NVML's view of the devices is the driver's, memory used and the
// process list follow this process's allocations and contexts, and every
// value NVML reports stays in its documented range.
func testNVML(t *testing.T, drv *driver.Driver) {
	lib := openNVML(t, drv)
	t.Run("views-agree", func(t *testing.T) { testNVMLViewsAgree(t, drv, lib) })
	t.Run("memory-and-process", func(t *testing.T) { testNVMLMemoryAndProcess(t, drv, lib) })
	t.Run("ranges", func(t *testing.T) { testNVMLRanges(t, lib) })
}

func testNVMLViewsAgree(t *testing.T, drv *driver.Driver, lib *nvml.Library) {
	n, err := drv.DeviceCount()
	must(t, err)
	for i := range n {
		dd, err := drv.Device(i)
		must(t, err)
		nd, err := lib.DeviceOf(dd)
		must(t, err, "NVML finds the driver's device %d by UUID", i)
		uuid, err := dd.UUID()
		must(t, err)
		nuuid, err := nd.UUID()
		must(t, err)
		equal(t, nuuid, uuid, "the same UUID")
		bus, err := dd.PCIBusID()
		must(t, err)
		pci, err := nd.PCIInfo()
		must(t, err)
		isTrue(t, nvml.SamePCIBusID(bus, pci.BusID), "the same PCI bus id: driver %s, NVML %s", bus, pci.BusID)
		equal(t, pci.DeviceID&0xffff, 0x10de, "NVIDIA's PCI vendor id")
		byBus, err := lib.DeviceByPCIBusID(bus)
		must(t, err, "NVML takes the driver's form of the bus id")
		u2, err := byBus.UUID()
		must(t, err)
		equal(t, u2, uuid)
		total, err := dd.TotalMemory()
		must(t, err)
		m, err := nd.Memory()
		must(t, err)
		equal(t, uint64(m.Total), total, "the same memory size")
		back, err := nd.DriverDevice()
		must(t, err)
		equal(t, back.Ordinal(), i, "and back to the driver's device")
	}
}

func testNVMLMemoryAndProcess(t *testing.T, drv *driver.Driver, lib *nvml.Library) {
	dd, err := drv.Device(0)
	must(t, err)
	nd, err := lib.DeviceOf(dd)
	must(t, err)
	ctx, err := dd.PrimaryContext()
	must(t, err)
	defer func() { must(t, ctx.Close()) }()
	// A context first: its own memory (hundreds of MiB on a GPU) is not
	// the allocation's.
	warm, err := memory.Alloc[byte](ctx, 1)
	must(t, err)
	defer func() { must(t, warm.Close()) }()

	const size = 64 << 20
	before, err := nd.Memory()
	must(t, err)
	buf, err := memory.Alloc[byte](ctx, size)
	must(t, err)
	after, err := nd.Memory()
	must(t, err)
	grew := int64(after.Used) - int64(before.Used)
	compare(t, grew, ">=", size, "memory used grows by the allocation (before %v, after %v)", before.Used, after.Used)
	compare(t, grew, "<=", size+32<<20, "and by little more (2 MiB pages; another process may allocate meanwhile)")

	pid := uint32(os.Getpid())
	var mine, big *nvml.Process
	var all []nvml.Process
	for p, err := range nd.Processes() {
		must(t, err)
		all = append(all, p)
		if p.PID == pid && !p.Graphics {
			mine = &p
		}
		if !p.Graphics && p.MemoryKnown && p.Memory >= size {
			big = &p
		}
	}
	if mine == nil && big != nil {
		// In a container NVML lists host PIDs, which are not os.Getpid's.
		t.Logf("process %d is not listed, but %v holds the allocation: NVML's PIDs are of another PID namespace", pid, *big)
		mine = big
	}
	if mine == nil {
		t.Fatalf("process %d is not in the device's compute processes %v", pid, all)
	}
	if mine.MemoryKnown {
		compare(t, mine.Memory, ">=", nvml.Bytes(size), "our process holds at least the allocation")
		compare(t, mine.Memory, "<=", after.Used, "and no more than is used on the device")
	}
	must(t, buf.Close())
	freed, err := nd.Memory()
	must(t, err)
	compare(t, int64(after.Used)-int64(freed.Used), ">=", size-(32<<20), "freeing gives the memory back")
}

func testNVMLRanges(t *testing.T, lib *nvml.Library) {
	for d, err := range lib.Devices() {
		must(t, err)
		m, err := d.Memory()
		must(t, err)
		compare(t, m.Used, "<=", m.Total, "memory used")
		compare(t, m.Free, "<=", m.Total, "memory free")
		u, err := d.Utilization()
		must(t, err)
		compare(t, u.GPU, "<=", 100, "GPU utilisation")
		compare(t, u.Memory, "<=", 100, "memory utilisation")
		temp, err := d.Temperature()
		must(t, err)
		shutdown, err := d.TemperatureThreshold(nvml.ThresholdShutdown)
		must(t, err)
		slowdown, err := d.TemperatureThreshold(nvml.ThresholdSlowdown)
		must(t, err)
		compare(t, temp, ">", 0, "temperature")
		compare(t, temp, "<", shutdown, "temperature below the shutdown threshold")
		compare(t, slowdown, "<=", shutdown, "slowdown at or below shutdown")
		p, err := d.Power()
		must(t, err)
		limit, err := d.PowerLimit()
		must(t, err)
		compare(t, p, ">", 0, "power")
		compare(t, p, "<=", limit+limit/10, "power within 10%% of the enforced limit")
		e1, err := d.Energy()
		must(t, err)
		time.Sleep(50 * time.Millisecond)
		e2, err := d.Energy()
		must(t, err)
		compare(t, e2, ">=", e1, "energy never decreases")
		for _, c := range []nvml.Clock{nvml.ClockGraphics, nvml.ClockSM, nvml.ClockMemory} {
			cur, err := d.Clock(c)
			must(t, err)
			mx, err := d.MaxClock(c)
			must(t, err)
			compare(t, cur, ">", 0, "clock %d", c)
			compare(t, cur, "<=", mx, "clock %d at most its maximum", c)
		}
		ps, err := d.PerformanceState()
		must(t, err)
		compare(t, ps, ">=", 0, "performance state")
		compare(t, ps, "<=", 15, "performance state")
		r, err := d.ThrottleReasons()
		must(t, err)
		equal(t, r&^nvml.ThrottleReasonsSupported&^0x600, 0, "only documented throttle reasons")
		ecc, err := d.ECCMode()
		if errors.Is(err, nvml.ErrNotSupported) {
			continue
		}
		must(t, err)
		if ecc.Current {
			_, err := d.ECCErrors()
			must(t, err, "with ECC on, the counters answer")
		}
	}
}

// RunNVMLXid checks that a kernel's illegal address raises Xid 31 ("GPU
// memory page fault", an MMU fault) as an NVML event of the device that ran
// it. The fault poisons the backend's process (see the faults case): run it
// on a backend of its own, in a process of its own on a GPU.
func RunNVMLXid(t *testing.T, api backend.API) {
	drv := Open(t, api)
	lib := openNVML(t, drv)
	dev, err := drv.Device(0)
	must(t, err)
	nd, err := lib.DeviceOf(dev)
	must(t, err)
	set, err := lib.NewEventSet()
	must(t, err)
	defer func() { noError(t, set.Close()) }()
	must(t, set.Register(nd, nvml.EventXid), "critical Xid errors are reported to any process")

	ctx, err := dev.PrimaryContext()
	must(t, err)
	s, err := stream.New(ctx, stream.Options{})
	must(t, err)
	buf, err := memory.Alloc[float32](ctx, 1024)
	must(t, err)
	m, err := module.Compile(ctx, kernels.Source, module.Options{Name: "conformance_kernels.cu", NameExpressions: []string{kernels.FillFloat}, NoCache: true})
	must(t, err)
	f, err := m.Function(kernels.WriteAt)
	must(t, err)
	must(t, f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(32)}, buf, int64(1)<<40))
	mustIs(t, s.Synchronize(), driver.ErrIllegalAddress)

	wait, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var seen []uint64
	for {
		ev, err := set.Wait(wait)
		if err != nil {
			t.Fatalf("no Xid 31 within 10 s (Xids seen: %v): %v", seen, err)
		}
		seen = append(seen, ev.Xid)
		if ev.Xid == 31 {
			u, err := ev.Device.UUID()
			must(t, err)
			want, err := nd.UUID()
			must(t, err)
			equal(t, u, want, "on the device that ran the kernel")
			break
		}
	}
	t.Logf("Xids in order: %v", seen)
	for _, c := range []interface{ Close() error }{m, buf, s, ctx} {
		_ = c.Close() // closes, even where the poisoned driver refuses
	}
}
