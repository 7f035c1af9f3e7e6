"""torch_ddp_unused: DistributedDataParallel with find_unused_parameters=True.

One process, one GPU, a process group of one rank (NCCL on the GPU, gloo on
the CPU, rendezvous on 127.0.0.1: nothing leaves the host), so it needs no
launcher: DDP's reducer behaves as on every rank of a real job. The model is
a stack of 64 small residual blocks (Linear, LayerNorm, GELU, a gate), a few
thousand autograd nodes a step on a batch small enough that the host sets
the pace. With find_unused_parameters=True, as many training scripts set it
"to be safe", DDP walks the whole autograd graph from the outputs after
every forward (Reducer.prepare_for_backward, called from DDP's
_post_forward) to mark the parameters the step did not use (docs/causes.md
row 20: 6 reports). Expected: a host-side primary (launch_overhead or
host_overhead) whose host samples show DDP's _post_forward; the finding to
come names find_unused_parameters. --fixed: find_unused_parameters=False
(every parameter is used): the loop faster by the walk's share.
"""
import os

import common

args = common.parse("torch_ddp_unused", __doc__, steps=200, warmup=5,
                    sizes={"width": (256, 32), "blocks": (64, 4), "batch": (64, 4)},
                    flag=("fixed", "find_unused_parameters=False"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import torch_driver as td  # noqa: E402


class Block(torch.nn.Module):
    def __init__(self, w):
        super().__init__()
        self.lin = torch.nn.Linear(w, w)
        self.norm = torch.nn.LayerNorm(w)
        self.gate = torch.nn.Parameter(torch.ones(w))

    def forward(self, x):
        return x + self.gate * torch.nn.functional.gelu(self.norm(self.lin(x)))


def setup(a, dev):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 1000))
    dist.init_process_group("nccl" if dev.type == "cuda" else "gloo", rank=0, world_size=1)
    torch.manual_seed(11)
    net = torch.nn.Sequential(*[Block(a.width) for _ in range(a.blocks)],
                              torch.nn.Linear(a.width, 10)).to(dev)
    model = torch.nn.parallel.DistributedDataParallel(
        net, device_ids=[dev.index or 0] if dev.type == "cuda" else None,
        find_unused_parameters=not a.fixed)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=dev.type == "cuda")
    g = torch.Generator(device=dev).manual_seed(5)
    x = torch.randn(a.batch, a.width, device=dev, generator=g)
    y = torch.randint(0, 10, (a.batch,), device=dev, generator=g)
    return {"m": model, "opt": opt, "x": x, "y": y, "dev": dev}


def step(s, i):
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](s["x"]).float(), s["y"]))


try:
    td.run("torch_ddp_unused", args, setup, step, td.loss_ok,
           extra=lambda s: {"find_unused": int(not args.fixed)})
finally:
    if dist.is_initialized():
        dist.destroy_process_group()
