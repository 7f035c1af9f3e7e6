"""flax_small: a Flax/optax training loop of small steps (host-bound), the
JAX row of record's overhead bench (issue 35, item 4).

A Flax `nn.Module` MLP (3 x Dense --width, GELU), optax.adam, batch --batch,
the whole step (forward, grad, update) one `jax.jit` function with donated
parameters and optimizer state: on an H200 a step is a few microseconds of
GPU work behind tens of microseconds of dispatch, so anything record adds
per launch shows. The batches are made on the device before the loop.

Modes, as the PyTorch zoo's (workloads/pytorch/zoo_common.py):
  default     warm up, then --reps repetitions of --steps steps, each printed
              `TIME name=flax_small loop_s=F steps=S`
  --inproc    under `gpuscope record` only: repetitions alternate recording
              off and on (gpuscope_capture) in ABBA order (workloads/pytorch/
              abba.py); prints the `INPROC ... ratio=` line
  --inproc-host V,..  the same with record's host sampler as what is switched
              (GPUSCOPE_HOST_SWITCH, workloads/pytorch/host_switch.py), one
              ABBA block per variant (bench/host-sampling-cost.sh)
  --capture-after-warmup  under `GPUSCOPE_CAPTURE=off gpuscope record`: the
              warm-up (XLA's compilation, autotuning, CUDA graph instantiation)
              runs unrecorded, recording resumes before the timed loop
After each TIME line, `CTX name=flax_small vcsw=V ivcsw=I threads=T`: the
process's voluntary and involuntary context switches in that repetition
(all threads, getrusage) and its thread count: what a per-thread cost of a
recorder (perf's inherited events are switched with each thread) scales with.
Last line: `WORKLOAD name=flax_small steps=S`.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))

import common  # noqa: E402

import argparse  # noqa: E402

# the in-process bench's options, taken off before common.parse reads the rest
p = argparse.ArgumentParser(add_help=False)
p.add_argument("--reps", type=int, default=1)
p.add_argument("--inproc", action="store_true")
p.add_argument("--inproc-host", metavar="VARIANTS")
p.add_argument("--capture-after-warmup", action="store_true")
extra, sys.argv[1:] = p.parse_known_args()
a = common.parse("flax_small", __doc__, steps=200, warmup=20, profile=False,
                 sizes={"batch": (64, 16), "width": (256, 64)})
if a.device == "cpu":
    os.environ["JAX_PLATFORMS"] = "cpu"

import resource  # noqa: E402
import time  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402
from flax import linen as nn  # noqa: E402


class MLP(nn.Module):
    width: int

    @nn.compact
    def __call__(self, x):
        for _ in range(2):
            x = nn.gelu(nn.Dense(self.width)(x))
        return nn.Dense(self.width)(x)


dev = jax.devices()[0]
if a.device == "cuda" and dev.platform not in ("gpu", "cuda"):
    common.fail(a.prog, f"JAX sees no GPU (first device: {dev})")
model = MLP(a.width)
key = jax.random.PRNGKey(0)
kx, kp = jax.random.split(key)
xs = jax.random.normal(kx, (8, a.batch, a.width), jnp.float32)
ys = jnp.tanh(xs)
params = model.init(kp, xs[0])
opt = optax.adam(1e-3)
state = {"p": params, "s": opt.init(params), "loss": None}


def loss_fn(p, x, y):
    return jnp.mean((model.apply(p, x) - y) ** 2)


@jax.jit
def train_step(p, s, x, y):
    loss, g = jax.value_and_grad(loss_fn)(p, x, y)
    upd, s = opt.update(g, s, p)
    return optax.apply_updates(p, upd), s, loss


train_step = jax.jit(train_step.__wrapped__, donate_argnums=(0, 1))


def step(st, i):
    st["p"], st["s"], st["loss"] = train_step(st["p"], st["s"], xs[i % 8], ys[i % 8])


def sync():
    jax.block_until_ready(state["p"])


first = None
for i in range(a.warmup):
    step(state, i)
    if first is None:
        first = state["loss"]
sync()
if extra.capture_after_warmup:
    # under GPUSCOPE_CAPTURE=off: compilation, autotuning and the CUDA graphs'
    # instantiation ran untraced; the timed loop is recorded
    from abba import capture_fn
    if capture_fn()(1) != 0:
        common.fail(a.prog, "gpuscope_capture(1) failed")
if extra.inproc_host:
    from abba import abba
    from host_switch import run_variants
    blocks = []
    run_variants(a.prog, extra.inproc_host, lambda sw, label: blocks.append(
        abba(label, extra.reps, a.steps, state, step, sw, sync)))
    total = a.warmup + (a.steps + 1) * sum(blocks)
elif extra.inproc:
    from abba import abba, capture_fn
    reps = abba(a.prog, extra.reps, a.steps, state, step, capture_fn(), sync)
    total = a.warmup + (a.steps + 1) * reps
else:
    for r in range(extra.reps):
        sync()
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        for i in range(a.steps):
            step(state, i)
        sync()
        dt = time.perf_counter() - t0
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
        print(f"TIME name={a.prog} loop_s={dt:.6f} steps={a.steps}", flush=True)
        print(f"CTX name={a.prog} vcsw={ru1.ru_nvcsw - ru0.ru_nvcsw} "
              f"ivcsw={ru1.ru_nivcsw - ru0.ru_nivcsw} threads={len(os.listdir('/proc/self/task'))}",
              flush=True)
    total = a.warmup + a.steps * extra.reps
last = float(state["loss"])
if not (last == last and last < float(first)):
    common.fail(a.prog, f"loss did not go down ({float(first)} -> {last})")
common.result(a.prog, loss=last)
common.workload(a.prog, total, backend=jax.default_backend())
