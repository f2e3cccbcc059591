package driver_test

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
)

// Properties reads every property of a device once; later calls are free.
// The fake answers like an H200.
func ExampleDevice_Properties() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	p, err := dev.Properties()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("sm_%d%d, %d SMs, warp %d\n", p.Major, p.Minor, p.MultiprocessorCount, p.WarpSize)
	fmt.Printf("shared memory per block: %d bytes, %d opting in\n", p.SharedMemPerBlock, p.SharedMemPerBlockOptin)
	fmt.Println("clusters:", p.ClusterLaunch, "cooperative:", p.CooperativeLaunch)
	// Output:
	// sm_90, 132 SMs, warp 32
	// shared memory per block: 49152 bytes, 232448 opting in
	// clusters: true cooperative: true
}

// SetLimit returns what the driver kept: the persisting L2 size is clamped
// to the device's maximum, and a limit the device lacks is
// ErrUnsupportedLimit.
func ExampleContext_SetLimit() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	stack, _ := cc.SetLimit(driver.LimitStackSize, 8192)
	fmt.Println("stack:", stack)
	l2, _ := cc.SetLimit(driver.LimitPersistingL2CacheSize, 1<<20) // rounded up to a tenth of the maximum
	fmt.Println("persisting L2:", l2)
	_, err := cc.SetLimit(driver.LimitDevRuntimeSyncDepth, 4)
	fmt.Println(errors.Is(err, driver.ErrUnsupportedLimit))
	// Output:
	// stack: 8192
	// persisting L2: 3932160
	// true
}

// A program picks how threads wait for the GPU before anything retains the
// primary context, as cudaSetDeviceFlags does; the last release sets them
// back to 0 (as driver 580 does).
func ExampleDevice_SetPrimaryContextFlags() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	if err := dev.SetPrimaryContextFlags(driver.SchedBlockingSync); err != nil {
		fmt.Println(err)
		return
	}
	cc, _ := dev.PrimaryContext()
	st, _ := dev.PrimaryContextState()
	fmt.Println(st.Flags == driver.SchedBlockingSync, st.Active)
	cc.Close()
	st, _ = dev.PrimaryContextState()
	fmt.Println(st.Flags, st.Active)
	// Output:
	// true true
	// 0 false
}

// The README's lines on properties, limits and flags.
func Example_propertiesLimitsFlags() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	// p.SharedMemPerBlockOptin, p.PersistingL2CacheMaxSize, ...
	p, _ := dev.Properties()
	kept, err := cc.SetLimit(driver.LimitMallocHeapSize, 64<<20) // what the driver kept
	fmt.Println(p.SharedMemPerBlockOptin, kept, err)
	_, err = cc.SetLimit(driver.LimitDevRuntimeSyncDepth, 4) // errors.Is(err, driver.ErrUnsupportedLimit) on sm_90
	fmt.Println(errors.Is(err, driver.ErrUnsupportedLimit))
	err = dev.SetPrimaryContextFlags(driver.SchedBlockingSync) // shared with the CUDA runtime in the process
	fmt.Println(err)
	// Output:
	// 232448 67108864 <nil>
	// true
	// <nil>
}
