package module_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// One Library serves every device: compiled once (to PTX, which the
// driver compiles for each device), it gives each device's context its own
// function on first use. Here on the fake driver with two devices.
func ExampleCompileLibrary() {
	drv := fake.New(fake.Devices(2), fake.PretendNVRTC(), fake.Kernel("scale", scaleBody))
	dev0, err := drv.Device(0)
	if err != nil {
		log.Fatal(err)
	}
	ctx0, err := dev0.PrimaryContext()
	if err != nil {
		log.Fatal(err)
	}
	defer ctx0.Close()
	lib, err := module.CompileLibrary(ctx0, scaleSource, module.Options{Arch: "compute_90", NoCache: true})
	if err != nil {
		log.Fatal(err)
	}
	defer lib.Close() // unloads it from every context
	k, err := lib.Kernel("scale")
	if err != nil {
		log.Fatal(err)
	}
	for i := range 2 {
		dev, err := drv.Device(i)
		if err != nil {
			log.Fatal(err)
		}
		ctx, err := dev.PrimaryContext()
		if err != nil {
			log.Fatal(err)
		}
		defer ctx.Close()
		f, err := k.Function(ctx) // the library's function in this context
		if err != nil {
			log.Fatal(err)
		}
		s, err := stream.New(ctx, stream.Options{})
		if err != nil {
			log.Fatal(err)
		}
		defer s.Close()
		in, err := memory.Alloc[float32](ctx, 4)
		if err != nil {
			log.Fatal(err)
		}
		defer in.Close()
		out, err := memory.Alloc[float32](ctx, 4)
		if err != nil {
			log.Fatal(err)
		}
		defer out.Close()
		if err := memory.CopyToDevice(in, []float32{1, 2, 3, 4}); err != nil {
			log.Fatal(err)
		}
		if err := f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(4)}, out, in, float32(i+2), int32(4)); err != nil {
			log.Fatal(err)
		}
		got := make([]float32, 4)
		if err := s.Synchronize(); err != nil {
			log.Fatal(err)
		}
		if err := memory.CopyToHost(got, out); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("device %d: %v\n", i, got)
	}
	// Output:
	// device 0: [2 4 6 8]
	// device 1: [3 6 9 12]
}

// A source that includes the toolkit's headers needs no include paths:
// Compile adds the toolkit's directories (ToolkitIncludePaths: here
// NOCGO_CUDA_INCLUDE, as CI sets it; else CUDA_HOME, CUDA_PATH or
// /usr/local/cuda with its include/cccl, or NVIDIA's pip wheels), and the
// headers the source reaches there are part of the cache key.
func ExampleToolkitIncludePaths() {
	dir, err := os.MkdirTemp("", "toolkit-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// A stand-in for a toolkit's include directory.
	if err := os.WriteFile(filepath.Join(dir, "tk_scale.h"), []byte("#define TK_FACTOR 2.0f\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	old, had := os.LookupEnv(module.ToolkitIncludeEnv)
	os.Setenv(module.ToolkitIncludeEnv, dir)
	defer func() {
		if had {
			os.Setenv(module.ToolkitIncludeEnv, old)
		} else {
			os.Unsetenv(module.ToolkitIncludeEnv)
		}
	}()
	fmt.Println(module.ToolkitIncludePaths()[0] == dir)

	drv := fake.New(fake.PretendNVRTC(), fake.Kernel("scale", scaleBody))
	dev, err := drv.Device(0)
	if err != nil {
		log.Fatal(err)
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Close()
	src := "#include \"tk_scale.h\"\n" + scaleSource
	m, err := module.Compile(ctx, src, module.Options{NoCache: true})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	fmt.Println("compiled with the toolkit's headers")

	_, err = module.Compile(ctx, src, module.Options{NoCache: true, NoToolkitIncludes: true})
	fmt.Println("without them:", err != nil)
	// Output:
	// true
	// compiled with the toolkit's headers
	// without them: true
}
