"""torch_deterministic: a ResNet trained with torch.use_deterministic_algorithms(True).

torchvision's resnet50(weights=None) (random weights, no download), bf16
autocast, SGD with momentum, batch 64 at 224 x 224 of random images on the
GPU (no data loading). Reproducible training as trainers set it up
(ultralytics' init_seeds, Lightning's deterministic=True, Megatron's
--deterministic-mode): torch.use_deterministic_algorithms(True,
warn_only=True), cudnn.benchmark off, CUBLAS_WORKSPACE_CONFIG=:4096:8.
Since PyTorch 2.1 that also turns on
torch.utils.deterministic.fill_uninitialized_memory: every torch.empty,
empty_like and empty_strided the framework calls is filled with NaN (or the
integer's maximum) by a kernel before its first write, which reproducibility
does not need (docs/causes.md row 21; pytorch/pytorch#117081,
Megatron-LM#7093: ~15%, ultralytics#26181: 10,544 fill kernels in 4 steps).
Expected: in a torch.profiler trace, aten::empty* ops that launch fill
kernels (their aten::fill_ children), and the advice to set
fill_uninitialized_memory = False, keeping the deterministic algorithms.
--fixed: that setting, nothing else changed (the same results).
"""
import os

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import common  # noqa: E402

args = common.parse("torch_deterministic", __doc__, steps=10, warmup=3,
                    sizes={"batch": (64, 2), "image": (224, 32)},
                    flag=("fixed", "fill_uninitialized_memory = False, still deterministic"))

import torch  # noqa: E402
import torchvision  # noqa: E402

import torch_driver as td  # noqa: E402

NCLASS = 100


def setup(a, dev):
    torch.backends.cudnn.benchmark = False
    torch.use_deterministic_algorithms(True, warn_only=True)
    if a.fixed:
        torch.utils.deterministic.fill_uninitialized_memory = False
    model = torchvision.models.resnet50(weights=None, num_classes=NCLASS).to(dev)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator(device=dev).manual_seed(5)
    x = torch.randn(a.batch, 3, a.image, a.image, device=dev, generator=g)
    y = torch.randint(0, NCLASS, (a.batch,), device=dev, generator=g)
    return {"m": model, "opt": opt, "x": x, "y": y, "dev": dev}


def step(s, i):
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](s["x"]).float(), s["y"]))


td.run("torch_deterministic", args, setup, step, td.loss_ok,
       extra=lambda s: {"fill_uninitialized_memory":
                        int(torch.utils.deterministic.fill_uninitialized_memory)})
