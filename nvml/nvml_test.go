package nvml_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/nvml"
	"github.com/nocgo/cuda/stream"
)

// open opens NVML on drv, closed when the test ends.
func open(t *testing.T, drv *driver.Driver) *nvml.Library {
	t.Helper()
	lib, err := nvml.Open(drv)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, lib.Close()) })
	return lib
}

func device0(t *testing.T, lib *nvml.Library) *nvml.Device {
	t.Helper()
	d, err := lib.Device(0)
	require.NoError(t, err)
	return d
}

func TestDriverAndNVMLAgree(t *testing.T) {
	drv := fake.New(fake.Devices(2), fake.WithDevice(fake.DeviceSpec{TotalMem: 3 << 30}))
	lib := open(t, drv)
	n, err := lib.DeviceCount()
	require.NoError(t, err)
	require.Equal(t, 3, n)
	for i := range n {
		dd, err := drv.Device(i)
		require.NoError(t, err)
		nd, err := lib.DeviceOf(dd)
		require.NoError(t, err)
		uuid, err := dd.UUID()
		require.NoError(t, err)
		nuuid, err := nd.UUID()
		require.NoError(t, err)
		assert.Equal(t, uuid, nuuid)
		bus, err := dd.PCIBusID()
		require.NoError(t, err)
		pci, err := nd.PCIInfo()
		require.NoError(t, err)
		assert.True(t, nvml.SamePCIBusID(bus, pci.BusID), "%s and %s", bus, pci.BusID)
		byBus, err := lib.DeviceByPCIBusID(bus)
		require.NoError(t, err)
		u2, err := byBus.UUID()
		require.NoError(t, err)
		assert.Equal(t, uuid, u2, "the driver's bus id finds the same device")
		total, err := dd.TotalMemory()
		require.NoError(t, err)
		m, err := nd.Memory()
		require.NoError(t, err)
		assert.Equal(t, nvml.Bytes(total), m.Total)
		name, err := dd.Name()
		require.NoError(t, err)
		nname, err := nd.Name()
		require.NoError(t, err)
		assert.Equal(t, name, nname)
		back, err := nd.DriverDevice()
		require.NoError(t, err)
		assert.Equal(t, i, back.Ordinal())
		idx, err := nd.Index()
		require.NoError(t, err)
		assert.Equal(t, i, idx)
	}
	var seen []string
	for d, err := range lib.Devices() {
		require.NoError(t, err)
		u, err := d.UUID()
		require.NoError(t, err)
		seen = append(seen, u)
	}
	assert.Len(t, seen, 3)
	assert.Len(t, slices.Compact(slices.Sorted(slices.Values(seen))), 3, "distinct UUIDs")
	_, err = lib.DeviceByUUID("GPU-00000000-0000-0000-0000-000000000000")
	assert.ErrorIs(t, err, nvml.ErrNotFound)
	_, err = lib.DeviceByPCIBusID("not a bus id")
	assert.ErrorIs(t, err, nvml.ErrInvalidArgument)
	_, err = lib.Device(3)
	assert.ErrorIs(t, err, nvml.ErrInvalidArgument)
}

func TestMemoryAndProcessesFollowAllocations(t *testing.T) {
	drv := fake.New()
	lib := open(t, drv)
	nd := device0(t, lib)
	procs := func() []nvml.Process {
		var ps []nvml.Process
		for p, err := range nd.Processes() {
			require.NoError(t, err)
			ps = append(ps, p)
		}
		return ps
	}
	assert.Empty(t, procs(), "no context, no process")
	before, err := nd.Memory()
	require.NoError(t, err)

	dd, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dd.PrimaryContext()
	require.NoError(t, err)
	const n = 16 << 20
	buf, err := memory.Alloc[byte](ctx, n)
	require.NoError(t, err)
	after, err := nd.Memory()
	require.NoError(t, err)
	assert.Equal(t, before.Used+n, after.Used)
	assert.Equal(t, before.Free-n, after.Free)
	assert.Equal(t, after.Total, after.Used+after.Free)
	ps := procs()
	require.Len(t, ps, 1)
	assert.Equal(t, uint32(os.Getpid()), ps[0].PID)
	assert.True(t, ps[0].MemoryKnown)
	assert.Equal(t, after.Used, ps[0].Memory)
	assert.False(t, ps[0].Graphics)
	assert.Equal(t, -1, ps[0].GPUInstanceID)

	require.NoError(t, buf.Close())
	freed, err := nd.Memory()
	require.NoError(t, err)
	assert.Equal(t, before.Used, freed.Used)
	require.NoError(t, ctx.Close())
	assert.Empty(t, procs(), "the context released: the process is gone")
}

func TestOpenCountsReferences(t *testing.T) {
	drv := fake.New()
	a, err := nvml.Open(drv)
	require.NoError(t, err)
	b, err := nvml.Open(drv)
	require.NoError(t, err)
	require.NoError(t, a.Close())
	require.NoError(t, a.Close(), "a second Close is a no-op")
	_, err = a.DeviceCount()
	assert.ErrorIs(t, err, nvml.ErrClosed)
	n, err := b.DeviceCount()
	require.NoError(t, err, "NVML stays initialised for b")
	assert.Equal(t, 1, n)
	d := device0(t, b)
	require.NoError(t, b.Close())
	_, err = d.Memory()
	assert.ErrorIs(t, err, nvml.ErrClosed)
	assert.Contains(t, err.Error(), "nvml.Device.Memory")
}

func TestNilAndZeroValues(t *testing.T) {
	var lib *nvml.Library
	_, err := lib.DeviceCount()
	assert.ErrorIs(t, err, nvml.ErrInvalidValue)
	assert.ErrorIs(t, lib.Close(), nvml.ErrInvalidValue)
	assert.ErrorIs(t, (&nvml.Library{}).Close(), nvml.ErrInvalidValue)
	_, err = nvml.Open(nil)
	assert.ErrorIs(t, err, nvml.ErrInvalidValue)
	_, err = nvml.Open(&driver.Driver{})
	assert.ErrorIs(t, err, nvml.ErrInvalidValue)
	for _, d := range []*nvml.Device{nil, {}} {
		_, err = d.Memory()
		assert.ErrorIs(t, err, nvml.ErrInvalidValue)
		_, err = d.Utilization()
		assert.ErrorIs(t, err, nvml.ErrInvalidValue)
		_, err = d.DriverDevice()
		assert.ErrorIs(t, err, nvml.ErrInvalidValue)
		assert.False(t, d.IsMIG())
		assert.NotEmpty(t, d.String())
	}
	var s *nvml.EventSet
	_, err = s.Wait(context.Background())
	assert.ErrorIs(t, err, nvml.ErrInvalidValue)
	assert.ErrorIs(t, s.Close(), nvml.ErrInvalidValue)
	assert.ErrorIs(t, (&nvml.EventSet{}).Register(nil, nvml.EventXid), nvml.ErrInvalidValue)

	l := open(t, fake.New())
	_, err = l.DeviceOf(nil)
	assert.ErrorIs(t, err, nvml.ErrInvalidValue)
	_, err = l.Device(-1)
	assert.ErrorIs(t, err, nvml.ErrInvalidValue)
	_, err = l.DeviceByUUID("")
	assert.ErrorIs(t, err, nvml.ErrInvalidValue)
	d := device0(t, l)
	_, err = d.Topology(nil)
	assert.ErrorIs(t, err, nvml.ErrInvalidValue)
	_, err = d.Parent()
	assert.ErrorIs(t, err, nvml.ErrInvalidValue, "a whole GPU has no parent")
}

func TestFailNVML(t *testing.T) {
	drv := fake.New(fake.FailNVML("nvmlDeviceGetMemoryInfo", 2, nvml.ErrGPUIsLost), fake.FailNVML("nvmlInit_v2", 1, nvml.ErrDriverNotLoaded))
	_, err := nvml.Open(drv)
	require.ErrorIs(t, err, nvml.ErrDriverNotLoaded, "the first nvmlInit fails")
	lib := open(t, drv)
	d := device0(t, lib)
	_, err = d.Memory()
	require.NoError(t, err)
	_, err = d.Memory()
	require.ErrorIs(t, err, nvml.ErrGPUIsLost)
	assert.Equal(t, "nvml.Device.Memory: device 0: nvmlDeviceGetMemoryInfo: NVML_ERROR_GPU_IS_LOST: fake.FailNVML", err.Error())
	_, err = d.Memory()
	require.NoError(t, err, "a rule fires once")
	assert.Equal(t, int64(3), fake.Of(drv).Calls()["nvmlDeviceGetMemoryInfo"])
}

func TestSettableValues(t *testing.T) {
	drv := fake.New()
	lib := open(t, drv)
	d := device0(t, lib)
	ctl := fake.Of(drv).NVMLDevice(0)
	require.NoError(t, ctl.SetUtilization(42, 17))
	require.NoError(t, ctl.SetTemperature(71))
	require.NoError(t, ctl.SetPower(350_000))
	require.NoError(t, ctl.SetSMClock(1500))
	require.NoError(t, ctl.SetThrottleReasons(nvml.ThrottleSWPowerCap))
	require.NoError(t, ctl.AddECCErrors(3, 1))
	require.NoError(t, ctl.SetRemappedRows(nvml.RemappedRows{Correctable: 2, Pending: true}))
	require.NoError(t, ctl.SetCodecUtilization(5, 6))

	u, err := d.Utilization()
	require.NoError(t, err)
	assert.Equal(t, nvml.Utilization{GPU: 42, Memory: 17}, u)
	temp, err := d.Temperature()
	require.NoError(t, err)
	assert.Equal(t, nvml.Celsius(71), temp)
	p, err := d.Power()
	require.NoError(t, err)
	assert.Equal(t, nvml.Milliwatts(350_000), p)
	assert.Equal(t, "350 W", p.String())
	c, err := d.Clock(nvml.ClockSM)
	require.NoError(t, err)
	assert.Equal(t, nvml.MHz(1500), c)
	r, err := d.ThrottleReasons()
	require.NoError(t, err)
	assert.Equal(t, nvml.ThrottleSWPowerCap, r)
	e, err := d.ECCErrors()
	require.NoError(t, err)
	assert.Equal(t, nvml.ECCErrors{Corrected: 3, Uncorrected: 1, AggregateCorrected: 3, AggregateUncorrected: 1}, e)
	rr, err := d.RemappedRows()
	require.NoError(t, err)
	assert.Equal(t, nvml.RemappedRows{Correctable: 2, Pending: true}, rr)
	enc, err := d.EncoderUtilization()
	require.NoError(t, err)
	assert.Equal(t, nvml.Percent(5), enc.Percent)

	assert.Error(t, ctl.SetUtilization(101, 0), "over 100%")
	assert.Error(t, ctl.SetPower(800_000), "over the limit")
	assert.Error(t, fake.Of(drv).NVMLDevice(1).SetTemperature(50), "no device 1")
	assert.Error(t, (*fake.Fake)(nil).NVMLDevice(0).SetTemperature(50), "not a fake")
}

func TestH200Defaults(t *testing.T) {
	lib := open(t, fake.New())
	d := device0(t, lib)
	a, err := d.Architecture()
	require.NoError(t, err)
	assert.Equal(t, nvml.ArchHopper, a)
	lim, err := d.PowerLimit()
	require.NoError(t, err)
	assert.Equal(t, nvml.Milliwatts(700_000), lim)
	mx, err := d.MaxClock(nvml.ClockSM)
	require.NoError(t, err)
	assert.Equal(t, nvml.MHz(1980), mx)
	mem, err := d.MaxClock(nvml.ClockMemory)
	require.NoError(t, err)
	assert.Equal(t, nvml.MHz(3201), mem)
	fans, err := d.FanCount()
	require.NoError(t, err)
	assert.Zero(t, fans)
	_, err = d.FanSpeed(0)
	assert.ErrorIs(t, err, nvml.ErrNotSupported)
	_, err = d.RetiredPages(nvml.RetiredDoubleBitECC)
	assert.ErrorIs(t, err, nvml.ErrNotSupported)
	ecc, err := d.ECCMode()
	require.NoError(t, err)
	assert.Equal(t, nvml.ECCMode{Current: true, Pending: true}, ecc)
	_, err = d.Clock(nvml.Clock(9))
	assert.ErrorIs(t, err, nvml.ErrInvalidArgument)
	for _, th := range []nvml.Threshold{nvml.ThresholdShutdown, nvml.ThresholdSlowdown, nvml.ThresholdGPUMax} {
		v, err := d.TemperatureThreshold(th)
		require.NoError(t, err)
		assert.True(t, v > 80 && v < 100, "%v", v)
	}
	idle, err := d.ThrottleReasons()
	require.NoError(t, err)
	assert.Equal(t, nvml.ThrottleIdle, idle, "no work: idle")
	e1, err := d.Energy()
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond)
	e2, err := d.Energy()
	require.NoError(t, err)
	assert.Greater(t, e2, e1, "energy accumulates at the idle power")
	v, err := lib.CUDADriverVersion()
	require.NoError(t, err)
	assert.Equal(t, 13000, v)
}

// TestValuesMoveWithWork: while work is queued on the device, NVML reads it
// busy; with none, idle.
func TestValuesMoveWithWork(t *testing.T) {
	drv := fake.New()
	lib := open(t, drv)
	d := device0(t, lib)
	idleTemp, err := d.Temperature()
	require.NoError(t, err)
	u, err := d.Utilization()
	require.NoError(t, err)
	require.Zero(t, u.GPU)

	dd, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dd.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	// Work queued on the stream (the fake runs it when the stream is
	// waited on): the device has work to do.
	release := make(chan struct{})
	require.NoError(t, s.Callback(func() { <-release }))
	u, err = d.Utilization()
	require.NoError(t, err)
	assert.Equal(t, nvml.Percent(100), u.GPU)
	c, err := d.Clock(nvml.ClockSM)
	require.NoError(t, err)
	assert.Equal(t, nvml.MHz(1980), c)
	hot, err := d.Temperature()
	require.NoError(t, err)
	assert.Greater(t, hot, idleTemp)
	p, err := d.Power()
	require.NoError(t, err)
	assert.Greater(t, p, nvml.Milliwatts(75_000))
	r, err := d.ThrottleReasons()
	require.NoError(t, err)
	assert.Zero(t, r)
	close(release)
	require.NoError(t, s.Synchronize())
}

func TestEvents(t *testing.T) {
	drv := fake.New()
	lib := open(t, drv)
	d := device0(t, lib)
	set, err := lib.NewEventSet()
	require.NoError(t, err)
	sup, err := d.SupportedEvents()
	require.NoError(t, err)
	assert.Equal(t, nvml.EventXid|nvml.EventSingleBitECC|nvml.EventDoubleBitECC|nvml.EventPState|nvml.EventClock, sup)
	ctl := fake.Of(drv).NVMLDevice(0)
	require.NoError(t, ctl.InjectXid(48), "before Register: not received")
	require.NoError(t, set.Register(d, nvml.EventXid|nvml.EventDoubleBitECC))
	assert.ErrorIs(t, set.Register(d, 1<<40), nvml.ErrNotSupported)

	// A waiter blocked before the event comes gets it.
	got := make(chan nvml.Event, 1)
	go func() {
		ev, err := set.Wait(context.Background())
		assert.NoError(t, err)
		got <- ev
	}()
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, ctl.InjectXid(94))
	select {
	case ev := <-got:
		assert.Equal(t, nvml.EventXid, ev.Type)
		assert.Equal(t, uint64(94), ev.Xid)
		u, err := ev.Device.UUID()
		require.NoError(t, err)
		u0, err := d.UUID()
		require.NoError(t, err)
		assert.Equal(t, u0, u)
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
	}
	require.NoError(t, ctl.AddECCErrors(1, 0), "single-bit: not registered")
	require.NoError(t, ctl.AddECCErrors(0, 1))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ev, err := set.Wait(ctx)
	require.NoError(t, err)
	assert.Equal(t, nvml.EventDoubleBitECC, ev.Type)
	assert.Zero(t, ev.Xid)

	// Nothing more: the wait ends with its context.
	short, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel2()
	start := time.Now()
	_, err = set.Wait(short)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2*time.Second)

	// Close while a Wait is blocked: the Wait ends with ErrClosed.
	done := make(chan error, 1)
	go func() { _, err := set.Wait(context.Background()); done <- err }()
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, set.Close())
	select {
	case err := <-done:
		assert.ErrorIs(t, err, nvml.ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not end at Close")
	}
	require.NoError(t, set.Close(), "a second Close is a no-op")
	assert.ErrorIs(t, set.Register(d, nvml.EventXid), nvml.ErrClosed)
}

func TestLibraryCloseFreesEventSets(t *testing.T) {
	drv := fake.New(fake.FailNVML("nvmlEventSetFree", 1, nvml.ErrUnknown))
	lib, err := nvml.Open(drv)
	require.NoError(t, err)
	set, err := lib.NewEventSet()
	require.NoError(t, err)
	require.ErrorIs(t, lib.Close(), nvml.ErrUnknown, "the free fails: the Library stays open")
	_, err = lib.DeviceCount()
	require.NoError(t, err)
	require.NoError(t, lib.Close(), "retried: the set is freed, NVML shut down")
	require.NoError(t, set.Close(), "freed by the Library's Close")
	assert.Equal(t, int64(2), fake.Of(drv).Calls()["nvmlEventSetFree"])
}

func TestXidOfKernelFault(t *testing.T) {
	drv := fake.New(fake.Kernel("bad_store", func(th fake.Thread, p fake.Ptr) {
		fake.Store(th, p, 1<<40, float32(1))
	}))
	lib := open(t, drv)
	d := device0(t, lib)
	set, err := lib.NewEventSet()
	require.NoError(t, err)
	defer set.Close()
	require.NoError(t, set.Register(d, nvml.EventXid))

	faultKernel(t, drv, "bad_store")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ev, err := set.Wait(ctx)
	require.NoError(t, err)
	assert.Equal(t, nvml.EventXid, ev.Type)
	assert.Equal(t, uint64(31), ev.Xid, "an illegal address is an MMU fault: Xid 31")
}

func TestLostGPU(t *testing.T) {
	drv := fake.New()
	lib := open(t, drv)
	d := device0(t, lib)
	set, err := lib.NewEventSet()
	require.NoError(t, err)
	defer set.Close()
	require.NoError(t, set.Register(d, nvml.EventXid))
	require.NoError(t, fake.Of(drv).NVMLDevice(0).Lose())
	ev, err := set.Wait(context.Background())
	require.NoError(t, err)
	assert.Equal(t, uint64(79), ev.Xid)
	_, err = d.Memory()
	assert.ErrorIs(t, err, nvml.ErrGPUIsLost)
	assert.True(t, strings.Contains(err.Error(), "device handle"), "the lost device is named by its handle: %v", err)
}

func TestMIG(t *testing.T) {
	drv := fake.New()
	lib := open(t, drv)
	d := device0(t, lib)
	mode, err := d.MIGMode()
	require.NoError(t, err)
	assert.False(t, mode.Current)
	count := 0
	for range d.MIGDevices() {
		count++
	}
	assert.Zero(t, count)

	ctl := fake.Of(drv).NVMLDevice(0)
	require.NoError(t, ctl.SetMIG(fake.MIGInstance{Profile: "3g.4gb", Memory: 4 << 30}, fake.MIGInstance{Profile: "1g.1gb", Memory: 1 << 30}))
	assert.Error(t, ctl.SetMIG(fake.MIGInstance{Profile: "7g.80gb", Memory: 80 << 30}), "larger than the device")
	mode, err = d.MIGMode()
	require.NoError(t, err)
	assert.True(t, mode.Current)
	gpuUUID, err := d.UUID()
	require.NoError(t, err)
	var migs []*nvml.Device
	for m, err := range d.MIGDevices() {
		require.NoError(t, err)
		migs = append(migs, m)
	}
	require.Len(t, migs, 2)
	m := migs[1]
	assert.True(t, m.IsMIG())
	u, err := m.UUID()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(u, "MIG-"), u)
	mem, err := m.Memory()
	require.NoError(t, err)
	assert.Equal(t, nvml.Bytes(1<<30), mem.Total)
	name, err := m.Name()
	require.NoError(t, err)
	assert.Contains(t, name, "MIG 1g.1gb")
	parent, err := m.Parent()
	require.NoError(t, err)
	pu, err := parent.UUID()
	require.NoError(t, err)
	assert.Equal(t, gpuUUID, pu)
	gi, ci, err := m.Instances()
	require.NoError(t, err)
	assert.Equal(t, 2, gi)
	assert.Equal(t, 0, ci)
	byUUID, err := lib.DeviceByUUID(u)
	require.NoError(t, err)
	assert.True(t, byUUID.IsMIG())
	_, err = m.Power()
	assert.ErrorIs(t, err, nvml.ErrNotSupported, "whole-GPU queries are refused on MIG devices")
	_, _, err = d.Instances()
	assert.ErrorIs(t, err, nvml.ErrNotSupported)
	_, err = m.DriverDevice()
	assert.ErrorIs(t, err, nvml.ErrNotFound, "the fake's driver sees the whole GPU only")
}

func TestNVLinkAndTopology(t *testing.T) {
	drv := fake.New(fake.Devices(3))
	lib := open(t, drv)
	d0, err := lib.Device(0)
	require.NoError(t, err)
	d1, err := lib.Device(1)
	require.NoError(t, err)
	ctl := fake.Of(drv).NVMLDevice(0)
	up, err := d0.NVLinkActive(0)
	require.NoError(t, err)
	assert.False(t, up)
	require.NoError(t, ctl.ConnectNVLink(1, 4))
	for l := range 4 {
		up, err := d0.NVLinkActive(l)
		require.NoError(t, err)
		assert.True(t, up)
	}
	up, err = d0.NVLinkActive(4)
	require.NoError(t, err)
	assert.False(t, up)
	_, err = d0.NVLinkActive(18)
	assert.ErrorIs(t, err, nvml.ErrInvalidArgument)
	remote, err := d0.NVLinkRemote(0)
	require.NoError(t, err)
	p1, err := d1.PCIInfo()
	require.NoError(t, err)
	assert.Equal(t, p1, remote)
	require.NoError(t, ctl.AddNVLinkErrors(2, nvml.NVLinkCRCFlit, 5))
	n, err := d0.NVLinkErrors(2, nvml.NVLinkCRCFlit)
	require.NoError(t, err)
	assert.Equal(t, uint64(5), n)

	top, err := d0.Topology(d1)
	require.NoError(t, err)
	assert.Equal(t, nvml.TopologyNode, top)
	self, err := d0.Topology(d0)
	require.NoError(t, err)
	assert.Equal(t, nvml.TopologyInternal, self)
	require.NoError(t, ctl.SetTopology(2, nvml.TopologySystem))
	d2, err := lib.Device(2)
	require.NoError(t, err)
	top, err = d2.Topology(d0)
	require.NoError(t, err)
	assert.Equal(t, nvml.TopologySystem, top)
	assert.Equal(t, "SYS", top.String())
}

// TestConcurrentUse: queries, waits and a Close from many goroutines (run
// with -race).
func TestConcurrentUse(t *testing.T) {
	drv := fake.New(fake.Devices(2))
	lib, err := nvml.Open(drv)
	require.NoError(t, err)
	set, err := lib.NewEventSet()
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				for d, err := range lib.Devices() {
					if err != nil {
						assert.ErrorIs(t, err, nvml.ErrClosed)
						return
					}
					if _, err := d.Memory(); err != nil {
						assert.ErrorIs(t, err, nvml.ErrClosed)
						return
					}
					_ = set.Register(d, nvml.EventXid)
				}
			}
		})
	}
	wg.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := set.Wait(ctx)
		assert.True(t, errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nvml.ErrClosed), "%v", err)
	})
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, lib.Close())
	wg.Wait()
}

func TestBytesString(t *testing.T) {
	assert.Equal(t, "12 B", nvml.Bytes(12).String())
	assert.Equal(t, "1.5 KiB", nvml.Bytes(1536).String())
	assert.Equal(t, "141 GiB", nvml.Bytes(141<<30).String())
	assert.Equal(t, "Xid|Clock", (nvml.EventXid | nvml.EventClock).String())
}

// noNVML is a backend that has the driver API and no NVML.
type noNVML struct{ backend.API }

func TestBackendWithoutNVML(t *testing.T) {
	drv, err := driver.New(noNVML{fake.NewBackend()})
	require.NoError(t, err)
	_, err = nvml.Open(drv)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	assert.ErrorContains(t, err, "nvml.Open: this backend has no NVML")
}

func TestDevicesOfAnotherLibrary(t *testing.T) {
	drv := fake.New()
	a, b := open(t, drv), open(t, drv)
	da, db := device0(t, a), device0(t, b)
	_, err := da.Topology(db)
	assert.ErrorIs(t, err, nvml.ErrInvalidValue)
	set, err := a.NewEventSet()
	require.NoError(t, err)
	defer set.Close()
	assert.ErrorIs(t, set.Register(db, nvml.EventXid), nvml.ErrInvalidValue)
	assert.ErrorIs(t, set.Register(da, 0), nvml.ErrInvalidValue, "no event types")
}
