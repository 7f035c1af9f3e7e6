#!/usr/bin/env python3
"""check_perfetto.py - format rules a gpuscope Perfetto export must keep.

usage: check_perfetto.py FILE [MIN_SLICES]
Checks: JSON object with traceEvents and displayTimeUnit "ns"; every X slice
has numeric ts/dur with at most 3 decimals; slices on one (pid, tid) track
nest (no partial overlap, compared in integer ns); every pid has a
process_name and every track a thread_name; every flow start has one end
with the same id, bound with bp "e". Exit 1 with a message on a violation.
"""
import json
import sys
from collections import defaultdict
from decimal import Decimal


def ns(v):
    d = Decimal(str(v))
    if d.as_tuple().exponent < -3:
        raise SystemExit(f"FAIL: timestamp {v} has more than 3 decimals")
    return int(d * 1000)


def main():
    path = sys.argv[1]
    min_slices = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    with open(path) as f:
        doc = json.load(f)
    if doc.get("displayTimeUnit") != "ns":
        raise SystemExit("FAIL: displayTimeUnit is not ns")
    evs = doc["traceEvents"]
    procs, threads = set(), set()
    tracks = defaultdict(list)
    flows_s, flows_f = {}, {}
    for e in evs:
        ph = e["ph"]
        if ph == "M":
            if e["name"] == "process_name":
                procs.add(e["pid"])
            elif e["name"] == "thread_name":
                threads.add((e["pid"], e["tid"]))
        elif ph == "X":
            s = ns(e["ts"])
            d = ns(e["dur"])
            if d < 0:
                raise SystemExit(f"FAIL: negative dur in {e}")
            tracks[(e["pid"], e["tid"])].append((s, s + d, e["name"]))
        elif ph == "s":
            flows_s[e["id"]] = e
        elif ph == "f":
            if e.get("bp") != "e":
                raise SystemExit(f"FAIL: flow end without bp e: {e}")
            flows_f[e["id"]] = e
    n = sum(len(v) for v in tracks.values())
    if n < min_slices:
        raise SystemExit(f"FAIL: {n} slices, want at least {min_slices}")
    for key, sl in tracks.items():
        if key[0] not in procs:
            raise SystemExit(f"FAIL: pid {key[0]} has no process_name")
        if key not in threads:
            raise SystemExit(f"FAIL: track {key} has no thread_name")
        sl.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for s, end, name in sl:
            while stack and stack[-1][1] <= s:
                stack.pop()
            if stack and end > stack[-1][1]:
                raise SystemExit(
                    f"FAIL: on track {key} '{name}' [{s},{end}] overlaps "
                    f"'{stack[-1][2]}' [{stack[-1][0]},{stack[-1][1]}] without nesting")
            stack.append((s, end, name))
    if set(flows_s) != set(flows_f):
        raise SystemExit("FAIL: flow starts and ends do not pair up")
    print(f"ok: {n} slices on {len(tracks)} tracks, {len(flows_s)} flows")


main()
