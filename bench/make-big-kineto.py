#!/usr/bin/env python3
"""make-big-kineto.py - a large, real-shaped kineto trace made by replicating a real one.

usage: make-big-kineto.py [--src REAL.json.gz] [--kernels 300000] [--gap-us 50] [--gzip] OUT.json

Reads a real PyTorch profiler (kineto) Chrome trace (default: the H200
recording tests/fixtures/pytorch/transformer_step.json.gz) and writes OUT.json
with the source's top-level keys kept and its traceEvents repeated K times,
K = ceil(KERNELS / kernels in the source) (events with cat == "kernel").

Copy k is shifted in time by k * (source span + gap) so copies never overlap
(span: first to last end of the non-metadata, non-instant events),
and every id that has to stay unique is offset per copy: args.correlation,
args["External id"], the flow "id" of ph s/f events (ac2g and fwdbwd; ac2g ids
get the same offset as correlation ids, so they keep matching), "Ev Idx",
"Sequence number", "Python id"/"Python parent id" and "Record function id"
(keys whose values are all 0 in the source are left alone). ProfilerStep#N
annotations are renumbered. Events that a real trace holds once per
recording are written once: metadata (ph M), the global "Iteration Start"
instant (first copy), "Record Window End" (last copy) and the cat "Trace"
profiler span (first copy, its dur stretched over all copies).

Each event's original text (kineto's own formatting) is kept; only the number
tokens of the fields above are rewritten, with exact decimal arithmetic on
timestamps. A top-level "distributedInfo": {"rank": 0} is added when absent
(Holistic Trace Analysis needs a rank). The output is streamed: memory is
that of the source trace, not of the output.

Prints to stderr: copies, events, kernels, bytes.
"""
import argparse
import gzip
import json
import math
import os
import re
import sys

DEFAULT_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures",
                           "pytorch", "transformer_step.json.gz")

NUM = r"(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
# key in the event text -> slot kind. The match needs the key's own opening
# quote, so "Python id" never matches "id", and escaped quotes inside string
# values (\") never start a match.
FIELDS = {
    "ts": "ts",
    "correlation": "corr",
    "External id": "ext",
    "id": "flow",
    "Ev Idx": "evidx",
    "Sequence number": "seq",
    "Record function id": "rfid",
    "Python id": "pyid",
    "Python parent id": "pyid",
}
FIELD_RE = re.compile(r'"(' + "|".join(re.escape(k) for k in FIELDS) + r')":(\s*)' + NUM)
STEP_RE = re.compile(r'"name":(\s*)"ProfilerStep#(\d+)"')
DUR_RE = re.compile(r'"dur":(\s*)' + NUM)


def parse_ts(tok):
    """'5361616182816.790' -> (7 361... integer in units of 10^-u us, u) exactly."""
    if "e" in tok or "E" in tok:
        v = round(float(tok) * 1000)
        return v, 3
    neg = tok.startswith("-")
    if neg:
        tok = tok[1:]
    ip, _, fp = tok.partition(".")
    u = max(3, len(fp))
    v = int(ip + fp.ljust(u, "0"))
    return (-v if neg else v), u


def fmt_ts(v, u):
    neg = v < 0
    s = str(abs(v)).rjust(u + 1, "0")
    s = s[:-u] + "." + s[-u:]
    return "-" + s if neg else s


def split_events(text):
    """Returns (prefix up to and including '[', [(event text, event dict)], separator, suffix from ']')."""
    m = re.search(r'"traceEvents"\s*:\s*\[', text)
    if not m:
        sys.exit("make-big-kineto: no \"traceEvents\" array in the source")
    dec = json.JSONDecoder()
    pos = m.end()
    n = len(text)
    events = []
    seps = []
    lead = None
    while True:
        start = pos
        while pos < n and text[pos] in " \t\r\n":
            pos += 1
        if lead is None:
            lead = text[start:pos]
        if pos < n and text[pos] == "]":
            suffix_start = start
            break
        obj, end = dec.raw_decode(text, pos)
        events.append((text[pos:end], obj))
        pos = end
        sep_start = pos
        while pos < n and text[pos] in " \t\r\n":
            pos += 1
        if pos < n and text[pos] == ",":
            pos += 1
            j = pos
            while j < n and text[j] in " \t\r\n":
                j += 1
            seps.append(text[sep_start:j])
            pos = j
            continue
        if pos < n and text[pos] == "]":
            suffix_start = sep_start
            break
        sys.exit("make-big-kineto: malformed traceEvents array near offset %d" % pos)
    sep = seps[0] if seps else ",\n  "
    return text[:m.end()] + lead, events, sep, text[suffix_start:]


def num_of(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=DEFAULT_SRC, help="real kineto trace (.json or .json.gz)")
    ap.add_argument("--kernels", type=int, default=300000, help="at least this many kernels in OUT")
    ap.add_argument("--gap-us", type=float, default=50.0, help="idle gap between copies (us)")
    ap.add_argument("--gzip", action="store_true", help="also write OUT.json.gz")
    ap.add_argument("out")
    a = ap.parse_args()

    opener = gzip.open if a.src.endswith(".gz") else open
    with opener(a.src, "rb") as f:
        text = f.read().decode("utf-8")
    top = json.loads(text)
    if "traceEvents" not in top:
        sys.exit("make-big-kineto: %s has no traceEvents" % a.src)
    prefix, events, sep, suffix = split_events(text)
    if len(events) != len(top["traceEvents"]):
        sys.exit("make-big-kineto: parsed %d events, json has %d" % (len(events), len(top["traceEvents"])))
    if "distributedInfo" not in top:
        brace = prefix.index("{")
        prefix = prefix[:brace + 1] + '\n  "distributedInfo": {"rank": 0},' + prefix[brace + 1:]

    kernels_per_copy = sum(1 for _, e in events if e.get("cat") == "kernel")
    if kernels_per_copy == 0:
        sys.exit("make-big-kineto: the source has no kernel events")
    copies = max(1, math.ceil(a.kernels / kernels_per_copy))

    # span of the source, and the per-copy offsets of every id kind
    # The period is the span of the activity (metadata and global instants
    # such as "Record Window End", which kineto writes well after the last
    # event, left out), so the seam between copies is only the real
    # startup/teardown of the recording plus the gap.
    timed = [e for _, e in events if num_of(e.get("ts")) is not None]
    active = [e for e in timed if e.get("ph") not in ("M", "i", "I")] or timed
    t0 = min(e["ts"] for e in active)
    t1 = max(e["ts"] + (num_of(e.get("dur")) or 0) for e in active)
    period_ns = int(math.ceil((t1 - t0) * 1000 + a.gap_us * 1000))
    maxv = {k: 0 for k in ("corr", "ext", "flow", "evidx", "seq", "rfid", "pyid")}
    steps = []
    for _, e in events:
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        for key, kind in FIELDS.items():
            if kind in ("ts", "flow"):
                continue
            v = num_of(args.get(key))
            if v is not None:
                maxv[kind] = max(maxv[kind], int(v))
        if e.get("ph") in ("s", "f", "t") and num_of(e.get("id")) is not None:
            maxv["flow"] = max(maxv["flow"], int(e["id"]))
        sm = re.match(r"ProfilerStep#(\d+)$", str(e.get("name", "")))
        if sm:
            steps.append(int(sm.group(1)))
    off = {k: v + 1 if v > 0 else 0 for k, v in maxv.items()}
    # ac2g flow ids equal correlation ids in kineto: one offset for both
    off["corr"] = off["flow"] = max(maxv["corr"], maxv["flow"]) + 1
    step_off = (max(steps) - min(steps) + 1) if steps else 0

    # templates: literal text pieces and (kind, value) slots between them
    mid_ts = (t0 + t1) / 2
    templates = []  # (where, pieces, slots, is_kernel) where: all|first|last
    nfallback = 0
    for raw, e in events:
        where = "all"
        ph = e.get("ph")
        if ph == "M":
            where = "first"
        elif ph in ("i", "I") and e.get("s") == "g":
            where = "first" if num_of(e.get("ts")) is not None and e["ts"] < mid_ts else "last"
        elif e.get("cat") == "Trace":
            where = "first"
            dm = DUR_RE.search(raw)
            if dm:
                dur_ns = round(float(dm.group(2)) * 1000) + (copies - 1) * period_ns
                raw = raw[:dm.start()] + '"dur":' + dm.group(1) + fmt_ts(dur_ns, 3) + raw[dm.end():]
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        expect = (1 if num_of(e.get("ts")) is not None else 0) \
            + (1 if ph in ("s", "f", "t") and num_of(e.get("id")) is not None else 0) \
            + sum(1 for k in FIELDS if k not in ("ts", "id") and num_of(args.get(k)) is not None)
        found = 0
        marks = []  # (start, end, slot) of each number token to rewrite, in text order
        for m in FIELD_RE.finditer(raw):
            kind = FIELDS[m.group(1)]
            if kind == "flow" and ph not in ("s", "f", "t"):
                continue
            found += 1
            if kind == "ts":
                marks.append((m.start(3), m.end(3), ("ts", parse_ts(m.group(3)))))
            elif off[kind]:
                marks.append((m.start(3), m.end(3), (kind, int(float(m.group(3))))))
        if step_off:
            for m in STEP_RE.finditer(raw):
                marks.append((m.start(2), m.end(2), ("step", int(m.group(2)))))
        marks.sort(key=lambda t: t[0])
        pieces, slots, last = [], [], 0
        for st, en, slot in marks:
            pieces.append(raw[last:st])
            slots.append(slot)
            last = en
        if found != expect:
            # unusual formatting: re-serialize this event from its dict
            nfallback += 1
            pieces, slots = None, e
        else:
            pieces.append(raw[last:])
        templates.append((where, pieces, slots, e.get("cat") == "kernel"))

    out_bytes = 0
    nevents = 0
    nkernels = 0
    f = open(a.out, "w", encoding="utf-8", buffering=1 << 22)
    gz = gzip.open(a.out + ".gz", "wt", encoding="utf-8", compresslevel=6) if a.gzip else None

    def write(s):
        nonlocal out_bytes
        f.write(s)
        if gz:
            gz.write(s)
        out_bytes += len(s.encode("utf-8")) if not s.isascii() else len(s)

    write(prefix)
    first = True
    for k in range(copies):
        ts_ns = k * period_ns
        offs = {kind: k * v for kind, v in off.items()}
        offs["step"] = k * step_off
        buf = []
        for where, pieces, slots, is_kernel in templates:
            if (where == "first" and k != 0) or (where == "last" and k != copies - 1):
                continue
            if pieces is None:
                e = json.loads(json.dumps(slots))
                if num_of(e.get("ts")) is not None:
                    e["ts"] = round(e["ts"] + ts_ns / 1000, 3)
                if e.get("ph") in ("s", "f", "t") and num_of(e.get("id")) is not None:
                    e["id"] += offs["flow"]
                args = e.get("args") if isinstance(e.get("args"), dict) else {}
                for key, kind in FIELDS.items():
                    if kind not in ("ts", "flow") and num_of(args.get(key)) is not None:
                        args[key] = int(args[key]) + offs[kind]
                s = json.dumps(e)
            else:
                parts = [pieces[0]]
                for i, (kind, v) in enumerate(slots):
                    if kind == "ts":
                        val, u = v
                        parts.append(fmt_ts(val + ts_ns * 10 ** (u - 3), u))
                    else:
                        parts.append(str(v + offs[kind]))
                    parts.append(pieces[i + 1])
                s = "".join(parts)
            if not first:
                buf.append(sep)
            first = False
            buf.append(s)
            nevents += 1
            nkernels += is_kernel
        write("".join(buf))
    write(suffix)
    f.close()
    if gz:
        gz.close()
    print("make-big-kineto: source %s: %d events, %d kernels, span %.3f ms%s" %
          (os.path.relpath(a.src), len(events), kernels_per_copy, (t1 - t0) / 1000,
           (", %d events re-serialized" % nfallback) if nfallback else ""), file=sys.stderr)
    print("copies=%d events=%d kernels=%d bytes=%d%s" %
          (copies, nevents, nkernels, out_bytes,
           (" gz_bytes=%d" % os.path.getsize(a.out + ".gz")) if gz else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
