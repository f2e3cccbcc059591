package nccl_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/nccl"
	"github.com/nocgo/cuda/stream"
)

// BenchmarkAllReduce measures an in-place float32 sum AllReduce over every
// device of the process (NewComms, one Group per iteration), from 8 bytes
// to 1 GiB on the real driver (to 64 KiB on the fake, where there is no
// GPU). It reports nccl-tests' bandwidths: algbw = bytes / time per
// operation, busbw = algbw × 2(n−1)/n, in GB/s (10^9 bytes). The
// coordinator's comparison with torch.distributed.all_reduce runs
// testdata/bench/allreduce_torch.py with the same sizes.
func BenchmarkAllReduce(b *testing.B) {
	drv, max := benchDriver(b)
	n, err := drv.DeviceCount()
	require.NoError(b, err)
	r := &ranks{}
	for i := range n {
		ctx := primary(b, drv, i)
		s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
		require.NoError(b, err)
		b.Cleanup(func() { require.NoError(b, s.Close()) })
		r.ctxs, r.streams = append(r.ctxs, ctx), append(r.streams, s)
	}
	comms, err := nccl.NewComms(r.ctxs)
	require.NoError(b, err)
	b.Cleanup(func() {
		for _, c := range comms {
			require.NoError(b, c.Close())
		}
	})
	r.comms = comms
	whole := make([]*memory.Buffer[float32], n)
	for i, ctx := range r.ctxs {
		whole[i], err = memory.Alloc[float32](ctx, max/4)
		require.NoError(b, err)
		b.Cleanup(func() { require.NoError(b, whole[i].Close()) })
	}
	for size := 8; size <= max; size *= 4 {
		if size > max/4 && size != max {
			size = max // the last step is the largest size itself
		}
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			bufs := make([]*memory.Buffer[float32], n)
			for i := range bufs {
				bufs[i], err = whole[i].Slice(0, size/4)
				require.NoError(b, err)
			}
			allReduce := func() error {
				for i, c := range r.comms {
					if err := nccl.AllReduce(c, r.streams[i], bufs[i], bufs[i], nccl.Sum); err != nil {
						return err
					}
				}
				return nil
			}
			for range 5 { // warm up: connections, kernels
				require.NoError(b, nccl.Group(allReduce))
			}
			r.sync(b)
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				if err := nccl.Group(allReduce); err != nil {
					b.Fatal(err)
				}
			}
			r.sync(b)
			per := time.Since(start).Seconds() / float64(b.N)
			b.StopTimer()
			algbw := float64(size) / per / 1e9
			b.ReportMetric(algbw, "algbw_GB/s")
			b.ReportMetric(algbw*2*float64(n-1)/float64(n), "busbw_GB/s")
		})
	}
}

// benchDriver is the real driver where it loads with NCCL, else the fake
// with two devices; and the largest size to measure.
func benchDriver(b *testing.B) (*driver.Driver, int) {
	if drv, err := gpu.Load(); err == nil {
		if ctx, err := firstPrimary(drv); err == nil {
			_, _, _, verr := nccl.Version(ctx)
			require.NoError(b, ctx.Close())
			if verr == nil {
				return drv, 1 << 30
			}
		}
	}
	return fake.New(fake.Devices(2)), 64 << 10
}

func firstPrimary(drv *driver.Driver) (*driver.Context, error) {
	dev, err := drv.Device(0)
	if err != nil {
		return nil, err
	}
	return dev.PrimaryContext()
}
