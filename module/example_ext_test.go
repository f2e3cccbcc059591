package module_test

import (
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// PTX of two kernels, each in its own module, for the linking example.
const (
	ptxHeader = ".version 7.8\n.target sm_90\n.address_size 64\n"
	ptxTwice  = ptxHeader + ".visible .entry twice(.param .u64 p, .param .u32 n)\n{\n\tret;\n}\n"
	ptxNegate = ptxHeader + ".visible .entry negate(.param .u64 p, .param .u32 n)\n{\n\tret;\n}\n"
)

// elementwise returns a Go body applying op to p[i] for i < n.
func elementwise(op func(float32) float32) func(t fake.Thread, p fake.Ptr, n int32) {
	return func(t fake.Thread, p fake.Ptr, n int32) {
		if i := t.X(); i < int(n) {
			fake.Store(t, p, i, op(fake.Load[float32](t, p, i)))
		}
	}
}

// Two modules linked into one: the kernels of both are in the result. (On
// the fake, whose PTX kernels here have Go bodies, Link combines PTX that
// needs no symbol resolution; on a GPU the driver's linker links PTX,
// CUBINs, fatbins and LTO-IR compiled with -rdc.)
func ExampleLink() {
	drv := fake.New(
		fake.Kernel("twice", elementwise(func(v float32) float32 { return 2 * v })),
		fake.Kernel("negate", elementwise(func(v float32) float32 { return -v })))
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()

	m, err := module.Link(cc,
		module.LinkInput{Name: "twice.ptx", Data: []byte(ptxTwice)},
		module.LinkInput{Name: "negate.ptx", Data: []byte(ptxNegate)})
	if err != nil {
		log.Fatal(err) // a *module.LoadError carries the linker's error log
	}
	defer m.Close()
	fmt.Println(m.Kernels())

	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()
	p, _ := memory.Alloc[float32](cc, 3)
	defer p.Close()
	memory.CopyToDevice(p, []float32{1, 2, 3})
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(32)}
	for _, name := range []string{"twice", "negate"} {
		f, _ := m.Function(name)
		if err := f.Launch(s, cfg, p, int32(3)); err != nil {
			log.Fatal(err)
		}
	}
	got := make([]float32, 3)
	memory.CopyToHost(got, p) // synchronous: waits for the launches
	fmt.Println(got)
	// Output:
	// [twice negate]
	// [-2 -4 -6]
}

// A PTX image the driver's JIT compiler refuses: the error carries its
// error log.
func ExampleLoadError() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()

	bad := ptxHeader + ".visible .entry broken(.param .u64 p,)\n{\n\tret;\n}\n"
	_, err := module.Load(cc, []byte(bad))
	var le *module.LoadError
	if errors.As(err, &le) {
		fmt.Println(le.Call, "failed:", le.Err)
		fmt.Println("log:", strings.SplitN(le.Log, "\n", 2)[0])
	}
	// Output:
	// cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed
	// log: fake ptxas fatal: CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed
}

// Thread-block clusters and cooperative grids (an H200 has both), and the
// occupancy that bounds a cooperative grid.
func ExampleConfig_clusters() {
	drv := fake.New(fake.Kernel("twice", elementwise(func(v float32) float32 { return 2 * v })))
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()
	m, err := module.Load(cc, []byte(ptxTwice))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	f, _ := m.Function("twice")

	perSM, _ := f.MaxActiveBlocksPerMultiprocessor(256, 0)
	sms, _ := dev.Attribute(driver.AttrMultiprocessorCount)
	clusters, _ := f.MaxActiveClusters(module.Config{Block: module.Dim(256), Cluster: module.Dim(2)})
	fmt.Printf("%d blocks of 256 per multiprocessor, %d multiprocessors, %d clusters of 2 at once\n", perSM, sms, clusters)

	const n = 1024
	p, _ := memory.Alloc[float32](cc, n)
	defer p.Close()
	memory.CopyToDevice(p, make([]float32, n))
	cfg := module.Config{Grid: module.Dim(4), Block: module.Dim(256), Cluster: module.Dim(2), Cooperative: true}
	fmt.Println(f.Launch(s, cfg, p, int32(n)))

	cfg.Grid = module.Dim(3) // not a whole number of clusters
	fmt.Println(f.Launch(s, cfg, p, int32(n)) != nil)
	cfg = module.Config{Grid: module.Dim(perSM*sms + 1), Block: module.Dim(256), Cooperative: true}
	fmt.Println(errors.Is(f.Launch(s, cfg, p, int32(n)), module.ErrCooperativeLaunchTooLarge))
	// Output:
	// 8 blocks of 256 per multiprocessor, 132 multiprocessors, 528 clusters of 2 at once
	// <nil>
	// true
	// true
}

// A device variable, set from the host before a launch reads it. (The
// fake runs this PTX, which has no Go body, where it interprets PTX and
// has backend.ModuleGlobals; the real driver has cuModuleGetGlobal.)
func ExampleGlobal() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	m, err := module.Load(cc, []byte(ptxHeader+`
.visible .global .align 4 .f32 factor;
.visible .entry scale_by(.param .u64 p, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [p];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	setp.ge.s32 %p1, %r2, %r1;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.s32 %rd3, %r2, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.f32 %f1, [factor];
	ld.global.f32 %f2, [%rd4];
	mul.f32 %f3, %f2, %f1;
	st.global.f32 [%rd4], %f3;
DONE:
	ret;
}
`))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	factor, err := module.Global[float32](m, "factor") // valid until m.Close
	if err != nil {
		log.Fatal(err)
	}
	defer factor.Close()
	if err := memory.CopyToDevice(factor, []float32{2.5}); err != nil {
		log.Fatal(err)
	}

	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()
	p, _ := memory.Alloc[float32](cc, 4)
	defer p.Close()
	memory.CopyToDevice(p, []float32{1, 2, 3, 4})
	f, _ := m.Function("scale_by")
	if err := f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(32)}, p, int32(4)); err != nil {
		log.Fatal(err)
	}
	got := make([]float32, 4)
	memory.CopyToHost(got, p)
	fmt.Println(got)
}

// Cache write failures reach Options.Logger instead of being dropped; the
// compile itself succeeds.
func ExampleOptions_logger() {
	drv := fake.New(fake.Kernel("scale", scaleBody))
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()

	notADir := filepath.Join(os.TempDir(), "nocgo-cuda-example-file")
	os.WriteFile(notADir, nil, 0o644)
	defer os.Remove(notADir)
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "dir" || a.Key == "err" {
				return slog.Attr{} // the example prints what is the same on every machine
			}
			return a
		},
	}))
	m, err := module.Compile(cc, scaleSource, module.Options{
		CacheDir:      filepath.Join(notADir, "cache"),
		CacheMaxBytes: 64 << 20,
		Logger:        logger,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	fmt.Println("compiled", m.Kernels())
	// Output:
	// level=WARN msg="module: kernel cache: creating the directory"
	// compiled [scale]
}
