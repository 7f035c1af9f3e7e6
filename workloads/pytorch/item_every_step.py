"""item_every_step: an MLP training loop that calls loss.item() every step.

Each step runs ~1-2 ms of GPU work (4 x Linear(2048, 2048), batch 1024,
fp32) and ~0.8 ms of host bookkeeping (time.sleep, standing in for logging,
metric aggregation or fetching the next batch). Without the .item() the host
runs ahead and its bookkeeping overlaps the GPU's work; with it every step
serializes: the host waits for the GPU to drain, then the GPU idles while
the host does its bookkeeping. Expected finding: sync_stall. 300 steps.
"""
import math
import time

import torch

import zoo_common as zc

args = zc.parse("item_every_step", steps=300, profile_steps=20)

HOST_WORK_S = 0.0008


def setup():
    torch.manual_seed(0)
    layers = []
    for _ in range(4):
        layers += [torch.nn.Linear(2048, 2048), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(2048, 10)).cuda()
    x = torch.randn(1024, 2048, device="cuda")
    y = torch.randint(0, 10, (1024,), device="cuda")
    return {"m": model, "opt": torch.optim.SGD(model.parameters(), lr=0.01),
            "x": x, "y": y, "losses": []}


def step(s, i):
    s["opt"].zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(s["m"](s["x"]), s["y"])
    loss.backward()
    s["opt"].step()
    s["losses"].append(loss.item())  # the problem: a sync every step
    time.sleep(HOST_WORK_S)  # host bookkeeping that could have overlapped


def check(s):
    l = s["losses"]
    return all(math.isfinite(v) for v in l) and l[-1] < l[0]


zc.run("item_every_step", args, setup, step, check)
