"""jax_roundtrip: the same JAX loop with a host round trip every step.

jax_train's jitted step at a smaller size (4 x 2048, batch 2048: ~0.2 TFLOP,
~0.4-0.6 ms a step; 200 steps), but after each step the loop does what
training scripts often do: `float(loss)` and `jax.device_get` of the
gradient norm (each blocks until the step is done and copies to the host), a
NaN check and a running mean in Python, a log line. Asynchronous dispatch
can no longer run ahead: every step the GPU drains, then waits for the host
to read the values, log, and dispatch the next step (~0.1-0.3 ms each time
against a ~0.5 ms step). Expected: sync_stall (a blocking device-to-host
read every step), with actions in JAX terms: keep the metrics on the device
and read them every N steps, or lax.scan / fori_loop over several steps
inside jit; never DataLoader, pin_memory or torch advice. The fixed loop,
for diff: `jax_train.py --batch 2048 --width 2048 --steps 200`.
"""
import io
import math

import jax_common as jc

args = jc.args_for("jax_roundtrip", __doc__, steps=200, batch=2048, width=2048)
log = io.StringIO()
hist = []


def per_step(st, i, loss, gn):
    lv = float(loss)  # blocks: device-to-host copy of the loss
    gv = float(st["jax"].device_get(gn))  # and of the gradient norm
    if not math.isfinite(lv):
        jc.common.fail(args.prog, f"loss is {lv} at step {i}")
    hist.append(lv)
    avg = sum(hist[-50:]) / len(hist[-50:])
    log.write(f"step {i} loss {lv:.5f} avg {avg:.5f} grad_norm {gv:.4f}\n")


jc.run(args, per_step)
