"""same_result.py A.out B.out [--rtol R]: do two runs of one program (one
untraced, one under a recorder) report the same result?

Reads the `RESULT name=N key=value ...` and `WORKLOAD name=N ...` lines of
each output (workloads/real/common.py, the CUDA zoo's zoo.h): the same keys
on both sides; integers and strings equal; floats within a relative --rtol
(default 1e-3: GPU libraries pick algorithms by timing, cuBLAS split-K and
atomics in backward passes sum in another order, so two untraced runs of a
training loop differ in the last bits); keys ending in `_s` (times) are left
out. Prints `same` or what differs, and exits 0 (same), 1 (different) or 2
(a side has no RESULT or WORKLOAD line: the program did not finish).
"""
import argparse
import math
import sys


def fields(path):
    got = {}
    with open(path, errors="replace") as f:
        for line in f:
            w = line.split()
            if not w or w[0] not in ("RESULT", "WORKLOAD"):
                continue
            for kv in w[1:]:
                k, _, v = kv.partition("=")
                if not k.endswith("_s"):
                    got[f"{w[0]}.{k}"] = v
    return got


def num(v):
    try:
        return int(v)
    except ValueError:
        pass
    try:
        return float(v)
    except ValueError:
        return None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--rtol", type=float, default=1e-3)
    o = p.parse_args()
    a, b = fields(o.a), fields(o.b)
    for path, got in ((o.a, a), (o.b, b)):
        if not any(k.startswith("WORKLOAD.") for k in got):
            print(f"no WORKLOAD line in {path}: the program did not finish")
            return 2
    diffs = []
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b:
            diffs.append(f"{k} only in {'A' if k in a else 'B'}")
            continue
        x, y = num(a[k]), num(b[k])
        if isinstance(x, int) and isinstance(y, int):
            ok = x == y
        elif x is not None and y is not None:
            ok = (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=o.rtol, abs_tol=1e-12)
        else:
            ok = a[k] == b[k]
        if not ok:
            diffs.append(f"{k}: {a[k]} vs {b[k]}")
    if diffs:
        print("differs: " + "; ".join(diffs))
        return 1
    # name= says which program, not what it computed
    n = sum(1 for k in a if k.startswith("RESULT.") and k != "RESULT.name")
    print(f"same ({n} result value{'s' if n != 1 else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
