"""torch_gil_thread: a training loop slowed by another Python thread holding the GIL.

A small MLP (1024 wide, batch 512) trains on device batches: a launch-bound
step of ~60 kernels. Beside it a "metrics" thread runs pure Python
(building and JSON-encoding a dict of 20000 floats, again and again), so
the launching thread waits for the GIL between its launches. Expected
(issue 36 item 4): host_contention naming the other thread and its function
(json.dumps / the program's metrics loop), with advice to move that work
to a process or make it cheaper; today it reads as launch_overhead or
host_overhead. --fixed: the metrics thread sleeps instead (no GIL
contention): the same launches, the loop faster.
"""
import common

args = common.parse("torch_gil_thread", __doc__, steps=300, warmup=10,
                    sizes={"width": (1024, 64), "batch": (512, 16)},
                    flag=("fixed", "the metrics thread idles instead of running Python"))

import json  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402

import torch_driver as td  # noqa: E402


def metrics_loop(stop, fixed, out):
    vals = [float(k) * 0.5 for k in range(20000)]
    n = 0
    while not stop.is_set():
        if fixed:
            time.sleep(0.01)
            continue
        out[0] = len(json.dumps({str(k): v for k, v in enumerate(vals)}))  # holds the GIL
        n += 1
    out[1] = n


def setup(a, dev):
    layers = []
    for _ in range(6):
        layers += [torch.nn.Linear(a.width, a.width), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(a.width, 10)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=dev.type == "cuda")
    x = torch.randn(a.batch, a.width, device=dev)
    y = torch.randint(0, 10, (a.batch,), device=dev)
    stop, out = threading.Event(), [0, 0]
    th = threading.Thread(target=metrics_loop, args=(stop, a.fixed, out), name="metrics",
                          daemon=True)
    th.start()
    return {"m": model, "opt": opt, "x": x, "y": y, "stop": stop, "th": th, "out": out, "dev": dev}


def step(s, i):
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](s["x"]).float(), s["y"]))


def done(s):
    s["stop"].set()
    s["th"].join()
    return td.loss_ok(s)


td.run("torch_gil_thread", args, setup, step, done,
       extra=lambda s: {"fixed": int(args.fixed)})
