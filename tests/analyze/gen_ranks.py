#!/usr/bin/env python3
"""Writes the torch.profiler traces of a made-up data-parallel job, one
file per rank (OUT/rankR.json), for tests and bench/: each step every rank
runs a gemm (10 ms; the slow rank's --slow-factor times longer) and then an
all-reduce that ends, on every rank, 2 ms after the last rank started it.
So with NCCL (--backend nccl) the fast ranks' all-reduce kernel lasts the
wait plus 2 ms; with gloo the all-reduce is a host range "gloo:all_reduce"
and the GPU idles meanwhile. distributedInfo carries rank and world size.
--same-pid gives every rank pid 4242 and --same-device device 0 (ranks of
several machines);
--kernels K adds K short elementwise kernels per step (bench sizes).
A unit input, not a recording: the real ones come from
workloads/multigpu/run-on-gpu.sh.
"""
import argparse
import json
import os

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--ranks", type=int, default=2)
p.add_argument("--steps", type=int, default=5)
p.add_argument("--slow-rank", type=int, default=1)
p.add_argument("--slow-factor", type=float, default=2.0)
p.add_argument("--backend", choices=["nccl", "gloo"], default="nccl")
p.add_argument("--same-pid", action="store_true")
p.add_argument("--same-device", action="store_true", help="every rank on device 0")
p.add_argument("--kernels", type=int, default=0)
a = p.parse_args()
os.makedirs(a.out, exist_ok=True)
MS = 1000.0  # kineto times are in us
GEMM, XFER, PERIOD = 10 * MS, 2 * MS, 40 * MS
gemm = [GEMM * (a.slow_factor if r == a.slow_rank else 1) for r in range(a.ranks)]
AR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
for r in range(a.ranks):
    pid = 4242 if a.same_pid else 5000 + r
    dev = 0 if a.same_device else r
    corr = 1
    with open(os.path.join(a.out, f"rank{r}.json"), "w") as f:
        f.write(json.dumps({"schemaVersion": 1,
                            "deviceProperties": [{"id": dev, "name": "NVIDIA H200", "numSms": 132,
                                                  "computeMajor": 9, "computeMinor": 0,
                                                  "totalGlobalMem": 150754820096}],
                            "distributedInfo": {"backend": a.backend, "rank": r,
                                                "world_size": a.ranks},
                            "baseTimeNanoseconds": 1733141234000000000})[:-1])
        f.write(', "traceEvents": [\n')
        ev = []

        def emit(e):
            f.write(json.dumps(e) + ",\n")

        def kernel(name, ts, dur):
            global corr
            emit({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid,
                  "tid": pid, "ts": ts - 5, "dur": 4, "args": {"correlation": corr}})
            emit({"ph": "X", "cat": "kernel", "name": name, "pid": dev, "tid": 7, "ts": ts,
                  "dur": dur, "args": {"device": dev, "stream": 7, "correlation": corr,
                                       "grid": [264, 1, 1], "block": [256, 1, 1]}})
            corr += 1

        for s in range(a.steps):
            t0 = 1000 + s * PERIOD
            kernel("gemm_kernel", t0, gemm[r])
            t = t0 + gemm[r]
            for k in range(a.kernels):  # short kernels inside the gemm's shadow? no: after
                kernel("elementwise_kernel", t, 1.0)
                t += 1.0
            start = t
            end = t0 + max(gemm) + a.kernels * 1.0 + XFER
            if a.backend == "nccl":
                kernel(AR, start, end - start)
            else:
                emit({"ph": "X", "cat": "user_annotation", "name": "gloo:all_reduce",
                      "pid": pid, "tid": pid, "ts": start, "dur": end - start, "args": {}})
        f.write(json.dumps({"ph": "i", "cat": "trace_end", "name": "end", "pid": pid,
                            "tid": pid, "ts": 1000 + a.steps * PERIOD, "s": "t"}) + "\n]}\n")
