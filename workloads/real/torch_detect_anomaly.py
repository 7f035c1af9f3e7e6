"""torch_detect_anomaly: a training loop with autograd's anomaly detection left on.

A small CNN (3 conv layers of --width channels on 32x32 images, batch
--batch, then a linear head) trains under
torch.autograd.set_detect_anomaly(True), the debugging switch users leave
on after chasing a NaN (docs/causes.md row 18): every op of the forward
stores a Python traceback (torch.fx.traceback.format_stack), and the
backward checks each node's outputs for NaN with a host sync
(isnan(...)._is_any_true().item()). Expected: the host-side finding that
fires (sync_stall on the backward's syncs, host_overhead or
launch_overhead on the tracebacks) names anomaly detection first
(anomaly_checked_nodes in a torch.profiler trace, anomaly_host_pct with
host samples) and says to turn it off (H200, 2026-12-06: launch_overhead
with anomaly detection its first action, on both sources). --fixed: anomaly detection off, the same step.
"""
import common

args = common.parse("torch_detect_anomaly", __doc__, steps=200, warmup=10,
                    sizes={"width": (64, 8), "batch": (64, 4)},
                    flag=("fixed", "anomaly detection off (the switch a user forgot)"))

import torch  # noqa: E402

import torch_driver as td  # noqa: E402


def setup(a, dev):
    torch.autograd.set_detect_anomaly(not a.fixed)
    w = a.width
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, w, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(w, w, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(w, w, 3, padding=1), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(w, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    x = torch.randn(a.batch, 3, 32, 32, device=dev)
    y = torch.randint(0, 10, (a.batch,), device=dev)
    return {"m": model, "opt": opt, "x": x, "y": y, "dev": dev}


def step(s, i):
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](s["x"]).float(), s["y"]))


td.run("torch_detect_anomaly", args, setup, step, td.loss_ok,
       extra=lambda s: {"fixed": int(args.fixed),
                        "anomaly": int(torch.is_anomaly_enabled())})
