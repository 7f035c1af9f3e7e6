"""cupy_fft: FFT convolution of an image batch with CuPy (cuFFT), all on the GPU.

Each step blurs 32 complex64 images of 2048 x 2048 by a Gaussian through
the frequency domain: cupy.fft.fft2 (cuFFT), a multiply by the kernel's
transform (one elementwise kernel), cupy.fft.ifft2, the magnitude; 30
steps, no copies and no syncs in the loop. A step moves ~4 GiB through
DRAM in a handful of long kernels, most of the time cuFFT's. Expected:
gpu_busy (or memory_bound), healthy; what is left is cuFFT's (plan reuse,
real-to-complex rfft2 for real images, batching, fewer passes); never
kernel-writing advice (float4, occupancy, launch bounds) for cuFFT's
kernels, never PyTorch advice.
"""
import common

args = common.parse("cupy_fft", __doc__, steps=30, warmup=3, profile=False,
                    sizes={"n": (2048, 64), "batch": (32, 2)})

import numpy as np  # noqa: E402

if args.device == "cuda":
    import cupy as xp
else:
    xp = np


def main():
    rng = xp.random.default_rng(0) if args.device == "cuda" else np.random.default_rng(0)
    imgs = (rng.standard_normal((args.batch, args.n, args.n), dtype=xp.float32)
            .astype(xp.complex64))
    y, x = xp.meshgrid(xp.fft.fftfreq(args.n), xp.fft.fftfreq(args.n), indexing="ij")
    kern = xp.exp(-(x ** 2 + y ** 2) * 200.0).astype(xp.complex64)

    def step(a):
        return xp.abs(xp.fft.ifft2(xp.fft.fft2(a) * kern))

    sync = (lambda: xp.cuda.Device().synchronize()) if args.device == "cuda" else (lambda: None)
    out = None
    for _ in range(args.warmup):
        out = step(imgs)
    with common.Timer(args.prog, sync) as t:
        for _ in range(args.steps):
            out = step(imgs)
    t.line(args.steps)
    # a blur keeps the mean and lowers the spread
    m_in, m_out = float(xp.abs(imgs).std()), float(out.std())
    if not (m_out < m_in):
        common.fail(args.prog, f"blur did not smooth: std {m_in} -> {m_out}")
    common.result(args.prog, out_abs=float(xp.abs(out).astype(xp.float64).sum()))
    common.workload(args.prog, args.warmup + args.steps)


main()
