"""One rank of a data-parallel step on one GPU shared by several processes
(issue 24's stand-in for a multi-GPU machine: NCCL cannot put two ranks on
one GPU, so the gradients go through gloo on the host).

Each step: a chain of matmuls on the GPU (the "forward/backward"), the
result's gradient-sized tensor copied to the host, a gloo all_reduce across
the ranks, copied back. --slow-rank R gives rank R --slow-factor times the
matmuls, so every other rank waits in the all_reduce for it (the straggler
gpuscope must name). The collective is marked with an NVTX range and a
record_function called "gloo:all_reduce" (how PyTorch titles gloo's
all_reduce): NCCL would put kernels on the GPU that record sees; gloo runs on
the host, where record sees only NVTX.

Rank and world size come from the environment (RANK, WORLD_SIZE,
MASTER_ADDR, MASTER_PORT: torchrun's or the caller's). --profile DIR writes
DIR/rank<R>.json.gz (torch.profiler: distributedInfo names the rank).
--device cpu runs the same code with CPU tensors (the plumbing test).
Prints `WORKLOAD name=multigpu rank=R world=W steps=S loop_s=F` last; a
wrong all_reduce result exits 1.
"""
import argparse
import contextlib
import os
import sys
import time

import torch
import torch.distributed as dist


def main():
    p = argparse.ArgumentParser(description="one rank of a gloo data-parallel step")
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--size", type=int, default=None, help="matmul size (4096; 256 on cpu)")
    p.add_argument("--matmuls", type=int, default=None, help="per step (24; 2 on cpu)")
    p.add_argument("--grad-mb", type=float, default=None, help="all_reduce size (16; 1 on cpu)")
    p.add_argument("--slow-rank", type=int, default=1, help="-1: none")
    p.add_argument("--slow-factor", type=float, default=2.0)
    p.add_argument("--profile", metavar="DIR")
    a = p.parse_args()
    cpu = a.device == "cpu"
    size = a.size or (256 if cpu else 4096)
    mm = a.matmuls or (2 if cpu else 24)
    grad_mb = a.grad_mb or (1.0 if cpu else 16.0)

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    dev = torch.device("cpu" if cpu else "cuda:0")
    if not cpu:
        torch.cuda.set_device(dev)
    n_mm = int(round(mm * a.slow_factor)) if rank == a.slow_rank else mm
    x = torch.randn(size, size, device=dev)
    w = torch.randn(size, size, device=dev) / size**0.5
    n_grad = int(grad_mb * 1024 * 1024 / 4)
    sync = (lambda: None) if cpu else torch.cuda.synchronize
    nvtx = (lambda name: contextlib.nullcontext()) if cpu else torch.cuda.nvtx.range

    def step(i):
        y = x
        for _ in range(n_mm):
            y = torch.tanh(y @ w)
        g = y.flatten()[:1].repeat(n_grad) * 0 + (rank + 1)  # gradient-sized
        host = g.to("cpu")
        with nvtx("gloo:all_reduce"), torch.autograd.profiler.record_function("gloo:all_reduce"):
            dist.all_reduce(host)
        want = world * (world + 1) / 2
        if abs(host[0].item() - want) > 1e-3 or abs(host[-1].item() - want) > 1e-3:
            print(f"rank {rank}: all_reduce gave {host[0].item()}, want {want}", file=sys.stderr)
            sys.exit(1)
        return host.to(dev, non_blocking=False)

    for i in range(a.warmup):
        step(i)
    sync()
    dist.barrier()
    prof = None
    if a.profile:
        os.makedirs(a.profile, exist_ok=True)
        acts = [torch.profiler.ProfilerActivity.CPU]
        if not cpu:
            acts.append(torch.profiler.ProfilerActivity.CUDA)
        path = os.path.join(a.profile, f"rank{rank}.json.gz")
        prof = torch.profiler.profile(activities=acts, record_shapes=False,
                                      schedule=torch.profiler.schedule(wait=0, warmup=1,
                                                                       active=a.steps - 1),
                                      on_trace_ready=lambda pr: pr.export_chrome_trace(path))
        prof.start()
    t0 = time.perf_counter()
    for i in range(a.steps):
        step(i)
        if prof:
            prof.step()
    sync()
    loop_s = time.perf_counter() - t0
    if prof:
        prof.stop()
    dist.barrier()
    dist.destroy_process_group()
    print(f"WORKLOAD name=multigpu rank={rank} world={world} steps={a.steps} "
          f"matmuls={n_mm} loop_s={loop_s:.4f}", flush=True)


if __name__ == "__main__":
    main()
