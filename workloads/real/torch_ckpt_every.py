"""torch_ckpt_every: a training loop that saves a checkpoint every N steps.

torchvision's resnet18(weights=None) (random weights, no download) trained
with AdamW on a batch made on the GPU once, and every --every steps the
model's and the optimizer's state saved with torch.save to a temporary
directory (~140 MB a save: 11.7M parameters and Adam's two moments), as
training scripts do. The save copies every tensor to the host and writes it
while the GPU waits: a stall every N steps that the steps in between do not
have (docs/causes.md row 37: checkpoint saving, evaluation or logging every
N steps). Expected: host_overhead naming the periodic stalls (their pace,
count and length) with an asynchronous checkpoint first, not CUDA graphs.
--fixed: the state copied to CPU tensors (one short wait) and torch.save run
on a background thread, the loop going on meanwhile.
The directory is removed at the end; nothing outside it is written.
"""
import shutil
import tempfile
import threading

import common

args = common.parse("torch_ckpt_every", __doc__, steps=200, warmup=5,
                    sizes={"batch": (64, 4), "image": (160, 32), "every": (50, 4)},
                    flag=("fixed", "checkpoint on a background thread"))

import torch  # noqa: E402
import torchvision  # noqa: E402

import torch_driver as td  # noqa: E402

DIR = tempfile.mkdtemp(prefix="gpuscope-ckpt-")
saver = []  # the background saves of --fixed


def setup(a, dev):
    torch.manual_seed(17)
    model = torchvision.models.resnet18(weights=None, num_classes=100).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    g = torch.Generator(device=dev).manual_seed(3)
    x = torch.randn(a.batch, 3, a.image, a.image, device=dev, generator=g)
    y = torch.randint(0, 100, (a.batch,), device=dev, generator=g)
    return {"m": model, "opt": opt, "x": x, "y": y, "dev": dev, "a": a}


def to_cpu(obj):
    if isinstance(obj, torch.Tensor):
        return obj.detach().to("cpu")
    if isinstance(obj, dict):
        return {k: to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_cpu(v) for v in obj)
    return obj


def checkpoint(s, i):
    path = f"{DIR}/step{i}.pt"
    state = {"model": s["m"].state_dict(), "opt": s["opt"].state_dict(), "step": i}
    if s["a"].fixed:
        for t in saver:
            t.join()
        saver.clear()
        cpu = to_cpu(state)
        t = threading.Thread(target=torch.save, args=(cpu, path))
        t.start()
        saver.append(t)
    else:
        torch.save(state, path)


def step(s, i):
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](s["x"]).float(), s["y"]))
    if (i + 1) % s["a"].every == 0:
        checkpoint(s, i)


try:
    td.run("torch_ckpt_every", args, setup, step, td.loss_ok,
           extra=lambda s: {"every": s["a"].every})
finally:
    for t in saver:
        t.join()
    shutil.rmtree(DIR, ignore_errors=True)
