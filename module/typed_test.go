package module_test

import (
	"fmt"
	"log"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// scaleSetup compiles scale (out, in, float k, int n) on the fake, whose
// PTX gives the parameter types, with n-element buffers.
func scaleSetup(t testing.TB, n int) (*stream.Stream, *module.Function, *memory.Buffer[float32], *memory.Buffer[float32]) {
	t.Helper()
	ctx, s := setup(t, fake.New(fake.Kernel("scale", scaleBody)))
	m, err := module.Compile(ctx, scaleSource, module.Options{NoCache: true})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	f, err := m.Function("scale")
	require.NoError(t, err)
	out, in := alloc(t, ctx, n), alloc(t, ctx, n)
	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i)
	}
	require.NoError(t, memory.CopyToDeviceAsync(s, in, host))
	return s, f, out, in
}

// TestLaunchChecksPTXTypes: where the PTX gives the parameter types, an
// argument of the right size but the wrong kind is refused, saying which
// argument and why, with the Go type spelled right (project issue 23).
func TestLaunchChecksPTXTypes(t *testing.T) {
	const n = 64
	s, f, out, in := scaleSetup(t, n)
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}
	for _, c := range []struct {
		args []any
		want string
	}{
		{[]any{out, in, int32(2), int32(n)}, "argument 2 (float k): an int32 of 4 bytes for a .f32 parameter: pass a float32"},
		{[]any{out, in, uint32(2), int32(n)}, "argument 2 (float k): a uint32 of 4 bytes for a .f32 parameter"},
		{[]any{out, in, float32(2), float32(n)}, "argument 3 (int n): a float32 of 4 bytes for a .u32 parameter: pass an int32"},
		{[]any{out, in, float32(2), n}, "argument 3 (int n): an int of 8 bytes for a .u32 parameter: pass an int32"},
		{[]any{out, float64(1), float32(2), int32(n)}, "argument 1 (const float* in): a float64 of 8 bytes for a .u64 parameter (a device pointer): pass a *memory.Buffer or a uintptr"},
		{[]any{out, in, in, int32(n)}, "argument 2 (float k): a *memory.Buffer[float32] (a device pointer of 8 bytes) for a .f32 parameter"},
		{[]any{out, in, [1]float32{2}, int32(n)}, "argument 2 (float k): a [1]float32 of 4 bytes for a .f32 parameter"},
	} {
		err := f.Launch(s, cfg, c.args...)
		require.ErrorIs(t, err, module.ErrArgs, c.want)
		assert.Contains(t, err.Error(), c.want)
		_, err = f.Args(c.args...)
		assert.ErrorIs(t, err, module.ErrArgs, c.want)
	}
	// The right types run; a [N]byte passes unchecked, as raw bytes.
	require.NoError(t, f.Launch(s, cfg, out, in, float32(2), int32(n)))
	require.NoError(t, f.Launch(s, cfg, out, in, [4]byte{0, 0, 0x40, 0x40}, uint32(n))) // 3.0
	got := make([]float32, n)
	require.NoError(t, memory.CopyToHostAsync(s, got, out))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, float32(3*7), got[7])
}

// TestArticles: errors say "an int", "a uint32", never "a int".
func TestArticles(t *testing.T) {
	const n = 8
	s, f, out, in := scaleSetup(t, n)
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}
	err := f.Launch(s, cfg, out, in, float32(1), int8(1))
	require.ErrorIs(t, err, module.ErrArgs)
	assert.Contains(t, err.Error(), "an int8 of 1 bytes")
	assert.NotContains(t, err.Error(), "a int")
}

// TestKernelTyped: a typed kernel checks its Go types once, when made, and
// launches as Function.Launch does, with no allocation.
func TestKernelTyped(t *testing.T) {
	const n = 64
	s, f, out, in := scaleSetup(t, n)
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}
	k, err := module.NewKernel4[*memory.Buffer[float32], *memory.Buffer[float32], float32, int32](f)
	require.NoError(t, err)
	assert.Same(t, f, k.Function())
	require.NoError(t, k.Launch(s, cfg, out, in, 2, n))
	got := make([]float32, n)
	require.NoError(t, memory.CopyToHostAsync(s, got, out))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, float32(2*9), got[9])

	// Wrong types, a wrong count, types that cannot be arguments.
	_, err = module.NewKernel4[*memory.Buffer[float32], *memory.Buffer[float32], int32, int32](f)
	require.ErrorIs(t, err, module.ErrArgs)
	assert.Contains(t, err.Error(), "module.NewKernel4: kernel scale: argument 2 (float k): an int32 of 4 bytes for a .f32 parameter")
	_, err = module.NewKernel3[*memory.Buffer[float32], *memory.Buffer[float32], float32](f)
	assert.ErrorIs(t, err, module.ErrArgs)
	_, err = module.NewKernel4[*memory.Buffer[float32], any, float32, int32](f)
	assert.ErrorIs(t, err, module.ErrArgs)
	_, err = module.NewKernel4[*memory.Buffer[float32], []float32, float32, int32](f)
	assert.ErrorIs(t, err, module.ErrArgs)
	_, err = module.NewKernel1[int32](nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)

	// A buffer's state is still checked at each launch.
	var nilBuf *memory.Buffer[float32]
	assert.ErrorIs(t, k.Launch(s, cfg, nilBuf, in, 2, n), module.ErrArgs)
	var zero *module.Kernel4[*memory.Buffer[float32], *memory.Buffer[float32], float32, int32]
	assert.ErrorIs(t, zero.Launch(s, cfg, out, in, 2, n), module.ErrArgs)
	assert.ErrorIs(t, (&module.Kernel1[int32]{}).Launch(s, cfg, 1), module.ErrArgs)
	closed := alloc(t, out.Context(), n)
	require.NoError(t, closed.Close())
	assert.ErrorIs(t, k.Launch(s, cfg, closed, in, 2, n), driver.ErrClosed)
	require.NoError(t, f.Module().Close())
	assert.ErrorIs(t, k.Launch(s, cfg, out, in, 2, n), driver.ErrClosed)
}

// TestKernelTypedNoAllocs: a typed launch allocates nothing (on a backend
// whose cuLaunchKernel allocates nothing).
func TestKernelTypedNoAllocs(t *testing.T) {
	const n = 256
	s, f, _, out, in := launchSetup(t, n)
	k, err := module.NewKernel3[*memory.Buffer[float32], *memory.Buffer[float32], int32](f)
	require.NoError(t, err)
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}
	allocs := testing.AllocsPerRun(100, func() {
		if err := k.Launch(s, cfg, out, in, n); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

// BenchmarkKernelLaunch is a typed launch (Kernel3), beside
// BenchmarkLaunch: its types were checked when it was made.
func BenchmarkKernelLaunch(b *testing.B) {
	backends(b, func(b *testing.B, drv *driver.Driver) {
		s, f, out, in := benchKernel(b, drv, benchN)
		k, err := module.NewKernel3[*memory.Buffer[float32], *memory.Buffer[float32], int32](f)
		if err != nil {
			b.Fatal(err)
		}
		cfg := module.Config{Grid: module.Cover(benchN, 256), Block: module.Dim(256)}
		b.ReportAllocs()
		for b.Loop() {
			if err := k.Launch(s, cfg, out, in, benchN); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Synchronize(); err != nil {
			b.Fatal(err)
		}
	})
}

// A typed kernel: the Go compiler checks each launch's arguments, and
// NewKernel4 checks the types against the kernel's parameters once. A
// launch with int32(2) for the kernel's float k is refused by Function.Launch
// (the PTX says .f32) and does not compile with the Kernel4.
func ExampleKernel4() {
	drv := fake.New(fake.Kernel("scale", scaleBody)) // or gpu.Load() on a GPU
	dev, _ := drv.Device(0)
	ctx, _ := dev.PrimaryContext()
	defer ctx.Close()
	s, _ := stream.New(ctx, stream.Options{})
	defer s.Close()
	const n = 1000
	in, _ := memory.Alloc[float32](ctx, n)
	defer in.Close()
	out, _ := memory.Alloc[float32](ctx, n)
	defer out.Close()
	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i)
	}
	memory.CopyToDeviceAsync(s, in, host)

	m, err := module.Compile(ctx, scaleSource, module.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	f, _ := m.Function("scale")
	cfg := module.Config{Grid: module.Cover(n, 128), Block: module.Dim(128)}

	fmt.Println(f.Launch(s, cfg, out, in, int32(2), int32(n))) // k is a float

	scale, err := module.NewKernel4[*memory.Buffer[float32], *memory.Buffer[float32], float32, int32](f)
	if err != nil {
		log.Fatal(err)
	}
	if err := scale.Launch(s, cfg, out, in, 2, n); err != nil {
		log.Fatal(err)
	}
	got := make([]float32, n)
	memory.CopyToHostAsync(s, got, out)
	s.Synchronize()
	fmt.Println(got[1], got[999])
	// Output:
	// module.Function.Launch: kernel scale: argument 2 (float k): an int32 of 4 bytes for a .f32 parameter: pass a float32 (parameter 2: 4 bytes at offset 16, from cuFuncGetParamInfo): module: launch arguments do not match the kernel's parameters
	// 2 1998
}

// TestLaunchChecksNVRTCTypes: the same checks on PTX from NVIDIA's NVRTC
// (where libnvrtc is installed; the fake interprets the PTX): its .f32 for
// a float, .u32 for an int, .u64 for a pointer.
func TestLaunchChecksNVRTCTypes(t *testing.T) {
	nv := cudatest.NVRTC(t)
	ctx, s := setup(t, fake.New(fake.NVRTC(nv)))
	m, err := module.Compile(ctx, scaleSource, module.Options{NoCache: true})
	require.NoError(t, err)
	defer m.Close()
	f, err := m.Function("scale")
	require.NoError(t, err)
	const n = 32
	out, in := alloc(t, ctx, n), alloc(t, ctx, n)
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}
	err = f.Launch(s, cfg, out, in, int32(2), int32(n))
	require.ErrorIs(t, err, module.ErrArgs)
	assert.Contains(t, err.Error(), "argument 2 (float k): an int32 of 4 bytes for a .f32 parameter")
	require.NoError(t, f.Launch(s, cfg, out, in, float32(2), int32(n)))
	require.NoError(t, f.Launch(s, cfg, out, in, float32(2), uint32(n)), "NVRTC writes .u32 for a C int")
	k, err := module.NewKernel4[*memory.Buffer[float32], *memory.Buffer[float32], float32, int32](f)
	require.NoError(t, err)
	require.NoError(t, k.Launch(s, cfg, out, in, 2, n))
	require.NoError(t, s.Synchronize())
}
