// Package suitekernels holds the Go bodies of the conformance suite's
// kernels for the fake backend, so that the suite itself (driver/drivertest)
// knows no implementation.
package suitekernels

import (
	"time"

	"github.com/nocgo/cuda/driver/drivertest"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/internal/segscale"
)

// affineArgs is the Affine struct of drivertest.KernelSource, as a launch
// passes it.
type affineArgs struct {
	A, B float32
	N    int32
}

// Options returns the Go bodies of every kernel the suite launches
// (drivertest.KernelSource and segment_scale), for a fake backend that runs the suite:
//
//	drv := fake.New(append([]fake.Option{fake.Devices(2)}, suitekernels.Options()...)...)
func Options() []fake.Option {
	return []fake.Option{
		segscale.FakeKernel(),
		fake.Kernel(drivertest.KernelAdd1, func(t fake.Thread, p fake.Ptr, n int32) {
			if i := t.X(); i < int(n) {
				fake.Store(t, p, i, fake.Load[float32](t, p, i)+1)
			}
		}),
		fake.Kernel(drivertest.KernelWriteAt, func(t fake.Thread, p fake.Ptr, i int64) {
			if t.X() == 0 && t.Y() == 0 && t.Z() == 0 {
				fake.Store(t, p, int(i), float32(1))
			}
		}),
		fake.Kernel(drivertest.KernelSpin, func(t fake.Thread, ns uint64) {
			if t.X() == 0 && t.Y() == 0 && t.Z() == 0 {
				time.Sleep(time.Duration(ns))
			}
		}),
		fake.Kernel("mixed", func(t fake.Thread, out fake.Ptr, d float64, c int8, h int16, q int64, f float32, u uint8) {
			if t.X() == 0 {
				for i, v := range []float64{d, float64(c), float64(h), float64(q), float64(f), float64(u)} {
					fake.Store(t, out, i, v)
				}
			}
		}),
		fake.Kernel("affine", func(t fake.Thread, p fake.Ptr, a affineArgs) {
			if i := t.X(); i < int(a.N) {
				fake.Store(t, p, i, fake.Load[float32](t, p, i)*a.A+a.B)
			}
		}),
		fake.Kernel("smem_copy", func(t fake.Thread, out, in fake.Ptr, n int32) {
			if i := t.X(); i < int(n) {
				fake.Store(t, out, i, fake.Load[float32](t, in, i)*3)
			}
		}),
		fake.Kernel(drivertest.KernelFillFloat, func(t fake.Thread, p fake.Ptr, v float32, n int32) {
			if i := t.X(); i < int(n) {
				fake.Store(t, p, i, v)
			}
		}),
	}
}
