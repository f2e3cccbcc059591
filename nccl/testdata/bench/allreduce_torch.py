"""The PyTorch peer of BenchmarkAllReduce (nccl/bench_test.go).

torch.distributed.all_reduce (NCCL backend), in place, float32 sum, over
every GPU of the machine, one process per GPU (mp.spawn), with the same
sizes as the Go benchmark: 8 bytes, x4 each step, and the largest size
(1 GiB) last. Bandwidths are nccl-tests': algbw = bytes / time per
operation, busbw = algbw * 2(n-1)/n, in GB/s (10^9 bytes). Rank 0 prints

    RESULT allreduce_busbw_GBps <bytes> <busbw>
    RESULT allreduce_algbw_GBps <bytes> <algbw>

Run: python3 allreduce_torch.py   (on the nvidia-h200-x2 machine)
"""
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

MAX = 1 << 30


def sizes():
    size = 8
    while size <= MAX:
        if size > MAX // 4 and size != MAX:
            size = MAX
        yield size
        size *= 4


def worker(rank, world, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    whole = torch.ones(MAX // 4, dtype=torch.float32, device=f"cuda:{rank}")
    for size in sizes():
        x = whole[: size // 4]
        for _ in range(5):  # warm up, as the Go benchmark does
            dist.all_reduce(x)
        torch.cuda.synchronize()
        # About half a second of work per size, at least 20 operations.
        iters = 20
        while True:
            dist.barrier()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(iters):
                dist.all_reduce(x)
            torch.cuda.synchronize()
            per = (time.perf_counter() - t0) / iters
            # every rank must agree on whether to run again
            more = torch.tensor([1 if per * iters < 0.5 and iters < 100000 else 0], device=f"cuda:{rank}")
            dist.all_reduce(more, op=dist.ReduceOp.MIN)
            if not more.item():
                break
            iters *= 4
        algbw = size / per / 1e9
        busbw = algbw * 2 * (world - 1) / world
        if rank == 0:
            print(f"RESULT allreduce_busbw_GBps {size} {busbw:.3f}", flush=True)
            print(f"RESULT allreduce_algbw_GBps {size} {algbw:.3f}", flush=True)
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    world = torch.cuda.device_count()
    print("torch", torch.__version__, "nccl", torch.cuda.nccl.version(), "gpus", world, flush=True)
    mp.spawn(worker, args=(world, free_port()), nprocs=world)
