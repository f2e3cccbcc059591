package main

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
)

// selfResult is the outcome of -selftest.
type selfResult struct {
	OK      bool   `json:"ok"`
	Summary string `json:"summary"`
}

// TODO(lead): wire internal/segscale once it lands.
func selftestKernels() []fake.Option { return nil }

func runSelfTest(drv *driver.Driver) *selfResult {
	return &selfResult{OK: false, Summary: "FAILED: not built yet"}
}
