package drivertest_test

import (
	"testing"

	"github.com/nocgo/cuda/driver/drivertest"
	"github.com/nocgo/cuda/fake"
)

func TestFake(t *testing.T) {
	opts := append([]fake.Option{fake.Devices(2)}, drivertest.FakeKernels()...)
	drivertest.Run(t, fake.New(opts...))
}

func TestReal(t *testing.T) {
	drivertest.Run(t, drivertest.Real(t))
}
