"""compare.py NCU_CSV DB [DB...] > table: gpuscope's per-kernel counters
(`record --metrics kernels`, the counters table of each trace database)
beside Nsight Compute's (`ncu --csv --page raw --metrics ...`) for the same
kernels, one row per (kernel, metric): both values, the difference, and
whether it is within the tolerance of issue 18 (10% relative, or 3 points
for a percentage). Kernels are matched by mangled name (ncu run with
--print-kernel-base mangled); when a kernel ran several times the first
profiled launch of each side is compared. Standard library only (runs on
the GPU machine). Exit 0 always; the table says what matched."""
import csv
import sqlite3
import sys


def num(s):
    s = (s or "").replace(",", "").strip()
    try:
        return float(s)
    except ValueError:
        return None


def resolution(s):
    """The step of a number as ncu printed it ("0.16" -> 0.01, "83" -> 1)."""
    s = (s or "").replace(",", "").strip()
    if "." not in s or "e" in s.lower():
        return 0.0
    return 10.0 ** -len(s.split(".")[1])


def read_ncu(path):
    """{kernel: {metric: value}} from ncu's raw CSV (header, units, rows)."""
    out = {}
    with open(path, newline="") as f:
        lines = [l for l in f if not l.startswith("==")]
    # the program's own output comes first
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), len(lines))
    rows = list(csv.reader(lines[start:]))
    if len(rows) < 3:
        return out
    head = rows[0]
    try:
        kcol = head.index("Kernel Name")
    except ValueError:
        return out
    for r in rows[2:]:
        if len(r) != len(head):
            continue
        name = r[kcol]
        if name in out:
            continue
        out[name] = {h: num(v) for h, v in zip(head, r) if "__" in h}
        RES[name] = {h: resolution(v) for h, v in zip(head, r) if "__" in h}
    return out


def read_db(path):
    """{kernel: {metric: value}}: the first profiled launch of each kernel."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    q = """SELECT k.name, m.value, c.value, k.start_ns
           FROM counters c JOIN kernel_v k ON k.pid = c.pid AND k.correlation = c.correlation
           JOIN strings m ON m.id = c.metric_id ORDER BY k.start_ns"""
    out, first = {}, {}
    try:
        rows = con.execute(q).fetchall()
    except sqlite3.Error as e:
        print(f"# {path}: {e}", file=sys.stderr)
        return out
    for kname, metric, value, start in rows:
        if kname in first and first[kname] != start:
            continue
        first[kname] = start
        out.setdefault(kname, {})[metric] = value
    return out


RES = {}


def within(metric, a, b, res=0.0):
    """Issue 18's tolerance: 10% relative, 3 points for a percentage, or
    what ncu's printed precision hides (0.00 for a value under 0.005)."""
    if a is None or b is None:
        return None
    if abs(a - b) <= res / 2 + 1e-12:
        return True
    if metric.endswith(".pct") or "pct_of_peak" in metric:
        return abs(a - b) <= 3.0
    if max(abs(a), abs(b)) < 1e-9:
        return True
    return abs(a - b) <= 0.10 * max(abs(a), abs(b))


def main():
    ncu = read_ncu(sys.argv[1])
    gs = {}
    for db in sys.argv[2:]:
        gs.update(read_db(db))
    print("kernel\tmetric\tncu\tgpuscope\tdiff\tok")
    n = ok = 0
    for k in sorted(set(ncu) & set(gs)):
        for m in sorted(set(ncu[k]) & set(gs[k])):
            a, b = ncu[k][m], gs[k][m]
            w = within(m, a, b, RES.get(k, {}).get(m, 0.0))
            if w is None:
                continue
            n += 1
            ok += bool(w)
            d = b - a if a is not None and b is not None else float("nan")
            print(f"{k[:60]}\t{m}\t{a:.6g}\t{b:.6g}\t{d:+.4g}\t{'ok' if w else 'DIFF'}")
    only_ncu = sorted(set(ncu) - set(gs))
    only_gs = sorted(set(gs) - set(ncu))
    print(f"# {ok}/{n} metric values within tolerance; kernels matched "
          f"{len(set(ncu) & set(gs))}, only ncu {len(only_ncu)}, only gpuscope {len(only_gs)}")
    for k in only_ncu[:10]:
        print(f"# only ncu: {k[:90]}")
    for k in only_gs[:10]:
        print(f"# only gpuscope: {k[:90]}")


if __name__ == "__main__":
    main()
