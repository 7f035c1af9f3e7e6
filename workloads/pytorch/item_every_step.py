"""item_every_step: a small MLP training loop that calls loss.item() each step.

Problem: .item() is a blocking device-to-host copy + sync every step; the GPU
queue drains and the host waits. Expected finding: sync_stall. 600 steps.
"""
import math

import torch

import zoo_common as zc

args = zc.parse("item_every_step", steps=600, profile_steps=10)


def setup():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 10)).cuda()
    x = torch.randn(256, 256, device="cuda")
    y = torch.randint(0, 10, (256,), device="cuda")
    return {"m": model, "opt": torch.optim.SGD(model.parameters(), lr=0.01),
            "x": x, "y": y, "losses": []}


def step(s, i):
    s["opt"].zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(s["m"](s["x"]), s["y"])
    loss.backward()
    s["opt"].step()
    s["losses"].append(loss.item())  # the problem: a sync every step


def check(s):
    l = s["losses"]
    return all(math.isfinite(v) for v in l) and l[-1] < l[0]


zc.run("item_every_step", args, setup, step, check)
