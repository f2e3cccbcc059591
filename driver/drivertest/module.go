package drivertest

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/module"
)

// Names of the kernels of KernelSource.
const (
	// KernelAdd1 is add1(float* p, int n): p[i] += 1 for i < n. Launch it
	// with (buffer, int32(n)).
	KernelAdd1 = "add1"
	// KernelSpin is spin(unsigned long long ns): every thread busy-waits ns
	// nanoseconds of the GPU's global timer (the fake sleeps ns once per
	// launch), for tests that need work still running on a stream. Launch
	// it with uint64(ns), on one block of one thread.
	KernelSpin = "spin"
	// KernelFillFloat is the name expression of fill<float>(float* p,
	// float v, int n): p[i] = v for i < n.
	KernelFillFloat = "fill<float>"
	// KernelWriteAt is write_at(float* p, long long i): one thread writes
	// p[i] = 1. With i far outside p's allocation it is a kernel that
	// faults (CUDA_ERROR_ILLEGAL_ADDRESS, sticky).
	KernelWriteAt = "write_at"
)

// KernelSource is the CUDA source of the kernels the suite launches, beside
// segment_scale (internal/segscale). Kernels compiles it.
const KernelSource = `struct Affine { float a; float b; int n; };

extern "C" __global__ void add1(float* p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1.0f;
}

extern "C" __global__ void write_at(float* p, long long i)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) p[i] = 1.0f;
}

extern "C" __global__ void spin(unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

extern "C" __global__ void mixed(double* out, double d, signed char c, short h, long long q, float f, unsigned char u)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = d;
        out[1] = c;
        out[2] = h;
        out[3] = (double)q;
        out[4] = f;
        out[5] = u;
    }
}

extern "C" __global__ void affine(float* p, Affine t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < t.n) p[i] = p[i] * t.a + t.b;
}

extern "C" __global__ void smem_copy(float* out, const float* in, int n)
{
    extern __shared__ float buf[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = buf[threadIdx.x] * 3.0f;
}

template <typename T>
__global__ void fill(T* p, T v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}
`

// affineArgs is the Affine struct of KernelSource, as a launch passes it.
type affineArgs struct {
	A, B float32
	N    int32
}

// Kernels compiles KernelSource in ctx (without the on-disk cache) and
// unloads it when the test ends.
func Kernels(t testing.TB, ctx *driver.Context) *module.Module {
	t.Helper()
	m, err := module.Compile(ctx, KernelSource, module.Options{
		Name:            "drivertest_kernels.cu",
		NameExpressions: []string{KernelFillFloat},
		NoCache:         true,
	})
	must(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

// testModules checks package module on drv: run-time compilation and its
// cache, module loading, kernel lookup, modules outliving their Context,
// checked and prepared launches, function attributes and occupancy.
func testModules(t *testing.T, drv *driver.Driver) {
	t.Run("compile", func(t *testing.T) { testModuleCompile(t, drv) })
	t.Run("compile-error", func(t *testing.T) { testModuleCompileError(t, drv) })
	t.Run("compile-warnings", func(t *testing.T) { testModuleCompileWarnings(t, drv) })
	t.Run("compile-options", func(t *testing.T) { testModuleCompileOptions(t, drv) })
	t.Run("name-expressions", func(t *testing.T) { testModuleNameExpressions(t, drv) })
	t.Run("missing-function", func(t *testing.T) { testModuleMissingFunction(t, drv) })
	t.Run("load-ptx", func(t *testing.T) { testModuleLoadPTX(t, drv) })
	t.Run("load-cubin", func(t *testing.T) { testModuleLoadCUBIN(t, drv) })
	t.Run("load-bad", func(t *testing.T) { testModuleLoadBad(t, drv) })
	t.Run("unload", func(t *testing.T) { testModuleUnload(t, drv) })
	t.Run("hold", func(t *testing.T) { testModuleHold(t, drv) })
	t.Run("launch", func(t *testing.T) { testModuleLaunch(t, drv) })
	t.Run("spin", func(t *testing.T) { testModuleSpin(t, drv) })
	t.Run("launch-special-streams", func(t *testing.T) { testModuleLaunchSpecial(t, drv) })
	t.Run("launch-scalars", func(t *testing.T) { testModuleLaunchScalars(t, drv) })
	t.Run("launch-struct", func(t *testing.T) { testModuleLaunchStruct(t, drv) })
	t.Run("arg-checks", func(t *testing.T) { testModuleArgChecks(t, drv) })
	t.Run("config-checks", func(t *testing.T) { testModuleConfigChecks(t, drv) })
	t.Run("wrong-context", func(t *testing.T) { testModuleWrongContext(t, drv) })
	t.Run("prepared", func(t *testing.T) { testModulePrepared(t, drv) })
	t.Run("attributes", func(t *testing.T) { testModuleAttributes(t, drv) })
	t.Run("dynamic-shared", func(t *testing.T) { testModuleDynamicShared(t, drv) })
	t.Run("occupancy", func(t *testing.T) { testModuleOccupancy(t, drv) })
	t.Run("cache", func(t *testing.T) { testModuleCache(t, drv) })
	t.Run("cache-corrupt", func(t *testing.T) { testModuleCacheCorrupt(t, drv) })
	t.Run("cache-env", func(t *testing.T) { testModuleCacheEnv(t, drv) })
	t.Run("cache-concurrent", func(t *testing.T) { testModuleCacheConcurrent(t, drv) })
	t.Run("segment-scale", func(t *testing.T) { testModuleSegmentScale(t, drv) })
}
