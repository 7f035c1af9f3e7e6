"""torch_optim_loop: an optimizer that updates its parameters one by one.

A residual MLP of many small layers (48 blocks of Linear 256x256 + LayerNorm:
~200 parameter tensors of 1-256 KiB) trained with torch.optim.AdamW(
foreach=False): the optimizer's per-parameter Python loop
(`_single_tensor_adamw`) issues ~10 tiny kernels for each tensor, some 2,000
launches a step, more than the forward and backward passes together. This is
what an optimizer does when foreach is off (an old PyTorch, a custom
optimizer written as a loop, foreach=False set for memory, or a parameter
type the foreach path refuses). Expected (issue 36, cause 9 of
docs/causes.md): launch_overhead naming the optimizer's per-parameter loop as
the launches' source and foreach=True / fused=True first. --fixed:
AdamW(fused=True), one multi-tensor kernel per group of tensors.
"""
import common

args = common.parse("torch_optim_loop", __doc__, steps=10, warmup=3,
                    sizes={"blocks": (48, 4), "width": (256, 32), "batch": (64, 8)},
                    flag=("fixed", "AdamW(fused=True)"))

import torch  # noqa: E402

import torch_driver as td  # noqa: E402


class Block(torch.nn.Module):
    def __init__(self, w):
        super().__init__()
        self.norm = torch.nn.LayerNorm(w)
        self.lin = torch.nn.Linear(w, w)

    def forward(self, x):
        return x + torch.nn.functional.gelu(self.lin(self.norm(x)))


def setup(a, dev):
    torch.manual_seed(13)
    model = torch.nn.Sequential(*[Block(a.width) for _ in range(a.blocks)],
                                torch.nn.Linear(a.width, 10)).to(dev)
    if a.fixed and dev.type == "cuda":
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=False)
    g = torch.Generator().manual_seed(5)
    x = torch.randn(a.batch, a.width, generator=g).to(dev)
    y = torch.randint(0, 10, (a.batch,), generator=g).to(dev)
    return {"m": model, "opt": opt, "x": x, "y": y, "dev": dev}


def step(s, i):
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](s["x"]).float(), s["y"]))


td.run("torch_optim_loop", args, setup, step, td.loss_ok,
       extra=lambda s: {"param_tensors": sum(1 for _ in s["m"].parameters())})
