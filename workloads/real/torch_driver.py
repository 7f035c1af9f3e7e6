"""The loop of every PyTorch program of workloads/real/, in two modes.

A program defines setup(args, dev) -> state and step(state, i), and calls
run(). Without --profile (the `gpuscope record` run): --warmup untimed
steps, then --steps timed steps, one synchronize at the end. With --profile
OUT: the loop as a user writes it under torch.profiler, the profiler around
the whole loop from its first step, schedule(skip_first=--warmup, wait=1,
warmup=1, active=--profile-steps) so that the trace holds ProfilerStep#N
ranges of steady-state steps only, record_shapes on, profile_memory with
--profile-memory, with_stack with --profile-stack; CPU + CUDA activities;
exported as a chrome trace (gzipped when OUT ends in .gz). One synchronize
at the end of the last active step, so its kernels are in the trace.
"""
import torch

import common


def device(args):
    dev = torch.device(args.device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        common.fail(args.prog, "CUDA is not available (--device cpu for a smoke test)")
    return dev


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


def train_step(s, loss_fn):
    """one optimizer step (s["opt"]) on loss_fn() under bf16 autocast on
    s["dev"]; keeps the loss in s["loss"] and the first one in s["first"]"""
    with torch.autocast(s["dev"].type, dtype=torch.bfloat16):
        loss = loss_fn()
    loss.backward()
    s["opt"].step()
    s["opt"].zero_grad(set_to_none=True)
    s["loss"] = loss.detach()
    if s.get("first") is None:
        s["first"] = s["loss"]
    return loss


def loss_ok(s, slack=0.5):
    """the check of a training program: the last loss finite, not above the
    first by more than slack (a few steps of a random model: not diverged)"""
    return bool(torch.isfinite(s["loss"])) and float(s["loss"]) < float(s["first"]) + slack


def _profiled(args, dev, state, step):
    from torch.profiler import ProfilerActivity, profile, schedule

    acts = [ProfilerActivity.CPU]
    if dev.type == "cuda":
        acts.append(ProfilerActivity.CUDA)
    wait, warm = 1, 1
    total = args.warmup + wait + warm + args.profile_steps
    sched = schedule(skip_first=args.warmup, wait=wait, warmup=warm,
                     active=args.profile_steps, repeat=1)
    with profile(activities=acts, schedule=sched, record_shapes=True,
                 profile_memory=args.profile_memory,
                 with_stack=args.profile_stack,
                 on_trace_ready=lambda p: p.export_chrome_trace(args.profile)) as prof:
        for i in range(total):
            step(state, i)
            if i == total - 1:
                sync(dev)
            prof.step()
    return total


def result_of(s):
    """what a program's state computed, for its RESULT line: the absolute sum
    of the model's weights (s["m"]), of its output tensor (s["out"]) and the
    last loss (s["loss"]), in float64, as far as the state has them"""
    vals = {}
    m = s.get("m")
    if isinstance(m, torch.nn.Module):
        vals["weights_abs"] = float(sum(p.detach().double().abs().sum() for p in m.parameters()))
    out = s.get("out")
    if isinstance(out, torch.Tensor):
        vals["out_abs"] = float(out.detach().double().abs().sum())
    loss = s.get("loss")
    if isinstance(loss, torch.Tensor):
        vals["loss"] = float(loss)
    return vals


def run(name, args, setup, step, check=None, extra=None):
    """extra(state) -> dict of key=value pairs for the WORKLOAD line"""
    dev = device(args)
    torch.manual_seed(0)
    state = setup(args, dev)
    if args.profile:
        steps = _profiled(args, dev, state, step)
    else:
        for i in range(args.warmup):
            step(state, i)
        with common.Timer(name, lambda: sync(dev)) as t:
            for i in range(args.warmup, args.warmup + args.steps):
                step(state, i)
        t.line(args.steps)
        steps = args.warmup + args.steps
    sync(dev)
    if check and not check(state):
        common.fail(name, "wrong result")
    common.result(name, **result_of(state))
    common.workload(name, steps, **(extra(state) if extra else {}))
