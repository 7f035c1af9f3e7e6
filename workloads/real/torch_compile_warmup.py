"""torch_compile_warmup: a torch.compile'd training step; the first steps compile.

A residual MLP (2 blocks of LayerNorm, Linear 4096 -> 4096, GELU; few
blocks keep the compile short) compiled with torch.compile (inductor,
default mode), trained with bf16 autocast and fused AdamW on batch 16384:
~3.3 TFLOP a step (~5-8 ms on an H200), GPU-bound once compiled. The model and data are put on the GPU first, then the first
forward and backward compile (Dynamo + inductor + Triton: seconds to tens
of seconds on a fresh machine, a long host stretch with no GPU work, ending
in module loads of the new Triton kernels). Expected: the compilation shown
as warm-up (JIT), never charged as input_pipeline or host_overhead; the
steady state gpu_busy (inductor's Triton kernels and cuBLAS GEMMs); no
"try torch.compile" (it is compiled), no DataLoader advice.
"""
import common

args = common.parse("torch_compile_warmup", __doc__, steps=30, warmup=3,
                    sizes={"width": (4096, 64), "batch": (16384, 32), "blocks": (2, 2)})

import time  # noqa: E402

import torch  # noqa: E402

import torch_driver as td  # noqa: E402


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = torch.nn.LayerNorm(d)
        self.fc = torch.nn.Linear(d, d)

    def forward(self, x):
        return x + torch.nn.functional.gelu(self.fc(self.norm(x)))


def setup(a, dev):
    model = torch.nn.Sequential(*[Block(a.width) for _ in range(a.blocks)],
                                torch.nn.Linear(a.width, 16)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=dev.type == "cuda")
    x = torch.randn(a.batch, a.width, device=dev)
    y = torch.randint(0, 16, (a.batch,), device=dev)
    return {"m": torch.compile(model), "opt": opt, "x": x, "y": y, "dev": dev, "compile_s": None}


def step(s, i):
    t0 = time.perf_counter() if s["compile_s"] is None else None
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](s["x"]).float(), s["y"]))
    if t0 is not None:
        s["compile_s"] = time.perf_counter() - t0  # the first step: Dynamo + inductor


td.run("torch_compile_warmup", args, setup, step, td.loss_ok,
       extra=lambda s: {"first_step_s": f"{s['compile_s']:.2f}"})
