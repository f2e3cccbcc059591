package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// elements is the kernel's input size, as in the C baseline.
const elements = 1 << 20

// cubinName is the file, in the cache directory, that the warming run
// writes the compiled image to, for the C baseline to load.
const cubinName = "segment_scale.cubin"

// phases prints one line per phase: the time since the previous mark (for
// the first, since the parent's clock in T0).
type phases struct {
	w    io.Writer
	last time.Time
}

func (p *phases) mark(name string) {
	now := time.Now()
	fmt.Fprintf(p.w, "PHASE go %-12s %6.1f ms\n", name, float64(now.Sub(p.last).Nanoseconds())/1e6)
	p.last = now
}

// child is one measured run: the phases of the C baseline, through the
// library, with the kernel cache in dir. The warming run (a miss) writes
// the CUBIN for C as well.
func child(dir string, useFake bool, w io.Writer) error {
	p := &phases{w: w, last: time.Now()}
	if t0, err := strconv.ParseInt(os.Getenv(startEnv), 10, 64); err == nil {
		p.last = time.Unix(0, t0)
	}
	p.mark("exec->main")
	var drv *driver.Driver
	var err error
	if useFake {
		drv = fake.New(fake.Devices(1), fake.PretendNVRTC(), fake.Kernel(segscale.Name, fakekernels.SegmentScale))
	} else if drv, err = gpu.Load(); err != nil {
		return err
	}
	p.mark("load+init")
	dev, err := drv.Device(0)
	if err != nil {
		return err
	}
	if _, err := dev.Name(); err != nil {
		return err
	}
	if _, _, err := dev.ComputeCapability(); err != nil {
		return err
	}
	p.mark("device")
	ctx, err := dev.PrimaryContext()
	if err != nil {
		return err
	}
	defer ctx.Close()
	p.mark("primaryctx")
	m, err := module.Compile(ctx, segscale.Source, module.Options{CacheDir: dir})
	if err != nil {
		return err
	}
	defer m.Close()
	f, err := m.Function(segscale.Name)
	if err != nil {
		return err
	}
	p.mark("compile(hit)")
	if !m.Cached() {
		fmt.Fprintln(w, "MISS compiled (the warming run)")
		if err := os.WriteFile(filepath.Join(dir, cubinName), m.Image(), 0o600); err != nil {
			return err
		}
	}
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	if err != nil {
		return err
	}
	defer s.Close()
	host := make([]float32, elements)
	for i := range host {
		host[i] = float32(i - elements/2)
	}
	in, err := memory.Alloc[float32](ctx, elements)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := memory.Alloc[float32](ctx, elements)
	if err != nil {
		return err
	}
	defer out.Close()
	if err := memory.CopyToDevice(in, host); err != nil {
		return err
	}
	p.mark("alloc+in")
	if err := f.Launch(s, module.Config{Grid: module.Cover(elements, 256), Block: module.Dim(256)}, out, in, int32(elements)); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	p.mark("launch")
	got := make([]float32, elements)
	if err := memory.CopyToHost(got, out); err != nil {
		return err
	}
	p.mark("out")
	for i := 0; i < elements; i += elements / 64 {
		if want := host[i] * segscale.Scale(i, elements); got[i] != want {
			return fmt.Errorf("out[%d] = %v, want %v", i, got[i], want)
		}
	}
	return nil
}
