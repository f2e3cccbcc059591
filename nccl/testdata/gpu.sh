#!/usr/bin/env bash
# The NCCL runs of issue 14, on the nvidia-h200-x2 machine, in one command.
#
# Here, from the repository root:
#   ../shared/tools/gpu-prep test ./nccl/...      # builds .gpu/ (nccl.test)
# Then on the GPU machine, from the repository root with .gpu carried along:
#   bash nccl/testdata/gpu.sh
#
# It runs, with NOCGO_CUDA_REQUIRE_GPU=1 and NOCGO_CUDA_REQUIRE_GPUS=2 (the
# tests fail instead of skipping when a GPU, the second GPU or NCCL is
# missing):
#   - TestConformanceGPU: every collective over both GPUs in one process;
#   - TestContractGPU: NCCL's contract for peers that never come
#     (conformance.RunNCCL; on one GPU, alone:
#     NOCGO_CUDA_REQUIRE_GPU=1 .gpu/bin/nccl.test -test.run '^TestContractGPU$' -test.v);
#   - TestMultiProcess/default: two processes, the UniqueID through a file;
#   - TestMultiProcess/socket: the same with NCCL_P2P_DISABLE=1
#     NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 (sockets: the multi-node path);
#   - TestAllReduceAllocatesNothing;
#   - BenchmarkAllReduce (8 B to 1 GiB) and the PyTorch peer
#     (testdata/bench/allreduce_torch.py), side by side.
# Logs go to $OUT (else /tmp/out): nccl-test.log, nccl-bench.log.
set -uo pipefail
root="$(pwd)"
[ -d .gpu/bin ] || tar xJf .gpu/bin.tar.xz -C .gpu
bin="$root/.gpu/bin/nccl.test"
out="${OUT:-/tmp/out}"; mkdir -p "$out"
export NOCGO_CUDA_REQUIRE_GPU=1 NOCGO_CUDA_REQUIRE_GPUS=2
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
ls -l /usr/lib/x86_64-linux-gnu/libnccl.so* 2>/dev/null
cd nccl
"$bin" -test.run '^(TestConformanceGPU|TestContractGPU|TestMultiProcess|TestAllReduceAllocatesNothing)$' \
  -test.v -test.count=1 -test.timeout=540s >"$out/nccl-test.log" 2>&1
status=$?
grep -E -- '^\s*(--- (PASS|FAIL|SKIP)|PASS$|FAIL$|panic:)' "$out/nccl-test.log"
grep -E 'via NET/Socket' "$out/nccl-test.log" | head -2
"$bin" -test.run '^$' -test.bench '^BenchmarkAllReduce$' -test.benchmem -test.count=1 \
  -test.timeout=300s >"$out/nccl-bench.log" 2>&1 || status=1
timeout 300 python3 testdata/bench/allreduce_torch.py >>"$out/nccl-bench.log" 2>&1 || echo "torch peer failed (see nccl-bench.log)"
echo "=== Go (ns/op, algbw, busbw, allocs) and PyTorch (RESULT lines)"
grep -E '^(BenchmarkAllReduce|RESULT|torch )' "$out/nccl-bench.log"
echo "overall test status: $status"
exit $status
