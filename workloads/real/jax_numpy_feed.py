"""jax_numpy_feed: a jitted JAX step fed from NumPy batches made on the host.

jax_train's MLP and optax step (4 x 2048, batch 4096), but each step's batch
is made the way many JAX scripts make it: NumPy on the CPU (np.random
normal, a float32 4096 x 2048 array, 32 MiB, plus its target through a
NumPy matmul and tanh), handed to the jitted step, which copies it to the
device from pageable memory. Making the batch takes the host tens of ms
against a ~1 ms step, and nothing overlaps it: the GPU waits for the host's
data each step. Expected: the host's data preparation as the primary
(input_pipeline, the GPU waiting on host work between steps), with actions
in JAX terms: make the data on the device (jax.random), or prefetch with
jax.device_put ahead of the step (a background thread, or
flax.jax_utils.prefetch_to_device); never PyTorch's DataLoader, pin_memory,
torch.compile or CUDA-graph advice (no PyTorch is loaded).
"""
import time

import jax_common as jc

args = jc.args_for("jax_numpy_feed", __doc__, steps=30, batch=4096, width=2048)

import numpy as np  # noqa: E402


def main():
    st = jc.setup(args)
    jax = st["jax"]
    rng = np.random.default_rng(0)
    teacher = rng.standard_normal((args.width, args.width), dtype=np.float32) / args.width ** 0.5

    def batch():
        x = rng.standard_normal((args.batch, args.width), dtype=np.float32)
        return x, np.tanh(x @ teacher)

    def one():
        x, y = batch()
        st["p"], st["s"], loss, _ = st["step"](st["p"], st["s"], x, y)
        return loss

    t0 = time.perf_counter()
    first = one()
    jax.block_until_ready(first)
    compile_s = time.perf_counter() - t0
    for _ in range(1, args.warmup):
        one()
    last = None
    with jc.common.Timer(args.prog, lambda: jax.block_until_ready(st["p"])) as t:
        for _ in range(args.steps):
            last = one()
    t.line(args.steps)
    first, last = float(first), float(last)
    if not (last == last and last < first):
        jc.common.fail(args.prog, f"loss did not go down ({first} -> {last})")
    jc.common.result(args.prog, loss=last, weights_abs=jc.params_abs(jax, st["p"]))
    jc.common.workload(args.prog, args.warmup + args.steps, first_call_s=f"{compile_s:.3f}",
                       backend=jax.default_backend())


main()
