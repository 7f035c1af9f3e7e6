"""cupy_small_ops: a CuPy simulation loop of tiny elementwise ops (launch-bound).

A damped spring-mass system of 8192 particles, integrated with CuPy array
expressions: each step is 15 elementwise kernels on 32 KB arrays (~2-3 us of
GPU work each) behind ~10 us of Python and CuPy dispatch each, so the GPU
idles between launches. No syncs in the loop (one at the end), no copies
but the result. CuPy compiles each new kernel with NVRTC at its first use
(JIT warm-up, a few hundred ms on a fresh machine: not input_pipeline).
Expected: launch_overhead, with CuPy actions: cupy.fuse or an
ElementwiseKernel for the step (one kernel instead of 15), or capturing the
loop in a cupy.cuda.Graph; never torch.compile, torch.cuda.graphs or
DataLoader advice. --fixed: the step as one @cupy.fuse kernel. The result
is checked against numpy on the host.
"""
import common

args = common.parse("cupy_small_ops", __doc__, steps=400, warmup=3, profile=False,
                    sizes={"n": (8192, 1024)},
                    flag=("fixed", "the step fused into one kernel"))

import numpy as np  # noqa: E402

if args.device == "cuda":
    import cupy as xp
else:
    xp = np  # the smoke test runs the same expressions with numpy

DT, K, DAMP, LIM = np.float32(1e-3), np.float32(40.0), np.float32(0.999), np.float32(4.0)
KERNELS_PER_STEP = 15  # one per elementwise operation below


def make_body(m):
    """the step with module m's ufuncs (cupy on the GPU, numpy for the check)"""

    def body(x, v, f):
        a = f - K * x  # 2 kernels
        v = v + DT * a  # 2
        v = v * DAMP  # 1
        x = x + DT * v  # 2
        x = m.minimum(m.maximum(x, -LIM), LIM)  # 2
        f = f * DAMP  # 1
        e = 0.5 * v * v + 0.5 * K * x * x  # 5: per-particle energy
        return x, v, f, e

    return body


def main():
    rng = np.random.default_rng(4)
    x0 = rng.standard_normal(args.n).astype(np.float32)
    v0 = np.zeros(args.n, np.float32)
    f0 = rng.standard_normal(args.n).astype(np.float32)
    step = make_body(xp)
    if args.fixed and args.device == "cuda":
        step = xp.fuse(step)
    x, v, f = (xp.asarray(t) for t in (x0, v0, f0))
    sync = xp.cuda.Device().synchronize if args.device == "cuda" else (lambda: None)
    e = None
    for _ in range(args.warmup):
        x, v, f, e = step(x, v, f)
    with common.Timer(args.prog, sync) as t:
        for _ in range(args.steps):
            x, v, f, e = step(x, v, f)
    t.line(args.steps)
    got = (x.get(), e.get()) if args.device == "cuda" else (x, e)
    ref_step = make_body(np)
    rx, rv, rf, re = x0, v0, f0, None
    for _ in range(args.warmup + args.steps):
        rx, rv, rf, re = ref_step(rx, rv, rf)
    err = max(float(np.linalg.norm(g - r) / max(np.linalg.norm(r), 1e-30))
              for g, r in zip(got, (rx, re)))
    if not err < 1e-4 or got[0].dtype != np.float32:
        common.fail(args.prog, f"result differs from numpy: relative error {err:.3g}, "
                    f"dtype {got[0].dtype}")
    n = args.warmup + args.steps
    common.result(args.prog, x_abs=float(np.abs(got[0]).astype(np.float64).sum()),
                  energy=float(got[1].astype(np.float64).sum()))
    common.workload(args.prog, n, kernels=n * (1 if args.fixed else KERNELS_PER_STEP),
                    memcpy=5, rel_err=f"{err:.2e}")


main()
