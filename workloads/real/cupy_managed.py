"""cupy_managed: CuPy on managed (unified) memory that the host touches every step.

The input (256 MiB of float32) lives in managed memory
(cupy.cuda.malloc_managed: cudaMallocManaged); each step the host writes
it through a NumPy view of the managed buffer (the
pages migrate to the CPU), then two CuPy kernels read it (GPU page faults
migrate them back, a few microseconds per 64 KiB) and reduce it. Expected
(issue 36 item 3): unified_memory naming the kernels stalled by faults,
the bytes migrated each way, advice cupy.cuda.runtime.memPrefetchAsync
before the kernels / cudaMemAdvise, or plain device arrays. --fixed: the
program prefetches the buffer to the GPU (memPrefetchAsync) before the
kernels: they stop faulting; the host's writes still pull the pages back.
Record: gpuscope record -o cm.db -- python3 cupy_managed.py (needs the
unified-memory counters: meta uvm_counters "recorded").
"""
import common

args = common.parse("cupy_managed", __doc__, steps=20, warmup=2, profile=False,
                    sizes={"n": (1 << 26, 1 << 12)}, flag=("fixed", "prefetch to the GPU"))

import ctypes  # noqa: E402

import numpy as np  # noqa: E402


def main():
    n = args.warmup + args.steps
    if args.device != "cuda":
        host = np.zeros(args.n, np.float32)
        total = 0.0
        with common.Timer(args.prog, lambda: None) as t:
            for i in range(n):
                host[:] = np.float32(i)
                total = float((host * 2.0 + 1.0).sum())
        t.line(args.steps)
    else:
        import cupy as cp

        mem = cp.cuda.malloc_managed(args.n * 4)  # a MemoryPointer
        buf = cp.ndarray((args.n,), cp.float32, mem)
        host = np.ctypeslib.as_array(ctypes.cast(mem.ptr, ctypes.POINTER(ctypes.c_float)),
                                     shape=(args.n,))
        dev = cp.cuda.Device().id
        stream = cp.cuda.get_current_stream()
        total = 0.0
        for i in range(n):
            if i == args.warmup:
                t = common.Timer(args.prog, cp.cuda.Device().synchronize).__enter__()
            cp.cuda.Device().synchronize()
            host[:] = np.float32(i)  # the host writes: the pages move to the CPU
            if args.fixed:
                cp.cuda.runtime.memPrefetchAsync(mem.ptr, args.n * 4, dev, stream.ptr)
            total = float((buf * 2.0 + 1.0).sum())  # GPU faults the pages back
        t.__exit__(None, None, None)
        t.line(args.steps)
    want = float(args.n) * ((n - 1) * 2.0 + 1.0)
    if abs(total - want) > 1e-3 * want:
        common.fail(args.prog, f"sum {total} != {want}")
    common.result(args.prog, total=total)
    common.workload(args.prog, n, mib=args.n * 4 >> 20, prefetch=int(args.fixed))


main()
