package drivertest_test

import (
	"testing"

	"github.com/nocgo/cuda/driver/drivertest"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/internal/suitekernels"
)

func TestFake(t *testing.T) {
	opts := append([]fake.Option{fake.Devices(2)}, suitekernels.Options()...)
	drivertest.Run(t, fake.NewBackend(opts...))
}

func TestReal(t *testing.T) {
	drivertest.Run(t, drivertest.RealBackend(t))
}
