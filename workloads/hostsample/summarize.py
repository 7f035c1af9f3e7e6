"""The table hostsample-probe.sh prints last: per workload and mode, the
median loop time and its ratio to 'none', and the sampler's numbers (from
the probe's RESULT lines, medians over the rounds)."""
import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) < 3:
        continue
    kv = dict(p.split("=", 1) for p in parts[2:] if "=" in p)
    runs[(parts[0], parts[1])].append(kv)


def med(rows, key):
    vals = []
    for r in rows:
        try:
            vals.append(float(r[key]))
        except (KeyError, ValueError):
            pass
    return statistics.median(vals) if vals else None


def fmt(v, spec):
    return format(v, spec) if v is not None else "-"


cols = [("samples", "perf_samples", ".0f"), ("lost", "perf_lost", ".0f"),
        ("drain_ns", "drain_ns_per_sample", ".0f"), ("sym_ns/fr", "sym_ns_per_frame", ".0f"),
        ("named%", "named_pct", ".1f"), ("py%", "with_python_pct", ".1f"),
        ("want%", "want_pct", ".1f"), ("py_samples", "py_samples", ".0f"),
        ("py_us", "py_us_per_sample", ".1f"), ("py_torn", "py_torn", ".0f"),
        ("py_want%", "py_want_pct", ".1f")]
print("host sampling probe (medians; ratio = loop time / mode none)")
print(f"{'workload':<10} {'mode':<12} {'n':>2} {'loop_s':>8} {'ratio':>6} "
      + " ".join(f"{c[0]:>10}" for c in cols))
for tag in dict.fromkeys(k[0] for k in runs):
    base = med(runs.get((tag, "none"), []), "elapsed")
    for mode in ("none", "perfsupport", "perf", "pyread", "both"):
        rows = runs.get((tag, mode))
        if not rows:
            continue
        el = med(rows, "elapsed")
        ratio = el / base if el and base else None
        print(f"{tag:<10} {mode:<12} {len(rows):>2} {fmt(el, '.3f'):>8} {fmt(ratio, '.3f'):>6} "
              + " ".join(f"{fmt(med(rows, c[1]), c[2]):>10}" for c in cols))
