"""torch_empty_cache: torch.cuda.empty_cache() every step (cudaFree/cudaMalloc in the loop).

An MLP training step (4 x Linear(4096, 4096) + GELU, batch 8192, bf16
autocast, AdamW, grads set to None) that calls torch.cuda.empty_cache()
after each optimizer step, as scripts do "to avoid running out of memory":
PyTorch's caching allocator hands its cached blocks back to the driver
(cudaFree, which also waits for the device), and the next step's ~1 GB of
activations and gradients is allocated from the driver again (cudaMalloc
of tens of MB each). The GPU idles while the host is inside those calls.
Expected: the idle named as time inside cudaMalloc/cudaFree (other CUDA
calls, not host work), attributed to torch.cuda.empty_cache; actions: take
empty_cache out of the loop and let the caching allocator reuse its blocks
(or PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against
fragmentation); never input_pipeline or "no bottleneck found". --fixed:
no empty_cache.
"""
import common

args = common.parse("torch_empty_cache", __doc__, steps=15, warmup=3,
                    sizes={"width": (4096, 64), "batch": (8192, 32), "layers": (4, 2)},
                    flag=("fixed", "no empty_cache in the loop"))

import torch  # noqa: E402

import torch_driver as td  # noqa: E402


def setup(a, dev):
    layers = []
    for _ in range(a.layers):
        layers += [torch.nn.Linear(a.width, a.width), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(a.width, 16)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=dev.type == "cuda")
    xs = [torch.randn(a.batch, a.width, device=dev) for _ in range(2)]
    ys = [torch.randint(0, 16, (a.batch,), device=dev) for _ in range(2)]
    return {"m": model, "opt": opt, "xs": xs, "ys": ys, "dev": dev, "fixed": a.fixed}


def step(s, i):
    x, y = s["xs"][i % 2], s["ys"][i % 2]
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](x).float(), y))
    if not s["fixed"]:
        torch.cuda.empty_cache()  # the problem: the cached blocks go back to the driver


def extra(s):
    if s["dev"].type != "cuda":
        return {}
    return {"peak_alloc_mib": torch.cuda.max_memory_allocated() >> 20,
            "segments_mallocs": torch.cuda.memory_stats().get("segment.all.allocated", -1)}


td.run("torch_empty_cache", args, setup, step, td.loss_ok, extra=extra)
