package main

import (
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/internal/segscale"
	"github.com/nocgo/cuda/module"
)

// selftestElements is the size of the self-test's input.
const selftestElements = 1 << 20

// selfResult is the outcome of -selftest.
type selfResult struct {
	OK      bool   `json:"ok"`
	Summary string `json:"summary"`
}

// fakeDriver returns the fake driver for -fake. With NVIDIA's NVRTC, the
// self-test's kernel is compiled for real and runs in the fake's PTX
// interpreter; with the pretend compiler it needs its Go body, which is
// registered then.
func fakeDriver() *driver.Driver {
	drv := fake.New(fake.Devices(1))
	if nv, err := fake.Of(drv).Backend().NVRTC(); err != nil || !strings.HasPrefix(nv.Implementation(), "libnvrtc") {
		if err := fake.Of(drv).RegisterKernel(segscale.Name, segscale.Body); err != nil {
			panic(err) // segscale.Body has the right shape: a bug if not
		}
	}
	return drv
}

// runSelfTest compiles segment_scale at run time and applies it to borrowed
// memory on a wrapped foreign stream, as a program sharing the GPU with
// PyTorch would, and checks the result against the Go reference exactly.
func runSelfTest(drv *driver.Driver) *selfResult {
	n := selftestElements
	if drv.LibraryPaths() == nil {
		n = 1 << 12 // the fake runs each GPU thread as a Go call
	}
	res, err := segscale.Run(drv, n, module.Options{})
	if err != nil {
		return &selfResult{OK: false, Summary: "FAILED: " + err.Error()}
	}
	return &selfResult{OK: true, Summary: "ok: " + res.String()}
}
