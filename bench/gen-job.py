#!/usr/bin/env python3
"""Writes one rank's torch.profiler trace of a made-up data-parallel job
(bench/job-256.sh, issue 38 item 4): OUT/rankR.json for each R of --ranks
(or of --only A-B), seeded, so every rank of a 256-rank job can be written,
summarised and deleted in turn.

Each of --steps ProfilerStep#N runs --kernels short kernels (4-12 us
each, seeded jitter per rank and step) and a gemm, then an NCCL
all-reduce (on another stream) that ends on every rank XFER after the
last rank could have started it. Every rank but --exposed-rank runs the
last eighth of its short kernels beside the all-reduce, hiding part of
it; --exposed-rank runs them after the all-reduce, so its communication
is all exposed. --slow-rank's gemm takes --slow-factor times
longer: the others wait for it in every all-reduce. The size of a rank is
about 520 bytes per kernel (--kernels 4000 --steps 30: ~50 MB).
"""
import argparse
import json
import os
import random

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--ranks", type=int, default=256)
p.add_argument("--only", help="A-B: write ranks A..B only")
p.add_argument("--steps", type=int, default=30)
p.add_argument("--kernels", type=int, default=4000, help="short kernels per step")
p.add_argument("--slow-rank", type=int, default=5)
p.add_argument("--slow-factor", type=float, default=3.0)
p.add_argument("--exposed-rank", type=int, default=3)
p.add_argument("--seed", type=int, default=38)
a = p.parse_args()
os.makedirs(a.out, exist_ok=True)
lo, hi = 0, a.ranks - 1
if a.only:
    lo, hi = (int(x) for x in a.only.split("-"))

US = 1.0  # kineto times are in us
GEMM, XFER, GAP = 3000 * US, 3000 * US, 1.0 * US
AR = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
NAMES = ["void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
         "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>",
         "void at::native::elementwise_kernel<128, 2, at::native::AddFunctor<float>>",
         "void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_64x64_32x6_tn_align8>"]


def durations(rank, step):
    """The short kernels' durations of a rank's step (seeded)."""
    rnd = random.Random(a.seed * 1000003 + rank * 1009 + step)
    return [rnd.uniform(4.0, 12.0) for _ in range(a.kernels)]


# every rank starts the all-reduce after its first half of the short kernels
# and the gemm; it ends XFER after the latest start could be (the slow
# rank's, whatever the jitter), the same on every rank
HALF = a.kernels - a.kernels // 8
END = HALF * (12.0 + GAP) + GEMM * max(a.slow_factor, 1) + XFER
period = END + (a.kernels - HALF) * (12.0 + GAP) + 2000 * US
for r in range(lo, hi + 1):
    pid, dev = 7000 + r, r % 8
    path = os.path.join(a.out, f"rank{r}.json")
    with open(path + ".tmp", "w") as f:
        f.write(json.dumps({"schemaVersion": 1,
                            "deviceProperties": [{"id": dev, "name": "NVIDIA H100 80GB HBM3",
                                                  "numSms": 132, "computeMajor": 9,
                                                  "computeMinor": 0,
                                                  "totalGlobalMem": 85031714816}],
                            "distributedInfo": {"backend": "nccl", "rank": r,
                                                "world_size": a.ranks},
                            "baseTimeNanoseconds": 1733141234000000000})[:-1])
        f.write(', "traceEvents": [\n')
        out = []
        corr = 1
        api = ('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d, '
               '"tid": %d, "ts": %.3f, "dur": 2, "args": {"correlation": %d}},\n')
        ker = ('{"ph": "X", "cat": "kernel", "name": "%s", "pid": %d, "tid": %d, "ts": %.3f, '
               '"dur": %.3f, "args": {"device": %d, "stream": %d, "correlation": %d, '
               '"grid": [264, 1, 1], "block": [256, 1, 1]}},\n')
        for s in range(a.steps):
            t0 = 1000 + s * period
            out.append('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", '
                       '"pid": %d, "tid": %d, "ts": %.3f, "dur": %.3f, "args": {}},\n'
                       % (s, pid, pid, t0 - 20, period - 40))
            d = durations(r, s)
            half = HALF
            t = t0
            for i in range(half):
                out.append(api % (pid, pid, t - 5, corr))
                out.append(ker % (NAMES[i % 3], dev, 7, t, d[i], dev, 7, corr))
                corr += 1
                t += d[i] + GAP
            g = GEMM * (a.slow_factor if r == a.slow_rank else 1)
            out.append(api % (pid, pid, t - 5, corr))
            out.append(ker % (NAMES[3], dev, 7, t, g, dev, 7, corr))
            corr += 1
            t += g
            start = t
            end = t0 + END
            out.append(api % (pid, pid, start - 5, corr))
            out.append(ker % (AR, dev, 13, start, end - start, dev, 13, corr))
            corr += 1
            if r == a.exposed_rank:  # the rest of backward only after it: exposed
                t = end + GAP
            for i in range(half, len(d)):  # the rest of backward, beside the all-reduce
                out.append(api % (pid, pid, t - 5, corr))
                out.append(ker % (NAMES[i % 3], dev, 7, t, d[i], dev, 7, corr))
                corr += 1
                t += d[i] + GAP
            if len(out) > 20000:
                f.write("".join(out))
                out = []
        f.write("".join(out))
        f.write(json.dumps({"ph": "i", "cat": "trace_end", "name": "end", "pid": pid,
                            "tid": pid, "ts": 1000 + a.steps * period, "s": "t"}) + "\n]}\n")
    os.replace(path + ".tmp", path)
