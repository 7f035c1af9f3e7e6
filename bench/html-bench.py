#!/usr/bin/env python3
"""html-bench.py - size and opening time of `report --format html` on big traces.

usage: html-bench.py GPUSCOPE RUNS DB...

For each database: the page's bytes; `report --format html` and `report` (text)
wall times side by side (medians of RUNS, so the page's own cost shows as the
difference); and in headless Chromium (tests/render/cdp.py) the time from
navigation to the load event and to the first frame drawn after it (two
requestAnimationFrame turns), medians of RUNS loads in one browser. Issue 20's
target: <= 5 MB and opened in < 2 s for a 1M-kernel trace.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "render"))
import cdp  # noqa: E402

FRAME = ("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => "
         "r([performance.now(), performance.getEntriesByType('navigation')[0].loadEventEnd]))))")


def timed(cmd, out):
    t0 = time.monotonic()
    with open(out, "w") as f:
        subprocess.run(cmd, check=True, stdout=f, stderr=subprocess.DEVNULL)
    return time.monotonic() - t0


def main():
    gpuscope, runs, dbs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    tmp = tempfile.mkdtemp(prefix="gpuscope-html-bench-")
    b = cdp.Browser(cdp.find_chromium())
    rows = []
    for db in dbs:
        page = os.path.join(tmp, os.path.basename(db) + ".html")
        html_s = statistics.median(
            timed([gpuscope, "report", "--format", "html", "--no-progress", db], page)
            for _ in range(runs))
        text_s = statistics.median(
            timed([gpuscope, "report", "--no-progress", db], os.devnull) for _ in range(runs))
        kernels = subprocess.run(
            [gpuscope, "report", "--format", "json", db], check=True, capture_output=True,
            text=True).stdout.split('"kernels": ', 1)[1].split(",", 1)[0]
        loads, frames = [], []
        for _ in range(runs):
            b.open(page)
            frame, load = b.eval(FRAME)
            loads.append(load / 1000)
            frames.append(frame / 1000)
        problems = b.problems()
        rows.append((os.path.basename(db), kernels, os.path.getsize(page), text_s, html_s,
                     statistics.median(loads), statistics.median(frames), problems))
    b.close()
    print("%-24s %9s %10s %9s %9s %9s %9s" % ("trace", "kernels", "page MB", "text s", "html s",
                                                "load s", "drawn s"))
    for r in rows:
        print("%-24s %9s %10.3f %9.2f %9.2f %9.3f %9.3f%s" %
              (r[0], r[1], r[2] / 1e6, r[3], r[4], r[5], r[6],
               "  PROBLEMS: %s" % r[7] if r[7] else ""))
    bad = [r for r in rows if r[2] > 5e6 or r[6] >= 2 or r[7]]
    print("target (<= 5 MB, drawn < 2 s, no browser problems): %s" %
          ("met" if not bad else "MISSED by " + ", ".join(r[0] for r in bad)))
    for f in os.listdir(tmp):
        os.remove(os.path.join(tmp, f))
    os.rmdir(tmp)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
