"""small_ops: a loop of tiny elementwise ops on a 1024-element tensor.

Problem: each op is a ~2 us kernel behind ~5-10 us of Python + launch cost.
Expected finding: launch_overhead. 5 kernels per step (mul, add, relu, mul,
add), 4000 steps -> ~20000 kernels.
"""
import torch

import zoo_common as zc

args = zc.parse("small_ops", steps=4000, profile_steps=50)


def setup():
    return {"x": torch.rand(1024, device="cuda") + 0.5}


def step(s, i):
    x = s["x"]
    x = x * 1.0001
    x = x + 0.0001
    x = torch.relu(x)
    x = x * 0.9999
    s["x"] = x + 0.0


def check(s):
    return bool(torch.isfinite(s["x"]).all()) and float(s["x"].min()) > 0


zc.run("small_ops", args, setup, step, check)
