package segscale

import "github.com/nocgo/cuda/fake"

// Body is segment_scale's Go body for the fake driver: the same
// computation as Source, for one thread.
func Body(t fake.Thread, out, in fake.Ptr, n int32) {
	i := t.X()
	if i >= int(n) {
		return
	}
	fake.Store(t, out, i, fake.Load[float32](t, in, i)*Scale(i, int(n)))
}

// FakeKernel registers Body as segment_scale on a fake backend:
//
//	drv := fake.New(fake.Devices(1), segscale.FakeKernel())
func FakeKernel() fake.Option { return fake.Kernel(Name, Body) }
