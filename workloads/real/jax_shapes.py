"""jax_shapes: a jitted step that sees a new input shape every call, so XLA
compiles and autotunes it again each time (issue 35, item 1).

The program as a JAX user writes it without thinking of shapes: a batch
whose row count grows by --grow rows each call (a ragged last batch, a
sequence that grows, data of varying size), a `jax.jit` function of two f32
matmuls (rows x --width, --width x --width) with `jax.value_and_grad`, and
plain SGD on the host side of jit. Every call is a new shape: XLA compiles
it and autotunes its fp32 GEMM fusions again, with the redzone checks of its
autotuner (buffers padded with a pattern, memsets on pinned host memory,
checked after each candidate). `XLA_PYTHON_CLIENT_PREALLOCATE=false` (set
here unless set already) makes JAX allocate on demand.

Under gpuscope record this program failed at once (JAX 0.11.2, driver 580,
H100) with CUDA_ERROR_LAUNCH_FAILED from the redzone allocator, untraced it
ran to the end: record must never change a program's result. It prints
`RESULT name=jax_shapes loss0=F lossN=F wsum=F` (the first and last loss and
the sum of the final weights, full precision): workloads/real/same_result.py
compares the lines of a traced and an untraced run (XLA's autotuner may pick
another GEMM algorithm when timings differ, so the values agree to a
relative 1e-4, not bit for bit).

Expected verdict (report v3's `recompilation`): compilation after the first
call takes most of the run; pad or bucket the shapes. Today: warm-up / JIT.
"""
import os
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import common  # noqa: E402

a = common.parse("jax_shapes", __doc__, steps=40, warmup=0, profile=False,
                 sizes={"rows": (512, 32), "width": (2048, 128), "grow": (17, 3)})
if a.device == "cpu":
    os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

dev = jax.devices()[0]
if a.device == "cuda" and dev.platform not in ("gpu", "cuda"):
    common.fail(a.prog, f"JAX sees no GPU (first device: {dev})")

key = jax.random.PRNGKey(0)
k1, k2, key = jax.random.split(key, 3)
w = {"w1": jax.random.normal(k1, (a.width, a.width), jnp.float32) / a.width ** 0.5,
     "w2": jax.random.normal(k2, (a.width, a.width), jnp.float32) / a.width ** 0.5}


def loss_fn(p, x):
    h = jnp.tanh(x @ p["w1"])
    y = h @ p["w2"]
    return jnp.mean((y - x) ** 2)


step = jax.jit(jax.value_and_grad(loss_fn))
losses = []
t0 = time.perf_counter()
for i in range(a.warmup + a.steps):
    key, k = jax.random.split(key)
    x = jax.random.normal(k, (a.rows + a.grow * i, a.width), jnp.float32)
    loss, g = step(w, x)
    w = jax.tree_util.tree_map(lambda p, d: p - 0.05 * d, w, g)
    losses.append(loss)
jax.block_until_ready(w)
loop_s = time.perf_counter() - t0
vals = [float(v) for v in losses]
wsum = float(sum(jnp.sum(p) for p in jax.tree_util.tree_leaves(w)))
print(f"TIME name={a.prog} loop_s={loop_s:.4f} steps={a.steps}", flush=True)
if not all(v == v for v in vals) or wsum != wsum:
    common.fail(a.prog, f"NaN in the results (losses {vals[:3]}..., wsum {wsum})")
common.result(a.prog, loss0=vals[0], lossN=vals[-1], wsum=wsum)
common.workload(a.prog, a.warmup + a.steps, shapes=a.warmup + a.steps,
                backend=jax.default_backend())
