"""The model and training step shared by jax_train.py and jax_roundtrip.py.

An MLP (4 layers, GELU, bf16 compute with float32 parameters)
trained with optax.adamw on a regression target; the step is one jitted
function (forward, grad, optimizer update; parameters and optimizer state
donated), the batches are made on the device before the loop. Imports JAX
only (no torch), so the process loads nothing but JAX/XLA.
"""
import os
import time

import common


def args_for(name, doc, steps, batch, width):
    a = common.parse(name, doc, steps=steps, warmup=3, profile=False,
                     sizes={"batch": (batch, 64), "width": (width, 64), "layers": (4, 2)})
    if a.device == "cpu":
        os.environ["JAX_PLATFORMS"] = "cpu"
    return a


def setup(a):
    import jax
    import jax.numpy as jnp
    import optax

    dev = jax.devices()[0]
    if a.device == "cuda" and dev.platform not in ("gpu", "cuda"):
        common.fail(a.prog, f"JAX sees no GPU (first device: {dev})")
    key = jax.random.PRNGKey(0)
    params = []
    for _ in range(a.layers):
        key, k = jax.random.split(key)
        params.append({"w": jax.random.normal(k, (a.width, a.width), jnp.float32) / a.width ** 0.5,
                       "b": jnp.zeros((a.width,), jnp.float32)})
    key, k1, k2 = jax.random.split(key, 3)
    teacher = jax.random.normal(k1, (a.width, a.width), jnp.float32) / a.width ** 0.5
    xs = jax.random.normal(k2, (4, a.batch, a.width), jnp.float32)
    batches = [(xs[i], jnp.tanh(xs[i] @ teacher)) for i in range(4)]
    opt = optax.adamw(1e-3)

    def loss_fn(p, x, y):
        h = x.astype(jnp.bfloat16)
        for j, layer in enumerate(p):
            h = h @ layer["w"].astype(jnp.bfloat16) + layer["b"].astype(jnp.bfloat16)
            if j < len(p) - 1:
                h = jax.nn.gelu(h)
        return jnp.mean((h.astype(jnp.float32) - y) ** 2)

    def train_step(p, s, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        upd, s = opt.update(g, s, p)
        return optax.apply_updates(p, upd), s, loss, optax.global_norm(g)

    return {"jax": jax, "p": params, "s": opt.init(params), "b": batches,
            "step": jax.jit(train_step, donate_argnums=(0, 1))}


def run(a, per_step):
    """warm-up (the first call compiles), then the timed loop; per_step(st,
    i, loss, gnorm) is what the loop does with each step's results"""
    st = setup(a)
    jax = st["jax"]

    def one(i):
        x, y = st["b"][i % len(st["b"])]
        st["p"], st["s"], loss, gn = st["step"](st["p"], st["s"], x, y)
        per_step(st, i, loss, gn)
        return loss

    t0 = time.perf_counter()
    first = one(0)
    jax.block_until_ready(first)
    compile_s = time.perf_counter() - t0
    for i in range(1, a.warmup):
        one(i)
    last = None
    with common.Timer(a.prog, lambda: jax.block_until_ready(st["p"])) as t:
        for i in range(a.warmup, a.warmup + a.steps):
            last = one(i)
    t.line(a.steps)
    first, last = float(first), float(last)
    if not (last == last and last < first):
        common.fail(a.prog, f"loss did not go down ({first} -> {last})")
    common.result(a.prog, loss=last, weights_abs=params_abs(jax, st["p"]))
    common.workload(a.prog, a.warmup + a.steps, first_call_s=f"{compile_s:.3f}",
                    backend=jax.default_backend())


def params_abs(jax, p):
    """the absolute sum of a parameter tree, for the RESULT line"""
    import jax.numpy as jnp
    return float(sum(jnp.sum(jnp.abs(x.astype(jnp.float32))) for x in jax.tree_util.tree_leaves(p)))
