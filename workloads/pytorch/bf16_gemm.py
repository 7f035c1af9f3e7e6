"""bf16_gemm: large bf16 matmuls (8192^3, ~1.1 TFLOP each) back to back.

GPU bound on the tensor cores; the host only enqueues. Expected finding:
gpu_busy (compute_bound with counters). 10 matmuls per step, 20 steps.
"""
import torch

import zoo_common as zc

args = zc.parse("bf16_gemm", steps=20, profile_steps=3)
N = 8192


def setup():
    torch.manual_seed(0)
    a = torch.randn(N, N, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(N, N, device="cuda", dtype=torch.bfloat16) / N ** 0.5
    return {"a": a, "b": b, "c": torch.empty(N, N, device="cuda", dtype=torch.bfloat16)}


def step(s, i):
    for _ in range(10):
        torch.matmul(s["a"], s["b"], out=s["c"])


def check(s):
    # spot check a few rows against float64 (on the GPU, to stay fast)
    ref = s["a"][:4].double() @ s["b"].double()
    got = s["c"][:4].double()
    return float((got - ref).norm() / ref.norm()) < 1e-2


zc.run("bf16_gemm", args, setup, step, check)
