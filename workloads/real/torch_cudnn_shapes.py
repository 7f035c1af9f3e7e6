"""torch_cudnn_shapes: cudnn.benchmark on while the input size keeps changing.

A small conv net (4 conv layers of --width channels, batch --batch) trains
with torch.backends.cudnn.benchmark=True on images whose side changes every
3 steps (a random size from 96 to 223 pixels, as multi-scale training or
unpadded variable-size inputs do): cuDNN autotunes every convolution of
every new shape, forward and backward, running each candidate algorithm's
kernels inside the op (docs/causes.md row 13). Expected: recompilation
naming cuDNN's autotuning (autotune_calls and autotune_late_calls in a
torch.profiler trace: convolution calls launching 10 kernels or more,
into the second half of the run; with host samples, cudnnFind /
get_plans_from_find in the window's second half) with "bucket the sizes"
first (H200, 2026-12-06: recompilation on both sources). --fixed: the same sizes rounded to 4
buckets (96, 128, 160, 192), the fix the advice gives: each is tuned once.
"""
import common

args = common.parse("torch_cudnn_shapes", __doc__, steps=120, warmup=5,
                    sizes={"width": (64, 8), "batch": (32, 2)},
                    flag=("fixed", "round the image size to 4 buckets"))

import random  # noqa: E402

import torch  # noqa: E402

import torch_driver as td  # noqa: E402

BUCKETS = (96, 128, 160, 192)


def side(a, i):
    r = random.Random(i // 3)  # a new size every 3 steps, the same in every run
    s = r.randrange(96, 224)
    if a.fixed:
        s = max(b for b in BUCKETS if b <= s)
    return s if a.device == "cuda" else s // 4


def setup(a, dev):
    torch.backends.cudnn.benchmark = True
    w = a.width
    layers, c = [], 3
    for _ in range(4):
        layers += [torch.nn.Conv2d(c, w, 3, padding=1), torch.nn.BatchNorm2d(w), torch.nn.ReLU()]
        c = w
    model = torch.nn.Sequential(*layers, torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                torch.nn.Linear(w, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    return {"m": model, "opt": opt, "a": a, "sizes": set(), "dev": dev}


def step(s, i):
    n = side(s["a"], i)
    s["sizes"].add(n)
    x = torch.randn(s["a"].batch, 3, n, n, device=s["dev"])
    y = torch.randint(0, 10, (s["a"].batch,), device=s["dev"])
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](x).float(), y))


td.run("torch_cudnn_shapes", args, setup, step, td.loss_ok,
       extra=lambda s: {"fixed": int(args.fixed), "sizes": len(s["sizes"])})
