#!/usr/bin/env python3
"""gen-kineto.py - writes a large synthetic kineto (PyTorch profiler) trace.

usage: gen-kineto.py OUT.json [MEGABYTES]   (default 200; OUT.json.gz is gzipped)

The events have kineto's shapes (see tests/fixtures/kineto-synthetic/README):
per step a cpu_op, a cudaLaunchKernel with its ac2g flow, the kernel with
its args, every 8th step a memcpy. Used by bench/bench_import.sh.
"""
import gzip
import sys

KERNEL = ('  {{\n    "ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, '
          'at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, '
          'at::detail::Array<char*, 1>)", "pid": 0, "tid": 7,\n    "ts": {ts}.{tf:03d}, "dur": 2.{df:03d},\n'
          '    "args": {{\n      "External id": {ext},\n      "queued": 0, "device": 0, "context": 1,\n'
          '      "stream": 7, "correlation": {corr},\n      "registers per thread": 24,\n'
          '      "shared memory": 0,\n      "blocks per SM": 0.969697,\n      "warps per SM": 7.757576,\n'
          '      "grid": [{grid}, 1, 1],\n      "block": [128, 1, 1],\n      "est. achieved occupancy %": 6\n'
          '    }}\n  }},\n')
FLOW_F = ('  {{\n    "ph": "f", "id": {corr}, "pid": 0, "tid": 7, "ts": {ts}.{tf:03d},\n'
          '    "cat": "ac2g", "name": "ac2g", "bp": "e"\n  }},\n')
CPU_OP = ('  {{\n    "ph": "X", "cat": "cpu_op", "name": "aten::fill_", "pid": 4242, "tid": 4242,\n'
          '    "ts": {ts}.{tf:03d}, "dur": 9.{df:03d},\n    "args": {{\n      "External id": {ext},'
          '"Record function id": 0, "Concrete Inputs": ["", "0"], "Input type": ["float", "Scalar"], '
          '"Input Strides": [[1], []], "Input Dims": [[1024], []], "Ev Idx": {ext}\n    }}\n  }},\n')
RUNTIME = ('  {{\n    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242,\n'
           '    "ts": {ts}.{tf:03d}, "dur": 4.{df:03d},\n    "args": {{\n      "External id": {ext},\n'
           '      "cbid": 211, "correlation": {corr}\n    }}\n  }},\n')
FLOW_S = ('  {{\n    "ph": "s", "id": {corr}, "pid": 4242, "tid": 4242, "ts": {ts}.{tf:03d},\n'
          '    "cat": "ac2g", "name": "ac2g"\n  }},\n')
MEMCPY = ('  {{\n    "ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, '
          '"tid": 7,\n    "ts": {ts}.{tf:03d}, "dur": 3.000,\n    "args": {{\n      "External id": {ext},\n'
          '      "device": 0, "context": 1,\n      "stream": 7, "correlation": {corr},\n'
          '      "bytes": 65536, "memory bandwidth (GB/s)": 21.8\n    }}\n  }},\n')

HEAD = '''{
  "schemaVersion": 1,
  "deviceProperties": [
    {
      "id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150754820096,
      "computeMajor": 9, "computeMinor": 0,
      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
      "regsPerBlock": 65536, "warpSize": 32,
      "sharedMemPerBlock": 49152, "numSms": 132
    , "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472
    }
  ],
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1733141234000000000,
  "traceEvents": [
'''


def main():
    out = sys.argv[1]
    target = int(float(sys.argv[2]) * 1e6) if len(sys.argv) > 2 else 200_000_000
    f = gzip.open(out, "wt", compresslevel=1) if out.endswith(".gz") else open(out, "w")
    f.write(HEAD)
    written = len(HEAD)
    step = 0
    ts = 1000
    while written < target:
        corr = step * 2 + 1
        ext = step + 1
        parts = [CPU_OP.format(ts=ts, tf=step % 1000, df=step % 997, ext=ext),
                 RUNTIME.format(ts=ts + 2, tf=step % 1000, df=step % 991, ext=ext, corr=corr),
                 FLOW_S.format(ts=ts + 2, tf=step % 1000, corr=corr),
                 KERNEL.format(ts=ts + 10, tf=step % 1000, df=step % 983, ext=ext, corr=corr,
                               grid=1 + step % 4096),
                 FLOW_F.format(ts=ts + 10, tf=step % 1000, corr=corr)]
        if step % 8 == 0:
            parts.append(MEMCPY.format(ts=ts + 14, tf=step % 1000, ext=ext, corr=corr + 1))
        s = "".join(parts)
        f.write(s)
        written += len(s)
        step += 1
        ts += 20
    tail = ('  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n'
            '    "pid": "", "tid": "", "ts": %d.000\n  }\n  ],\n  "traceName": "%s"\n}\n' % (ts, out))
    f.write(tail)
    f.close()
    print(f"{out}: {step} steps, {written + len(tail)} bytes of json", file=sys.stderr)


main()
