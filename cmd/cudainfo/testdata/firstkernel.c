// firstkernel: the C counterpart of `cudainfo -selftest`, for BENCHMARKS.md's
// "time to first kernel result" row. It does what the self-test does through
// the driver API and NVRTC directly: device facts, the primary context,
// segment_scale compiled by NVRTC (or, with a cached CUBIN from an earlier
// run, loaded from it, as the Go library's kernel cache does), 1M elements
// copied in, the kernel launched on a stream, the result copied back and
// checked exactly. Build and time it on a GPU machine:
//
//	gcc -O2 firstkernel.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcuda -lnvrtc -o firstkernel
//	./firstkernel /tmp/segscale.cubin   # the first run compiles and writes the cache
//	time ./firstkernel /tmp/segscale.cubin
#include <cuda.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#define CK(x) do { CUresult r_ = (x); if (r_) { fprintf(stderr, "FAIL %s: %d\n", #x, r_); return 1; } } while (0)
static const char *src =
  "extern \"C\" __global__ void segment_scale(float* out, const float* in, int n)\n"
  "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; int q = n / 4;\n"
  "  float v = in[i]; if (i < q) { v *= 0.5f; } else if (i >= n - q) { v *= 2.0f; } out[i] = v; }\n";
int main(int argc, char **argv) {
  const char *cache = argc > 1 ? argv[1] : "segscale.cubin";
  const int n = 1 << 20;
  CK(cuInit(0));
  CUdevice d; CK(cuDeviceGet(&d, 0));
  char name[256]; CK(cuDeviceGetName(name, sizeof name, d));
  size_t mem; CK(cuDeviceTotalMem(&mem, d));
  int major, minor;
  CK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d));
  CK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d));
  CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, d)); CK(cuCtxSetCurrent(ctx));
  char *image = NULL; size_t size = 0;
  FILE *f = fopen(cache, "rb");
  if (f) {
    fseek(f, 0, SEEK_END); size = ftell(f); fseek(f, 0, SEEK_SET);
    image = malloc(size); if (fread(image, 1, size, f) != size) { fprintf(stderr, "short cache read\n"); return 1; }
    fclose(f);
  } else {
    nvrtcProgram p; nvrtcCreateProgram(&p, src, "segscale.cu", 0, NULL, NULL);
    char arch[64]; snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    const char *opts[] = {arch};
    if (nvrtcCompileProgram(p, 1, opts) != NVRTC_SUCCESS) { fprintf(stderr, "compile failed\n"); return 1; }
    nvrtcGetCUBINSize(p, &size); image = malloc(size); nvrtcGetCUBIN(p, image); nvrtcDestroyProgram(&p);
    f = fopen(cache, "wb"); if (f) { fwrite(image, 1, size, f); fclose(f); }
  }
  CUmodule m; CK(cuModuleLoadData(&m, image));
  CUfunction fn; CK(cuModuleGetFunction(&fn, m, "segment_scale"));
  CUstream s; CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  float *in = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) in[i] = (float)i - n / 2;
  CUdeviceptr din, dout; CK(cuMemAlloc(&din, n * sizeof(float))); CK(cuMemAlloc(&dout, n * sizeof(float)));
  CK(cuMemcpyHtoDAsync(din, in, n * sizeof(float), s));
  int nn = n; void *args[] = {&dout, &din, &nn};
  CK(cuLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s, args, NULL));
  CK(cuMemcpyDtoHAsync(out, dout, n * sizeof(float), s));
  CK(cuStreamSynchronize(s));
  int q = n / 4;
  for (int i = 0; i < n; i++) {
    float want = in[i] * (i < q ? 0.5f : i >= n - q ? 2.0f : 1.0f);
    if (out[i] != want) { fprintf(stderr, "element %d: %g, want %g\n", i, out[i], want); return 1; }
  }
  printf("%s (cc %d.%d, %zu bytes): segment_scale on %d elements matches\n", name, major, minor, mem, n);
  return 0;
}
