package gpu_test

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/gpu"
)

// Load opens the machine's NVIDIA driver; a program that must also run
// where there is none falls back to the fake. (The example is compiled, not
// run: its output depends on the machine.)
func ExampleLoad() {
	drv, err := gpu.Load()
	if err != nil {
		fmt.Println("no NVIDIA driver:", err)
		drv = fake.New()
	}
	n, err := drv.DeviceCount()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n, "devices")
}

// LoadNVRTC gives the fake NVIDIA's compiler, so that module.Compile on the
// fake turns real CUDA C into PTX on a machine with no GPU. (Compiled, not
// run: it needs libnvrtc.)
func ExampleLoadNVRTC() {
	nv, err := gpu.LoadNVRTC()
	if err != nil {
		fmt.Println("no libnvrtc:", err)
		return
	}
	var drv *driver.Driver = fake.New(fake.NVRTC(nv))
	major, minor, err := nv.Version()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("NVRTC %d.%d at %s, on %T\n", major, minor, nv.LibraryPath(), drv)
}
