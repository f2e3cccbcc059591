// Package kernels holds the CUDA C of the kernels the conformance suite
// launches and their names: what a backend compiles and runs, with no
// implementation behind it. Their Go bodies for the fake driver, which need
// package fake, are in [github.com/nocgo/cuda/cudatest/fakekernels].
package kernels

// Names of the kernels of Source.
const (
	// Add1 is add1(float* p, int n): p[i] += 1 for i < n. Launch it
	// with (buffer, int32(n)).
	Add1 = "add1"
	// Spin is spin(unsigned long long ns): every thread busy-waits ns
	// nanoseconds of the GPU's global timer (the fake sleeps ns once per
	// launch), for tests that need work still running on a stream. Launch
	// it with uint64(ns), on one block of one thread.
	Spin = "spin"
	// FillFloat is the name expression of fill<float>(float* p,
	// float v, int n): p[i] = v for i < n.
	FillFloat = "fill<float>"
	// WriteAt is write_at(float* p, long long i): one thread writes
	// p[i] = 1. With i far outside p's allocation it is a kernel that
	// faults (CUDA_ERROR_ILLEGAL_ADDRESS, sticky).
	WriteAt = "write_at"
	// Mixed is mixed(double* out, double d, signed char c, short h, long
	// long q, float f, unsigned char u): one thread writes its six scalars,
	// converted to double, to out[0..5]. Launch it with (buffer, float64,
	// int8, int16, int64, float32, uint8).
	Mixed = "mixed"
	// Affine is affine(float* p, Affine t): p[i] = p[i]*t.a + t.b for
	// i < t.n, the struct passed by value. Launch it with (buffer,
	// AffineArgs).
	Affine = "affine"
	// SmemCopy is smem_copy(float* out, const float* in, int n): out[i] =
	// in[i]*3 for i < n, through dynamic shared memory of one float per
	// thread of the block.
	SmemCopy = "smem_copy"
)

// Source is the CUDA source of the kernels the suite launches, beside
// segment_scale ([github.com/nocgo/cuda/conformance/segscale]). Compile it
// with FillFloat among the name expressions (module.Options.NameExpressions).
const Source = `struct Affine { float a; float b; int n; };

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

// AffineArgs is the Affine struct of Source (struct Affine { float a; float
// b; int n; }), as a launch of Affine passes it by value.
type AffineArgs struct {
	A, B float32
	N    int32
}
