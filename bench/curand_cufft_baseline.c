// C baseline for cuRAND and cuFFT on the H200, the same measurements as the Go
// benchmarks (curand: BenchmarkGenerate; cufft: BenchmarkExec): each call followed by a
// cudaStreamSynchronize, wall-clock time, the median of 50 calls after 5 warm-ups.
//   cuRAND: 64 Mi float32 per call (uniform and normal) for Philox, XORWOW, MRG32k3a,
//           MTGP32 and Sobol32: generated GB/s (bytes written / time).
//   cuFFT:  a 2^24-point C2C forward transform in place, and a batch of 1024 R2C
//           transforms of 4096 points out of place: µs per call.
// Build: cc -O2 -o baseline curand_cufft_baseline.c -I$CUDA/include -L$CUDA/lib64 -lcurand -lcufft -lcudart
#include <cuda_runtime.h>
#include <curand.h>
#include <cufft.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
#define CK(x) do { int r = (int)(x); if (r) { printf("FAIL %s: %d\n", #x, r); exit(1); } } while (0)
static int cmp(const void* a, const void* b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
enum { WARM = 5, REPS = 50 };

int main(void) {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  static double per[REPS];

  const size_t n = (size_t)64 << 20;
  float* buf; CK(cudaMalloc((void**)&buf, n * sizeof(float)));
  const curandRngType_t kinds[] = {CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_MRG32K3A,
                                   CURAND_RNG_PSEUDO_MTGP32, CURAND_RNG_QUASI_SOBOL32};
  const char* names[] = {"Philox", "XORWOW", "MRG32k3a", "MTGP32", "Sobol32"};
  for (int k = 0; k < 5; k++) {
    curandGenerator_t g; CK(curandCreateGenerator(&g, kinds[k])); CK(curandSetStream(g, s));
    for (int dist = 0; dist < 2; dist++) {
      for (int i = 0; i < WARM + REPS; i++) {
        double t = now();
        if (dist == 0) CK(curandGenerateUniform(g, buf, n)); else CK(curandGenerateNormal(g, buf, n, 0.0f, 1.0f));
        CK(cudaStreamSynchronize(s));
        if (i >= WARM) per[i - WARM] = now() - t;
      }
      qsort(per, REPS, sizeof(double), cmp);
      printf("RESULT c curand_%s_%s_64Mi_GBps %.1f\n", names[k], dist ? "normal" : "uniform", 4.0 * n / per[REPS / 2]);
    }
    CK(curandDestroyGenerator(g));
  }
  CK(cudaFree(buf));

  {
    const int N = 1 << 24; cufftComplex* x; CK(cudaMalloc((void**)&x, sizeof(cufftComplex) * N)); CK(cudaMemset(x, 0, sizeof(cufftComplex) * N));
    cufftHandle p; CK(cufftPlan1d(&p, N, CUFFT_C2C, 1)); CK(cufftSetStream(p, s));
    for (int i = 0; i < WARM + REPS; i++) {
      double t = now(); CK(cufftExecC2C(p, x, x, CUFFT_FORWARD)); CK(cudaStreamSynchronize(s));
      if (i >= WARM) per[i - WARM] = now() - t;
    }
    qsort(per, REPS, sizeof(double), cmp);
    printf("RESULT c cufft_C2C_2^24_us %.1f\n", per[REPS / 2] / 1e3);
    CK(cufftDestroy(p)); CK(cudaFree(x));
  }
  {
    const int N = 4096, B = 1024; float* in; cufftComplex* out;
    CK(cudaMalloc((void**)&in, sizeof(float) * N * B)); CK(cudaMemset(in, 0, sizeof(float) * N * B));
    CK(cudaMalloc((void**)&out, sizeof(cufftComplex) * (N / 2 + 1) * B));
    cufftHandle p; CK(cufftPlan1d(&p, N, CUFFT_R2C, B)); CK(cufftSetStream(p, s));
    for (int i = 0; i < WARM + REPS; i++) {
      double t = now(); CK(cufftExecR2C(p, in, out)); CK(cudaStreamSynchronize(s));
      if (i >= WARM) per[i - WARM] = now() - t;
    }
    qsort(per, REPS, sizeof(double), cmp);
    printf("RESULT c cufft_R2C_1024x4096_us %.1f\n", per[REPS / 2] / 1e3);
    CK(cufftDestroy(p)); CK(cudaFree(in)); CK(cudaFree(out));
  }
  return 0;
}
