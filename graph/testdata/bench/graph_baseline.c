// C baseline for graph/bench_test.go (BenchmarkReplay100, BenchmarkLaunch100):
// the per-kernel cost of replaying a graph of 100 empty kernels against 100
// cuLaunchKernel calls, through the driver API directly. Not built by go.
//
// Run on the GPU machine:
//   gcc -O2 -o /tmp/graph_baseline graph/testdata/bench/graph_baseline.c \
//       -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcuda -lnvrtc && /tmp/graph_baseline
// Each measurement prints three lines (three rounds):
//   RESULT c graph_replay100_ns_per_kernel <ns>
//   RESULT c launch100_ns_per_kernel <ns>
// Times include the final cuStreamSynchronize, as the Go benchmarks do.
#include <cuda.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define CK(x) do { CUresult r = (x); if (r) { printf("FAIL %s: %d\n", #x, r); exit(1);} } while (0)
static double now(void){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1e9+t.tv_nsec; }
static const char* src = "extern \"C\" __global__ void empty() {}\n";
enum { KERNELS = 100, REPLAYS = 2000 };
int main(void){
  CK(cuInit(0)); CUdevice d; CK(cuDeviceGet(&d,0)); CUcontext c; CK(cuDevicePrimaryCtxRetain(&c,d)); CK(cuCtxSetCurrent(c));
  nvrtcProgram p; nvrtcCreateProgram(&p, src, "empty.cu", 0, 0, 0); const char* o[] = {"--gpu-architecture=compute_90"};
  if (nvrtcCompileProgram(p,1,o)) { printf("FAIL compile\n"); return 1; }
  size_t n; nvrtcGetPTXSize(p,&n); char* ptx=malloc(n); nvrtcGetPTX(p,ptx);
  CUmodule m; CK(cuModuleLoadData(&m, ptx)); CUfunction fe; CK(cuModuleGetFunction(&fe,m,"empty"));
  CUstream s; CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

  // The graph: 100 launches captured on s, instantiated and uploaded.
  CUgraph g; CUgraphExec e;
  CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  for (int i = 0; i < KERNELS; i++) CK(cuLaunchKernel(fe,1,1,1,1,1,1,0,s,0,0));
  CK(cuStreamEndCapture(s, &g));
  CK(cuGraphInstantiateWithFlags(&e, g, 0));
  CK(cuGraphUpload(e, s)); CK(cuStreamSynchronize(s));

  for (int r = 0; r < 3; r++) {
    CK(cuStreamSynchronize(s)); double t = now();
    for (int i = 0; i < REPLAYS; i++) CK(cuGraphLaunch(e, s));
    CK(cuStreamSynchronize(s));
    printf("RESULT c graph_replay100_ns_per_kernel %.1f\n", (now()-t)/((double)REPLAYS*KERNELS));
  }
  for (int r = 0; r < 3; r++) {
    CK(cuStreamSynchronize(s)); double t = now();
    for (int i = 0; i < REPLAYS; i++) for (int k = 0; k < KERNELS; k++) CK(cuLaunchKernel(fe,1,1,1,1,1,1,0,s,0,0));
    CK(cuStreamSynchronize(s));
    printf("RESULT c launch100_ns_per_kernel %.1f\n", (now()-t)/((double)REPLAYS*KERNELS));
  }
  CK(cuGraphExecDestroy(e)); CK(cuGraphDestroy(g)); CK(cuStreamDestroy(s)); CK(cuModuleUnload(m));
  return 0; }
