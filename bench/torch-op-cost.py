"""torch-op-cost.py - host ns per PyTorch op, to see what tracing adds to a
framework's ops beside bench/api-cost.cu's bare CUDA calls.

bench/api-cost.sh runs it (PROG=torch) untraced and under `gpuscope record`
with one CUPTI kind at a time. Each op runs in 7 batches of 2000 on tiny
tensors (the GPU drains between batches); each line printed is
`COST name=OP ns=F`, the median batch's ns per op, host time only.
"""

import sys
import time

import torch

BATCHES = 7
PER_BATCH = 2000


def cost(name, fn):
    ns = []
    for _ in range(BATCHES):
        t0 = time.perf_counter()
        for _ in range(PER_BATCH):
            fn()
        ns.append((time.perf_counter() - t0) * 1e9 / PER_BATCH)
        torch.cuda.synchronize()
    ns.sort()
    print(f"COST name={name} ns={ns[BATCHES // 2]:.1f}", flush=True)


def main():
    if not torch.cuda.is_available():
        print("torch-op-cost: no CUDA device", file=sys.stderr)
        return 1
    dev = torch.device("cuda")
    a = torch.randn(1024, device=dev)
    b = torch.randn(1024, device=dev)
    c = torch.empty(1024, device=dev)
    m = torch.randn(64, 64, device=dev, dtype=torch.bfloat16)
    x = torch.randn(32, 256, device=dev)
    ln = torch.nn.LayerNorm(256, device=dev)
    ops = [
        ("py_loop", lambda: None),
        ("current_device", torch.cuda.current_device),
        ("add_out", lambda: torch.add(a, b, out=c)),
        ("add_alloc", lambda: a + b),
        ("mul_inplace", lambda: c.mul_(1.0)),
        ("to_bf16", lambda: a.to(torch.bfloat16)),
        ("sum", lambda: a.sum()),
        ("matmul_bf16_64", lambda: m @ m),
        ("layer_norm", lambda: ln(x)),
    ]
    t0 = time.perf_counter()
    with torch.no_grad():
        for _, fn in ops:  # warm-up: modules, allocator, cuBLAS handles
            for _ in range(50):
                fn()
        torch.cuda.synchronize()
        for name, fn in ops:
            cost(name, fn)
    torch.cuda.synchronize()
    print(f"TIME name=torch_op_cost loop_s={time.perf_counter() - t0:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
