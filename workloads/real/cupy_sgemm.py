"""cupy_sgemm: float32 matrix products in CuPy, without TF32.

Each step multiplies two 8192 x 8192 float32 CuPy arrays (cupy.matmul:
cuBLAS SGEMM, ~1.1 TFLOP) and adds a bias, 20 steps, all on the GPU. CuPy
leaves cuBLAS in its default math mode unless CUPY_TF32=1, so the GEMMs run
on the SIMT pipes and the tensor cores idle. Expected (issue 36 item 1):
compute_bound with the first action in CuPy's terms (CUPY_TF32=1, or
float16/bfloat16 arrays) and the card's gain; never torch or JAX advice.
--fixed: the program re-executes itself with CUPY_TF32=1 set (CuPy reads it
at import). The result is checked against a float64 product of a slice.
"""
import os
import sys

import common

args = common.parse("cupy_sgemm", __doc__, steps=20, warmup=3, profile=False,
                    sizes={"n": (8192, 256)}, flag=("fixed", "CUPY_TF32=1"))

if args.fixed and os.environ.get("CUPY_TF32") != "1":
    os.environ["CUPY_TF32"] = "1"
    os.execv(sys.executable, [sys.executable] + sys.argv)

import numpy as np  # noqa: E402

if args.device == "cuda":
    import cupy as xp
else:
    xp = np


def main():
    rng = np.random.default_rng(9)
    a0 = rng.standard_normal((args.n, args.n), dtype=np.float32) / np.float32(args.n ** 0.5)
    b0 = rng.standard_normal((args.n, args.n), dtype=np.float32)
    a, b = xp.asarray(a0), xp.asarray(b0)
    bias = xp.ones(args.n, dtype=xp.float32)
    sync = xp.cuda.Device().synchronize if args.device == "cuda" else (lambda: None)
    c = None
    for _ in range(args.warmup):
        c = xp.matmul(a, b) + bias
    with common.Timer(args.prog, sync) as t:
        for _ in range(args.steps):
            c = xp.matmul(a, b) + bias
    t.line(args.steps)
    got = c[:8].get() if args.device == "cuda" else c[:8]
    ref = a0[:8].astype(np.float64) @ b0.astype(np.float64) + 1.0
    err = float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-30))
    if not err < (1e-2 if args.fixed else 1e-4):
        common.fail(args.prog, f"result differs from numpy: relative error {err:.3g}")
    n = args.warmup + args.steps
    common.result(args.prog, c_abs=float(np.abs(got).astype(np.float64).sum()))
    common.workload(args.prog, n, tf32=int(os.environ.get("CUPY_TF32") == "1"),
                    rel_err=f"{err:.2e}")


main()
