"""torch_h2d: a training step fed from host memory, pageable or pinned (--pinned).

Each step copies a 256 MiB float32 batch (8192 x 8192 features) from host
memory to the GPU and trains a small MLP on it (8192 -> 2048 -> 2048 -> 16,
bf16 autocast, ~1 TFLOP: ~2-3 ms on an H200). Pageable (the default): the
batch is an ordinary CPU tensor, `.to("cuda")` stages it through the
driver's pinned buffer and the host waits (~10-25 GB/s). --pinned: the
batches are pinned once (pin_memory()) and copied with non_blocking=True
(~50 GB/s), still on the compute stream, so the copy does not overlap the
compute. Expected: transfer in both; pageable: 100% pageable, action
pin_memory / non_blocking; pinned: 0% pageable, lower impact, actions that
overlap the copy (a side stream and prefetch of the next batch) or keep the
data on the GPU, never "pin the remaining pageable copies". For diff:
pageable -> pinned must show pageable 100% -> 0% and the GB/s gained.
"""
import common

args = common.parse("torch_h2d", __doc__, steps=10, warmup=3,
                    sizes={"features": (8192, 256), "batch": (8192, 64), "hidden": (2048, 64)},
                    flag=("pinned", "pinned host batches, non_blocking"))

import torch  # noqa: E402

import torch_driver as td  # noqa: E402


def setup(a, dev):
    model = torch.nn.Sequential(torch.nn.Linear(a.features, a.hidden), torch.nn.GELU(),
                                torch.nn.Linear(a.hidden, a.hidden), torch.nn.GELU(),
                                torch.nn.Linear(a.hidden, 16)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=dev.type == "cuda")
    g = torch.Generator().manual_seed(5)
    host = [torch.randn(a.batch, a.features, generator=g) for _ in range(2)]
    labels = [torch.randint(0, 16, (a.batch,), generator=g).to(dev) for _ in range(2)]
    if a.pinned and dev.type == "cuda":
        host = [h.pin_memory() for h in host]
    return {"m": model, "opt": opt, "host": host, "labels": labels, "dev": dev, "nb": a.pinned}


def step(s, i):
    x = s["host"][i % 2].to(s["dev"], non_blocking=s["nb"])  # 256 MiB host to device
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](x).float(),
                                                               s["labels"][i % 2]))


td.run("torch_h2d", args, setup, step, td.loss_ok,
       extra=lambda s: {"pinned": int(s["nb"]), "mib_per_step": s["host"][0].numel() * 4 >> 20})
