"""numba_roundtrip: a Numba CUDA kernel called on NumPy arrays every step.

A @numba.cuda.jit SAXPY-like kernel (y = a*x + y, 16M float32 elements,
64 MiB per array) called 40 times with NumPy host arrays, as Numba's
first examples do: for each call Numba copies x and y to the device from
pageable memory, runs the kernel (~0.1 ms), and copies y back,
synchronously. The copies are ~128 MiB each way at pageable speed against a
sub-millisecond kernel. Expected: transfer, pageable and synchronous, with
actions in Numba terms: cuda.to_device once before the loop and device
arrays between calls, copy_to_host only at the end, cuda.pinned_array for
what must move; never PyTorch (DataLoader, pin_memory=True, torch.compile)
or CuPy advice. Numba copies back every host array it was given (x too).
"""
import common

args = common.parse("numba_roundtrip", __doc__, steps=40, warmup=2, profile=False,
                    sizes={"n": (1 << 24, 1 << 12)})
if args.device == "cpu":
    import os
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numpy as np  # noqa: E402

# numba 0.68 (the H200 image) still names numpy.row_stack, which NumPy 2.5
# removed: give it the function it meant before importing it
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba import cuda  # noqa: E402


@cuda.jit
def saxpy(a, x, y):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = a * x[i] + y[i]


def main():
    x = np.ones(args.n, dtype=np.float32)
    y = np.zeros(args.n, dtype=np.float32)
    threads = 256
    blocks = (args.n + threads - 1) // threads
    for _ in range(args.warmup):
        saxpy[blocks, threads](np.float32(0.5), x, y)
    with common.Timer(args.prog, cuda.synchronize if args.device == "cuda" else (lambda: None)) as t:
        for _ in range(args.steps):
            saxpy[blocks, threads](np.float32(0.5), x, y)
    t.line(args.steps)
    calls = args.warmup + args.steps
    if not np.allclose(y[:16], 0.5 * calls):
        common.fail(args.prog, f"y[0] = {y[0]}, expected {0.5 * calls}")
    common.result(args.prog, y_sum=float(y.astype(np.float64).sum()))
    common.workload(args.prog, calls, calls=calls)


main()
