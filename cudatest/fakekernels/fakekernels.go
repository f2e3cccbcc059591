// Package fakekernels holds the Go bodies, for the fake driver, of the
// kernels the conformance suite launches: those of
// [github.com/nocgo/cuda/conformance/kernels] and segment_scale
// ([github.com/nocgo/cuda/conformance/segscale]). They live among the
// helpers for tests, outside the suite's folder, so that no package of the
// suite knows an implementation; tests that run the suite's kernels on the
// fake, and cmd/cudainfo's self-test, register them:
//
//	drv := fake.New(append([]fake.Option{fake.Devices(2)}, fakekernels.Options()...)...)
//
// Import it from tests and commands only: it links package fake.
package fakekernels

import (
	"time"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/fake"
)

// SegmentScale is segment_scale's Go body: the same computation as
// segscale.Source, for one thread.
func SegmentScale(t fake.Thread, out, in fake.Ptr, n int32) {
	i := t.X()
	if i >= int(n) {
		return
	}
	fake.Store(t, out, i, fake.Load[float32](t, in, i)*segscale.Scale(i, int(n)))
}

// Options returns fake.Kernel options with the Go bodies of every kernel
// the suite launches by name (kernels.Source's and segment_scale), for a
// fake backend that runs the suite. The CUDA C group's kernels have none:
// they run in the fake's PTX interpreter, or skip without NVIDIA's NVRTC.
func Options() []fake.Option {
	return []fake.Option{
		fake.Kernel(segscale.Name, SegmentScale),
		fake.Kernel(kernels.Add1, func(t fake.Thread, p fake.Ptr, n int32) {
			if i := t.X(); i < int(n) {
				fake.Store(t, p, i, fake.Load[float32](t, p, i)+1)
			}
		}),
		fake.Kernel(kernels.WriteAt, func(t fake.Thread, p fake.Ptr, i int64) {
			if t.X() == 0 && t.Y() == 0 && t.Z() == 0 {
				fake.Store(t, p, int(i), float32(1))
			}
		}),
		fake.Kernel(kernels.Spin, func(t fake.Thread, ns uint64) {
			if t.X() == 0 && t.Y() == 0 && t.Z() == 0 {
				time.Sleep(time.Duration(ns))
			}
		}),
		fake.Kernel(kernels.Mixed, func(t fake.Thread, out fake.Ptr, d float64, c int8, h int16, q int64, f float32, u uint8) {
			if t.X() == 0 {
				for i, v := range []float64{d, float64(c), float64(h), float64(q), float64(f), float64(u)} {
					fake.Store(t, out, i, v)
				}
			}
		}),
		fake.Kernel(kernels.Affine, func(t fake.Thread, p fake.Ptr, a kernels.AffineArgs) {
			if i := t.X(); i < int(a.N) {
				fake.Store(t, p, i, fake.Load[float32](t, p, i)*a.A+a.B)
			}
		}),
		fake.Kernel(kernels.SmemCopy, func(t fake.Thread, out, in fake.Ptr, n int32) {
			if i := t.X(); i < int(n) {
				fake.Store(t, out, i, fake.Load[float32](t, in, i)*3)
			}
		}),
		fake.Kernel(kernels.FillFloat, func(t fake.Thread, p fake.Ptr, v float32, n int32) {
			if i := t.X(); i < int(n) {
				fake.Store(t, p, i, v)
			}
		}),
	}
}
