"""torch_cpu_oversub: a training loop whose launching thread waits for a CPU.

torch_gil_thread's launch-bound MLP step (1024 wide, batch 512, ~60 kernels a
step) beside twice as many CPU-bound threads as the process may use CPUs
(os.sched_getaffinity), each hashing an 8 MiB buffer again and again with
hashlib (which releases the GIL: the threads hold CPUs, not the GIL). The
launching thread is runnable but waits on the run queue between its
launches. Expected (issue 36 item 4): host_contention of kind cpu (the
launching thread's run-queue wait, its process's busy threads against the
CPUs it may use, from record's scheduler statistics) with "fewer threads
than CPUs" advice (torch.set_num_threads / OMP_NUM_THREADS, DataLoader
workers within what is left), not CUDA graphs first. --fixed: half as many
hashing threads as CPUs, one CPU left free for the launching thread.

    gpuscope record -o torch_cpu_oversub.db -- python3 workloads/real/torch_cpu_oversub.py
"""
import common

args = common.parse("torch_cpu_oversub", __doc__, steps=300, warmup=10,
                    sizes={"width": (1024, 64), "batch": (512, 16)},
                    flag=("fixed", "half as many busy threads as CPUs"))

import hashlib  # noqa: E402
import os  # noqa: E402
import threading  # noqa: E402

import torch  # noqa: E402

import torch_driver as td  # noqa: E402


def hash_loop(stop, out, k):
    buf = bytes(8 << 20)
    n = 0
    while not stop.is_set():
        hashlib.sha256(buf).digest()  # > 2 KiB: hashed without the GIL
        n += 1
    out[k] = n


def setup(a, dev):
    layers = []
    for _ in range(6):
        layers += [torch.nn.Linear(a.width, a.width), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(a.width, 10)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=dev.type == "cuda")
    x = torch.randn(a.batch, a.width, device=dev)
    y = torch.randint(0, 10, (a.batch,), device=dev)
    cpus = len(os.sched_getaffinity(0))
    n = max(1, cpus // 2 - 1) if a.fixed else 2 * cpus
    stop, out = threading.Event(), [0] * n
    ths = [threading.Thread(target=hash_loop, args=(stop, out, k), name=f"hash{k}", daemon=True)
           for k in range(n)]
    for th in ths:
        th.start()
    return {"m": model, "opt": opt, "x": x, "y": y, "stop": stop, "ths": ths, "out": out,
            "cpus": cpus, "dev": dev}


def step(s, i):
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](s["x"]).float(), s["y"]))


def done(s):
    s["stop"].set()
    for th in s["ths"]:
        th.join()
    return td.loss_ok(s)


td.run("torch_cpu_oversub", args, setup, step, done,
       extra=lambda s: {"fixed": int(args.fixed), "threads": len(s["ths"]), "cpus": s["cpus"]})
