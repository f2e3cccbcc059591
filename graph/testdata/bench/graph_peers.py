# Python peers for graph/bench_test.go: the per-kernel cost of replaying a
# CUDA graph of 100 tiny kernels with torch.cuda.CUDAGraph and with CuPy's
# stream capture, against 100 eager launches. Not built by go.
#
# Run on the GPU machine:  python3 graph/testdata/bench/graph_peers.py
# Each measurement prints three lines (three rounds):
#   RESULT <peer> graph_replay100_ns_per_kernel <ns>
#   RESULT <peer> launch100_ns_per_kernel <ns>
# Times include the final synchronize, as the Go benchmarks and the C
# baseline (graph_baseline.c) do.
import time

KERNELS, REPLAYS = 100, 2000


def rep(name, f, kernels):
    for _ in range(3):
        t = time.perf_counter_ns()
        f()
        print(f"RESULT {name} {(time.perf_counter_ns() - t) / kernels:.1f}", flush=True)


try:
    import torch

    x = torch.zeros(1, device="cuda")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        for _ in range(3):  # warm up, as the CUDAGraph documentation asks
            x.add_(1)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(KERNELS):
            x.add_(1)  # one tiny kernel each
    torch.cuda.synchronize()

    def replay():
        for _ in range(REPLAYS):
            g.replay()
        torch.cuda.synchronize()

    def eager():
        for _ in range(REPLAYS):
            for _ in range(KERNELS):
                x.add_(1)
        torch.cuda.synchronize()

    rep("torch graph_replay100_ns_per_kernel", replay, REPLAYS * KERNELS)
    rep("torch launch100_ns_per_kernel", eager, REPLAYS * KERNELS)
    print("torch", torch.__version__)
except Exception as e:
    print("torch failed", repr(e))

try:
    import cupy as cp

    fe = cp.RawKernel('extern "C" __global__ void empty() {}', "empty")
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        fe((1,), (1,), ())
        s.synchronize()
        s.begin_capture()
        for _ in range(KERNELS):
            fe((1,), (1,), ())
        g = s.end_capture()
        g.upload(s)
        s.synchronize()

        def replay():
            for _ in range(REPLAYS):
                g.launch(s)
            s.synchronize()

        def eager():
            for _ in range(REPLAYS):
                for _ in range(KERNELS):
                    fe((1,), (1,), ())
            s.synchronize()

        rep("cupy graph_replay100_ns_per_kernel", replay, REPLAYS * KERNELS)
        rep("cupy launch100_ns_per_kernel", eager, REPLAYS * KERNELS)
    print("cupy", cp.__version__)
except Exception as e:
    print("cupy failed", repr(e))
