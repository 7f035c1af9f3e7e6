"""Options and output lines shared by every program of workloads/real/.

Imports no framework, so that a JAX or CuPy program loads nothing but its own
library (report must tell the kind of program from what the process loaded).
Every program prints `TIME name=N loop_s=F steps=S` for its timed loop,
`RESULT name=N key=value ...` (what it computed: a loss, a checksum of its
weights or output, for same_result.py) and, last, `WORKLOAD name=N steps=S
[key=value ...]` (S counts warm-up steps too);
a wrong result exits 1. Hugging Face programs never reach the hub: their
models are built from a config with random weights (HF_HUB_OFFLINE=1).
"""
import argparse
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def parse(name, doc, steps, warmup=3, profile=True, sizes=None, flag=None):
    """the options every program takes, parsed; profile=False for programs
    that do not run PyTorch. sizes: {option: (on the GPU, --device cpu)},
    each an int option `--option` whose default depends on the device, so
    the CPU smoke test runs the same code on small shapes. flag: (name,
    help) of the program's one switch (its fixed or broken variant)."""
    p = argparse.ArgumentParser(prog=name, description=(doc or "").strip().splitlines()[0])
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                   help="cpu: a smoke test of the program's code on small sizes")
    p.add_argument("--steps", type=int, default=steps, help="timed steps after warm-up")
    p.add_argument("--warmup", type=int, default=warmup, help="untimed steps first")
    if profile:
        p.add_argument("--profile", metavar="OUT.json.gz",
                       help="run under torch.profiler (schedule: skip the warm-up steps, "
                       "wait 1, warmup 1, active --profile-steps) and export the trace")
        p.add_argument("--profile-steps", type=int, default=3, help="active steps")
        p.add_argument("--profile-stack", action="store_true",
                       help="with_stack=True (Python call sites of every op)")
        p.add_argument("--profile-memory", action="store_true",
                       help="profile_memory=True (an event per allocation and free)")
    sizes = sizes or {}
    for k, (big, small) in sizes.items():
        p.add_argument(f"--{k.replace('_', '-')}", type=int, default=None,
                       help=f"default {big} ({small} with --device cpu)")
    if flag:
        p.add_argument(f"--{flag[0]}", action="store_true", help=flag[1])
    args = p.parse_args()
    for k, (big, small) in sizes.items():
        if getattr(args, k) is None:
            setattr(args, k, small if args.device == "cpu" else big)
    args.prog = name
    return args


class Timer:
    """wall time of the timed loop; sync() must wait for the device first"""

    def __init__(self, name, sync):
        self.name = name
        self.sync = sync

    def __enter__(self):
        self.sync()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            self.sync()
            self.s = time.perf_counter() - self.t0
        return False

    def line(self, steps):
        print(f"TIME name={self.name} loop_s={self.s:.6f} steps={steps}", flush=True)


def workload(name, steps, **extra):
    """the last line of stdout"""
    tail = "".join(f" {k}={v}" for k, v in extra.items())
    print(f"WORKLOAD name={name} steps={steps}{tail}", flush=True)


def result(name, **vals):
    """`RESULT name=N key=value ...`: what the program computed, so that a run
    under a recorder can be compared with one without (same_result.py):
    floats in full precision (repr), integers and strings as they are"""
    tail = "".join(f" {k}={v!r}" if isinstance(v, float) else f" {k}={v}"
                   for k, v in vals.items())
    print(f"RESULT name={name}{tail}", flush=True)


def fail(name, why):
    print(f"{name}: {why}", file=sys.stderr)
    sys.exit(1)
