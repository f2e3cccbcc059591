// C baseline for NVML on the H200, the same calls as the Go benchmark
// (nvml: BenchmarkQuery): nvmlDeviceGetMemoryInfo and
// nvmlDeviceGetUtilizationRates on device 0, ns per call, the median of 21
// batches of 10000 calls after one warm-up batch.
// The few declarations needed are written here (the ABI of nvml.h: an int
// return, pointer handles, the structs of internal/libnvml's doc), so that
// no NVML header is needed; link against the driver's library:
// Build: cc -O2 -o nvml_baseline nvml_baseline.c -l:libnvidia-ml.so.1
//        (or -L/usr/lib/x86_64-linux-gnu -l:libnvidia-ml.so.1)
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void* dev_t_;
typedef struct { unsigned long long total, free, used; } mem_t;
typedef struct { unsigned int gpu, memory; } util_t;
int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, dev_t_* device);
int nvmlDeviceGetMemoryInfo(dev_t_ device, mem_t* memory);
int nvmlDeviceGetUtilizationRates(dev_t_ device, util_t* utilization);

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
#define CK(x) do { int r = (int)(x); if (r) { printf("FAIL %s: %d\n", #x, r); exit(1); } } while (0)
static int cmp(const void* a, const void* b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
enum { BATCHES = 21, CALLS = 10000 };

int main(void) {
  CK(nvmlInit_v2());
  dev_t_ d; CK(nvmlDeviceGetHandleByIndex_v2(0, &d));
  static double per[BATCHES];
  mem_t m; util_t u;
  for (int b = -1; b < BATCHES; b++) {
    double t = now();
    for (int i = 0; i < CALLS; i++) CK(nvmlDeviceGetMemoryInfo(d, &m));
    if (b >= 0) per[b] = (now() - t) / CALLS;
  }
  qsort(per, BATCHES, sizeof(double), cmp);
  printf("RESULT c nvml_memory_info_ns %.1f\n", per[BATCHES / 2]);
  for (int b = -1; b < BATCHES; b++) {
    double t = now();
    for (int i = 0; i < CALLS; i++) CK(nvmlDeviceGetUtilizationRates(d, &u));
    if (b >= 0) per[b] = (now() - t) / CALLS;
  }
  qsort(per, BATCHES, sizeof(double), cmp);
  printf("RESULT c nvml_utilization_ns %.1f\n", per[BATCHES / 2]);
  printf("# used %llu of %llu bytes, GPU %u%%\n", m.used, m.total, u.gpu);
  CK(nvmlShutdown());
  return 0;
}
