"""Small PyTorch ops from a Python loop (hostsample-probe.sh): most samples
land inside libtorch (CPU) or libtorch + the CUDA driver (cuda), so the
share of samples whose stack still reaches train_loop tells whether frame
pointer chains survive those libraries."""
import sys
import time

import torch

dev = sys.argv[1] if len(sys.argv) > 1 else "cpu"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 40000
x = torch.ones(256, device=dev)


def step(t):
    return torch.add(t, 1.0).mul_(0.5)


def train_loop(steps):
    y = x
    for _ in range(steps):
        y = step(x)
    if dev == "cuda":
        torch.cuda.synchronize()
    return y


train_loop(200)  # warm-up: CUDA context, kernels loaded
t0 = time.perf_counter()
train_loop(n)
print(f"ELAPSED {time.perf_counter() - t0:.4f}", flush=True)
