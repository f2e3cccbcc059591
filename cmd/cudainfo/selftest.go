package main

import (
	"fmt"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/module"
)

// selftestElements is the size of the self-test's input.
const selftestElements = 1 << 20

// selfResult is the outcome of -selftest.
type selfResult struct {
	OK      bool   `json:"ok"`
	Summary string `json:"summary"`
}

// fakeDriver returns the fake driver for -fake and its backend. With
// NVIDIA's NVRTC, the self-test's kernel is compiled for real and runs in
// the fake's PTX interpreter; without it, the fake uses its pretend
// compiler, and the kernel's Go body is registered.
func fakeDriver() (*driver.Driver, backend.API, error) {
	opts := []fake.Option{fake.Devices(1)}
	if nv, err := gpu.LoadNVRTC(); err == nil {
		opts = append(opts, fake.NVRTC(nv))
	} else {
		opts = append(opts, fake.PretendNVRTC(), fake.Kernel(segscale.Name, fakekernels.SegmentScale))
	}
	api := fake.NewBackend(opts...)
	drv, err := driver.New(api)
	if err != nil {
		return nil, nil, err
	}
	return drv, api, nil
}

// realDriver opens the real driver and returns it with its backend (libcuda,
// through gpu.Backend),
// on which the self-test makes its foreign library's raw calls. Its errors
// list every library path tried, as gpu.Load's do.
func realDriver() (*driver.Driver, backend.API, error) {
	api, err := gpu.Backend()
	if err != nil {
		return nil, nil, err
	}
	drv, err := driver.New(api)
	if err != nil {
		if p, ok := api.(backend.LibraryPaths); ok {
			return nil, nil, fmt.Errorf("%v: %w", p.LibraryPaths(), err)
		}
		return nil, nil, err
	}
	return drv, api, nil
}

// runSelfTest compiles segment_scale at run time and applies it to borrowed
// memory on a wrapped foreign stream (made by raw calls on api, drv's
// backend), as a program sharing the GPU with PyTorch would, and checks the
// result against the Go reference exactly.
func runSelfTest(drv *driver.Driver, api backend.API) *selfResult {
	n := selftestElements
	if drv.LibraryPaths() == nil {
		n = 1 << 12 // the fake runs each GPU thread as a Go call
	}
	res, err := segscale.Run(drv, api, n, module.Options{})
	if err != nil {
		return &selfResult{OK: false, Summary: "FAILED: " + err.Error()}
	}
	return &selfResult{OK: true, Summary: "ok: " + res.String()}
}
