"""Shared driver for the PyTorch workloads of the zoo.

Every workload defines setup() -> state and step(state, i), and calls run().
Modes (all print `TIME name=N loop_s=F steps=S` per timed repetition and, as
the last stdout line, `WORKLOAD name=N steps=S`):
  default            warm up, then time --reps repetitions of --steps steps
  --profile OUT.json run a few steps (--profile-steps) under torch.profiler
                     (CPU+CUDA) and export a small chrome (kineto) trace
  --torch-profiler   time the same loop with torch.profiler active around
                     each repetition (for bench/record-overhead.sh); no export
  --inproc           under `gpuscope record` only: the repetitions alternate
                     recording off and on (gpuscope_capture of the injected
                     library) in ABBA order, so that traced and untraced
                     repetitions share one process; prints `capture=on|off` on
                     each TIME line and, last, `INPROC name=N ratio=F ...`
                     (median over ABBA quads of on-time / off-time)
  --inproc-torch     the same with torch.profiler (CPU+CUDA) as the tracer,
                     entered for each "on" repetition (not under record)
  --inproc-host V,.. the same with record's host sampler as what is switched
                     (host_switch.py; record with GPUSCOPE_HOST_SWITCH=FILE):
                     CUPTI records throughout; one ABBA block per variant
                     (all, sampler, perf, pyread, tramp), each with its own
                     INPROC line, name=NAME:VARIANT
Only torch and numpy; no downloads.
"""
import argparse
import statistics
import sys
import time

import torch


def parse(name, steps, profile_steps=5, extra=None):
    p = argparse.ArgumentParser(description=name)
    p.add_argument("--steps", type=int, default=steps)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--reps", type=int, default=1,
                   help="timed repetitions of --steps steps (median printed)")
    p.add_argument("--profile", metavar="OUT.json")
    p.add_argument("--profile-steps", type=int, default=profile_steps)
    p.add_argument("--torch-profiler", action="store_true")
    p.add_argument("--inproc", action="store_true")
    p.add_argument("--inproc-torch", action="store_true")
    p.add_argument("--inproc-host", metavar="VARIANTS")
    if extra:
        extra(p)
    return p.parse_args()


def _sync():
    torch.cuda.synchronize()


def _profiler():
    from torch.profiler import ProfilerActivity, profile
    return profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])


class _TorchSwitch:
    """torch.profiler (CPU+CUDA) on in the B repetitions of --inproc-torch"""
    def __init__(self):
        self.prof = None

    def __call__(self, on):
        if on and self.prof is None:
            self.prof = _profiler()
            self.prof.__enter__()
        elif not on and self.prof is not None:
            self.prof.__exit__(None, None, None)  # its processing: untimed
            self.prof = None
        return 0


def _inproc(name, args, state, step, switch):
    """ABBA repetitions, tracing off (A) and on (B) by switch(on) (0: done);
    returns the number of repetitions"""
    from abba import abba
    return abba(name, args.reps, args.steps, state, step, switch, _sync,
                final=0 if args.inproc_torch else 1)


def run(name, args, setup, step, check=None):
    if not torch.cuda.is_available():
        print(f"{name}: CUDA is not available", file=sys.stderr)
        sys.exit(1)
    state = setup()
    for i in range(args.warmup):
        step(state, i)
    _sync()
    if args.profile:
        with _profiler() as prof:
            for i in range(args.profile_steps):
                step(state, i)
            _sync()
        prof.export_chrome_trace(args.profile)
        steps = args.warmup + args.profile_steps
    elif args.inproc_host:
        from abba import abba
        from host_switch import run_variants
        reps = []
        run_variants(name, args.inproc_host, lambda sw, label: reps.append(
            abba(label, args.reps, args.steps, state, step, sw, _sync)))
        steps = args.warmup + (args.steps + 1) * sum(reps)
    elif args.inproc or args.inproc_torch:
        from abba import capture_fn
        switch = _TorchSwitch() if args.inproc_torch else capture_fn()
        reps = _inproc(name, args, state, step, switch)
        steps = args.warmup + (args.steps + 1) * reps
    else:
        times = []
        for r in range(args.reps):
            prof = _profiler() if args.torch_profiler else None
            if prof:
                prof.__enter__()
            t0 = time.perf_counter()
            for i in range(args.steps):
                step(state, i)
            _sync()
            dt = time.perf_counter() - t0
            if prof:
                prof.__exit__(None, None, None)
            times.append(dt)
            print(f"TIME name={name} loop_s={dt:.6f} steps={args.steps} rep={r}")
        if len(times) > 1:
            print(f"TIME name={name} median_loop_s={statistics.median(times):.6f}")
        steps = args.warmup + args.steps * args.reps
    if check and not check(state):
        print(f"{name}: wrong result", file=sys.stderr)
        sys.exit(1)
    _result(name, state)
    print(f"WORKLOAD name={name} steps={steps}", flush=True)


def _result(name, state):
    """`RESULT name=N KEY_abs=F ...`: the absolute sums (float64) of the
    state's modules' weights and of its floating-point tensors, so that a
    recorded run can be compared with an untraced one
    (workloads/real/same_result.py)"""
    items = state.items() if isinstance(state, dict) else getattr(state, "__dict__", {}).items()
    vals = []
    for k, v in sorted(items, key=lambda kv: str(kv[0])):
        if isinstance(v, torch.nn.Module):
            x = sum(p.detach().double().abs().sum() for p in v.parameters())
        elif isinstance(v, torch.Tensor) and v.is_floating_point() and v.numel() <= 1 << 27:
            x = v.detach().double().abs().sum()
        else:
            continue
        vals.append(f" {k}_abs={float(x)!r}")
    print(f"RESULT name={name}{''.join(vals)}", flush=True)
