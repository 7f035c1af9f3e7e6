#!/usr/bin/env python3
"""hostile.py - the input families of the reliability probe (issue 35 item 3,
../shared/probe/reliability-2026-12-05.md) as generators: CI runs them at a
small size (tests/probe/*.sh), bench/probe-scaling.sh at large ones.

usage: hostile.py FAMILY OUT [N]
  streams OUT N     N kernels, each on its own stream (C1 at N > 65536)
  devices OUT N     N kernels, each on its own device (H5)
  pids OUT N        N API calls, each from its own pid, and one kernel (H1)
  kernels OUT N     N kernels with launches on 4 streams (a big, ordinary trace)
  hugespan OUT      two launches 9.2e9 s apart (C2)
  wrongtypes DIR    kineto traces with one wrong-typed or out-of-range field each (W9)
  esclog OUT        a monitor log whose GPU name and process name hold escape sequences (W2)
  esckineto OUT     a kineto trace whose kernel and range names hold escape sequences (W2)
  bigmetrics OUT N  a monitor log of N MIG GPUs with 64 processes each (H6; N=64: 7 MB /metrics)
  gzbomb OUT N      a .json.gz of N*8000 kernels that inflates ~600x (H7)
  ranks DIR N       N rank files of the small synthetic trace, the last rank twice (W13)
Sizes are counts, so a scaling check can double them.
"""
import copy
import gzip
import json
import os
import sys
import zlib

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
SMALL = os.path.join(SRC, "tests/fixtures/kineto-synthetic/small.json")
ZOO = os.path.join(SRC, "tests/fixtures/monitor/h200-zoo.jsonl")
MIG = os.path.join(SRC, "tests/fixtures/monitor/synthetic-mig.jsonl")


def dump(obj, out):
    with open(out, "w") as f:
        json.dump(obj, f, separators=(",", ":"))


def kev(name, ts, dur, dev, stream, corr=None, pid=0):
    a = {"device": dev, "stream": stream}
    if corr is not None:
        a["correlation"] = corr
    return {"ph": "X", "cat": "kernel", "name": name, "pid": pid, "tid": stream, "ts": ts,
            "dur": dur, "args": a}


def api(ts, corr, pid, tid, name="cudaLaunchKernel"):
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": pid, "tid": tid, "ts": ts,
            "dur": 5, "args": {"correlation": corr}}


def trace(events):
    return {"schemaVersion": 1, "traceEvents": events}


def streams(out, n):
    dump(trace([kev("k", 100 + i, 1, 0, i) for i in range(n)]), out)


def devices(out, n):
    dump(trace([kev("k", 100 + i * 30, 20, i, 7) for i in range(n)]), out)


def pids(out, n):
    ev = [api(100 + i, i, i + 1, i + 1) for i in range(n)]
    ev.append(kev("k", 110, 20, 0, 7, corr=1))
    dump(trace(ev), out)


def kernels(out, n):
    ev = []
    for i in range(n):
        ev.append(api(100 + i * 10, i, 1, 1))
        ev.append(kev("gemm_%d" % (i % 50), 103 + i * 10, 6, 0, 7 + i % 4, corr=i))
    dump(trace(ev), out)


def hugespan(out):
    ev = []
    for i, ts in enumerate((-4.6e15, 4.6e15)):
        ev.append(api(ts, i, 1, 1))
        ev.append(kev("k", ts, 20, 0, 7, corr=i))
    dump(trace(ev), out)


# one field of one kernel in the small trace, and its hostile value
WRONG = {
    "regs_neg": ("registers per thread", -5),
    "regs_str": ("registers per thread", "x"),
    "dur_str": ("dur", "x"),
    "dur_neg": ("dur", -3),
    "grid_5": ("grid", [1, 2, 3, 4, 5]),
    "grid_frac": ("grid", [1.5, 2.5, 0.1]),
    "block_neg": ("block", [-1, 1, 1]),
    "stream_str": ("stream", "s"),
    "device_float": ("device", 0.5),
    "smem_neg": ("shared memory", -1),
}


def wrongtypes(out):
    os.makedirs(out, exist_ok=True)
    base = json.load(open(SMALL))
    kidx = next(i for i, e in enumerate(base["traceEvents"]) if e.get("cat") == "kernel")
    for name, (field, value) in WRONG.items():
        t = copy.deepcopy(base)
        e = t["traceEvents"][kidx]
        if field in ("dur", "ts"):
            e[field] = value
        else:
            e["args"][field] = value
        dump(t, os.path.join(out, "wt_%s.json" % name))
    t = copy.deepcopy(base)
    t["baseTimeNanoseconds"] = "1733000000000000000"
    dump(t, os.path.join(out, "base_str.json"))
    # a second traceEvents array (the first would be silently dropped)
    txt = json.dumps(base)
    with open(os.path.join(out, "two_traceevents.json"), "w") as f:
        f.write(txt[:-1] + ',"traceEvents":[]}')


ESC = "\u001b[2J\u001b]0;owned\u0007"


def esclog(out):
    lines = []
    for l in open(ZOO).read().splitlines():
        d = json.loads(l)
        if d.get("t") == "gpu":
            d["name"] = ESC + "H200"
        if d.get("t") == "s":
            d["procs"] = [{"pid": 1, "mem": 1, "comm": "\u001b[31mRED\u001b[0m\r"}]
            d["procs_total"] = 1
        lines.append(json.dumps(d))
    open(out, "w").write("\n".join(lines) + "\n")


def esckineto(out):
    t = json.load(open(SMALL))
    for e in t["traceEvents"]:
        if e.get("cat") == "kernel":
            e["name"] = "gemm" + ESC + "\u001b[31mRED\u001b[0m\r"
        if e.get("cat") == "user_annotation":
            e["name"] = "step" + ESC
    dump(t, out)


def bigmetrics(out, n):
    src = open(MIG).read().splitlines()
    hdr = json.loads(src[0])
    gpu = json.loads(src[1])
    s = [json.loads(l) for l in src if '"t":"s"' in l and '"mig"' in l][0]
    hdr["gpus"] = n
    lines = [json.dumps(hdr)]
    for g in range(n):
        gg = dict(gpu)
        gg["gpu"] = g
        gg["uuid"] = "GPU-%036d" % g
        gg["name"] = "NVIDIA H200 " + "N" * 200
        lines.append(json.dumps(gg))
    m0 = s["mig"][0]
    for r in range(3):
        for g in range(n):
            ss = dict(s)
            ss["gpu"] = g
            ss["ts"] = s["ts"] + r * 10**9
            ss["procs"] = [{"pid": 1000 + i, "mem": 1 << 30, "sm": 50, "memu": 10,
                            "comm": "python3-" + "c" * 20, "container_id": "a" * 64,
                            "pod_uid": "12345678-1234-1234-1234-123456789012", "gi": 1,
                            "ci": 0} for i in range(64)]
            ss["procs_total"] = 64
            ms = []
            for k in range(8):
                mm = copy.deepcopy(m0)
                mm["gi"] = k + 1
                mm["mig_uuid"] = "MIG-%036d-%d" % (g, k)
                ms.append(mm)
            ss["mig"] = ms
            lines.append(json.dumps(ss))
    open(out, "w").write("\n".join(lines) + "\n")


def gzbomb(out, n):
    co = zlib.compressobj(9, zlib.DEFLATED, 31)
    ev = (b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":100.000,"dur":1.000,'
          b'"args":{"device":0,"stream":7,"correlation":1}},')
    parts = [co.compress(b'{"schemaVersion":1,"traceEvents":[')]
    for _ in range(n):
        parts.append(co.compress(ev * 8000))
    parts += [co.compress(ev[:-1] + b"]}"), co.flush()]
    open(out, "wb").write(b"".join(parts))


def ranks(out, n):
    os.makedirs(out, exist_ok=True)
    b = json.load(open(SMALL))
    names = [(r, "rank%d" % r) for r in range(n)] + [(n - 1, "rank%d_dup" % (n - 1))]
    for r, name in names:
        o = copy.deepcopy(b)
        o.setdefault("distributedInfo", {}).update(rank=r, world_size=n)
        dump(o, os.path.join(out, name + ".json"))


def main():
    fam, out = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else None
    fn = globals()[fam]
    fn(out, n) if n is not None else fn(out)


if __name__ == "__main__":
    main()
