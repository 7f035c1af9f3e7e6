"""cupy_setup_small_grid: half a second of NumPy setup, then a kernel launched with 2 blocks.

The program first makes its data on the host (NumPy: 0.5 s of random
numbers and a sort, once, before the loop), copies it to the GPU, then
calls its own RawKernel (a per-element iterated map) 300 times with a grid
of 2 blocks of 256 threads: 2 of the GPU's SMs work, the rest idle. Expected
(issue 36 item 9): small_grid primary (most of the run), host_overhead
beside it as work done once (one long stretch, its own title) and never
"capture the step in a CUDA graph" or DataLoader advice; no torch advice.
--fixed: the same kernel on a full grid (blocks to cover every element).
"""
import common

args = common.parse("cupy_setup_small_grid", __doc__, steps=300, warmup=2, profile=False,
                    sizes={"n": (1 << 20, 1 << 12), "setup_m": (12_000_000, 10_000)},
                    flag=("fixed", "a full grid"))

import numpy as np  # noqa: E402

SRC = r"""
extern "C" __global__ void iterate(float *x, int n, int reps) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float v = x[i];
        for (int r = 0; r < reps; r++)
            v = v * 0.999f + 0.001f * __sinf(v);
        x[i] = v;
    }
}
"""
REPS = 64


def reference(x, steps):
    for _ in range(steps):
        for _ in range(REPS):
            x = x * np.float32(0.999) + np.float32(0.001) * np.sin(x)
    return x


def main():
    rng = np.random.default_rng(1)
    data = np.sort(rng.standard_normal(args.setup_m, dtype=np.float32))  # the setup, once
    x0 = data[:: max(1, len(data) // args.n)][: args.n].copy()
    n = args.warmup + args.steps
    if args.device == "cuda":
        import cupy as cp

        k = cp.RawKernel(SRC, "iterate")
        x = cp.asarray(x0)
        blocks = (args.n + 255) // 256 if args.fixed else 2
        sync = cp.cuda.Device().synchronize
        for _ in range(args.warmup):
            k((blocks,), (256,), (x, np.int32(args.n), np.int32(REPS)))
        with common.Timer(args.prog, sync) as t:
            for _ in range(args.steps):
                k((blocks,), (256,), (x, np.int32(args.n), np.int32(REPS)))
        t.line(args.steps)
        got = x[:256].get()
    else:
        with common.Timer(args.prog, lambda: None) as t:
            got = reference(x0[:256], n)
        t.line(args.steps)
    ref = reference(x0[:256].astype(np.float64), n)
    err = float(np.abs(got - ref).max())
    if not err < 1e-3:
        common.fail(args.prog, f"result differs from numpy: max error {err:.3g}")
    common.result(args.prog, x_abs=float(np.abs(got).astype(np.float64).sum()))
    common.workload(args.prog, n, kernels=n, grid=2 if not args.fixed else (args.n + 255) // 256)


main()
