package module_test

import (
	"testing"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/module"
)

// BenchmarkCompileHitNewDriver is a cache hit by a driver that has not
// opened its compiler, as in a fresh process: each iteration opens a new
// driver (not timed) and compiles a source its cache holds (timed), which
// opens no NVRTC. The target is 0.5 ms on the H200.
func BenchmarkCompileHitNewDriver(b *testing.B) {
	open := map[string]func() (*driver.Driver, error){
		"real": gpu.Load,
		"fake": func() (*driver.Driver, error) { return fakeDriver(fake.PretendNVRTC()), nil },
	}
	for _, name := range []string{"real", "fake"} {
		b.Run(name, func(b *testing.B) {
			drv, err := open[name]()
			if err != nil {
				b.Skip(err)
			}
			dir := b.TempDir()
			ctx, _ := setup(b, drv)
			compileSegscale(b, ctx, module.Options{CacheDir: dir}) // fills the cache
			for b.Loop() {
				b.StopTimer()
				fresh, err := open[name]()
				if err != nil {
					b.Fatal(err)
				}
				dev, err := fresh.Device(0)
				if err != nil {
					b.Fatal(err)
				}
				fctx, err := dev.PrimaryContext()
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				m, err := module.Compile(fctx, segscale.Source, module.Options{CacheDir: dir})
				b.StopTimer()
				if err != nil || !m.Cached() {
					b.Fatalf("not a hit: %v", err)
				}
				m.Close()
				fctx.Close()
				b.StartTimer()
			}
		})
	}
}
