#!/usr/bin/env python3
"""hostsample-cpu.py: a host-bound pure-Python loop with a deep stack (no
GPU, no torch), to measure record's host sampler on a CPU machine
(bench/host-sampling-cost.sh's CPU mode; docs/host-sampling.md).

Each step calls down --depth Python frames (torch's module stacks are ~100
deep) and does --work small operations at the bottom, so that every
sample of the CPython reader walks --depth frames. Prints the zoo's TIME
lines; --inproc-host VARIANT,... runs the in-process ABBA with record's
host sampler switched (host_switch.py), one INPROC line per variant.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "workloads", "pytorch"))
from abba import abba  # noqa: E402


def leaf(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s


def down(d, n):
    return leaf(n) if d <= 1 else down(d - 1, n) + 1


def distinct_chain(depth, modules=12):
    """a call chain of depth distinct functions (each frame its own code
    object, as a model's stack is) spread over several modules compiled one
    after another with unused helpers between them, so that the code
    objects lie scattered over the heap as a real program's do; returns
    the outermost function, the innermost calls leaf()"""
    ns = [{"leaf": leaf} for _ in range(modules)]
    for m in range(modules):
        src = []
        for k in range(m, depth, modules):
            src.append(f"def unused_{k}(x):\n    return [x] * {k % 7 + 1}\n")
            src.append(f"def chain_{k}(n):\n    return NEXT_{k}(n) + 1\n")
        exec(compile("".join(src), f"hsmod{m}.py", "exec"), ns[m])
    for k in range(depth):
        ns[k % modules][f"NEXT_{k}"] = leaf if k == 0 else ns[(k - 1) % modules][f"chain_{k - 1}"]
    return ns[(depth - 1) % modules][f"chain_{depth - 1}"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--depth", type=int, default=100)
    p.add_argument("--work", type=int, default=200)
    p.add_argument("--distinct", action="store_true",
                   help="each of the --depth frames its own function (default: one "
                        "recursive function)")
    p.add_argument("--inproc-host", metavar="VARIANTS")
    a = p.parse_args()
    sys.setrecursionlimit(max(1000, a.depth * 4))
    state = {"sum": 0}
    top = distinct_chain(a.depth) if a.distinct else None

    def step(s, i):
        s["sum"] += top(a.work) if top else down(a.depth, a.work)

    for i in range(3):
        step(state, i)
    if a.inproc_host:
        from host_switch import run_variants
        run_variants("hostsample_cpu", a.inproc_host, lambda sw, label: abba(
            label, a.reps, a.steps, state, step, sw, lambda: None))
    else:
        for r in range(a.reps):
            t0 = time.perf_counter()
            for i in range(a.steps):
                step(state, i)
            print(f"TIME name=hostsample_cpu loop_s={time.perf_counter() - t0:.6f} "
                  f"steps={a.steps} rep={r}")
    print(f"WORKLOAD name=hostsample_cpu steps={a.steps} sum={state['sum']}", flush=True)


if __name__ == "__main__":
    main()
