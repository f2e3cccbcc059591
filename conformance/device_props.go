package conformance

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/nocgo/cuda/driver"
)

// testDeviceProperties checks Device.Properties against the single calls
// it is made of and against what NVIDIA documents for every CUDA device of
// compute capability 5.0 and up, and logs every value it reads (the lead
// compares the H200's log with the fake's H200 table).
func testDeviceProperties(t *testing.T, drv *driver.Driver) {
	n, err := drv.DeviceCount()
	must(t, err)
	for i := 0; i < n; i++ {
		dev, err := drv.Device(i)
		must(t, err)
		p, err := dev.Properties()
		must(t, err)
		t.Logf("device %d properties: %+v", i, p)

		name, err := dev.Name()
		must(t, err)
		equal(t, p.Name, name, "Name is cuDeviceGetName")
		uuid, err := dev.UUID()
		must(t, err)
		equal(t, p.UUID, uuid, "UUID is cuDeviceGetUuid")
		mem, err := dev.TotalMemory()
		must(t, err)
		equal(t, p.TotalMemory, mem, "TotalMemory is cuDeviceTotalMem")
		major, minor, err := dev.ComputeCapability()
		must(t, err)
		equal(t, [2]int{p.Major, p.Minor}, [2]int{major, minor}, "compute capability")
		for a, got := range map[driver.DeviceAttribute]int{
			driver.AttrMultiprocessorCount:          p.MultiprocessorCount,
			driver.AttrL2CacheSize:                  p.L2CacheSize,
			driver.AttrMaxSharedMemoryPerBlockOptin: p.SharedMemPerBlockOptin,
			driver.AttrMaxPersistingL2CacheSize:     p.PersistingL2CacheMaxSize,
			driver.AttrPCIBusID:                     p.PCIBusID,
			driver.AttrClockRate:                    p.ClockRateKHz,
		} {
			want, err := dev.Attribute(a)
			must(t, err)
			equal(t, got, want, "attribute %d", a)
		}
		busID := fmt.Sprintf("%04x:%02x:%02x.0", p.PCIDomainID, p.PCIBusID, p.PCIDeviceID)
		equal(t, strings.ToLower(p.PCIBusIDStr), busID, "the PCI bus id string is made of the PCI attributes")

		// What every device of compute capability 5.0 and up has.
		compare(t, p.Major, ">=", 5)
		equal(t, p.WarpSize, 32)
		equal(t, p.MaxThreadsPerBlock, 1024)
		equal(t, p.MaxBlockDim, [3]int{1024, 1024, 64})
		equal(t, p.MaxGridDim, [3]int{1<<31 - 1, 65535, 65535})
		equal(t, p.SharedMemPerBlock, 48<<10)
		equal(t, p.TotalConstantMemory, 64<<10)
		equal(t, p.RegistersPerBlock, 64<<10)
		compare(t, p.SharedMemPerBlockOptin, ">=", p.SharedMemPerBlock)
		compare(t, p.SharedMemPerMultiprocessor, ">=", p.SharedMemPerBlockOptin)
		compare(t, p.RegistersPerMultiprocessor, ">=", p.RegistersPerBlock)
		compare(t, p.MaxThreadsPerMultiprocessor, ">=", p.MaxThreadsPerBlock)
		compare(t, p.MultiprocessorCount, ">", 0)
		compare(t, p.MaxBlocksPerMultiprocessor, ">", 0)
		compare(t, p.ClockRateKHz, ">", 0)
		compare(t, p.MemoryClockRateKHz, ">", 0)
		compare(t, p.MemoryBusWidth, ">", 0)
		compare(t, p.L2CacheSize, ">", 0)
		compare(t, p.PersistingL2CacheMaxSize, "<=", p.L2CacheSize)
		compare(t, p.AsyncEngineCount, ">", 0)
		isTrue(t, p.UnifiedAddressing, "every 64-bit Linux process has unified addressing")
		isTrue(t, p.ManagedMemory)
		isTrue(t, p.ConcurrentKernels)
		isTrue(t, p.StreamPrioritiesSupported)
		isTrue(t, p.MemoryPoolsSupported == (p.Major >= 6), "memory pools (every device we run on has them)")
		if p.Major >= 9 {
			isTrue(t, p.ClusterLaunch, "compute capability 9.0 launches clusters")
			isTrue(t, p.CooperativeLaunch)
		}
		equal(t, p.ComputeMode == driver.ComputeModeProhibited, false, "a device this process made contexts on is not prohibited")

		// Cached: the same values, from any number of goroutines.
		var wg sync.WaitGroup
		got := make([]driver.Properties, 8)
		errs := make([]error, 8)
		for g := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[g], errs[g] = dev.Properties()
			}()
		}
		wg.Wait()
		for g := range got {
			noError(t, errs[g])
			equal(t, got[g], p, "goroutine %d", g)
		}
	}
	var nilDev *driver.Device
	_, err = nilDev.Properties()
	errorIs(t, err, driver.ErrInvalidValue, "a nil device")
}
