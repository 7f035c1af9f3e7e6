#!/usr/bin/env python3
"""ratio-ci.py - a 95% interval for record-overhead's rec/untr ratio.

usage: ratio-ci.py PLAIN.rloop MODE.rloop [RESAMPLES]

Each file holds "ROUND LOOP_SECONDS" lines (bench/record-overhead.sh): the
timed loops of one mode, by the round (one process each) they ran in.
Loops of one process move together (XLA's thread placement, the card's
clock), so the rounds are resampled, not the loops: each of RESAMPLES
(default 2000, a fixed seed) draws as many rounds as there are, with
replacement, and takes the median of MODE's loops in them over the median
of PLAIN's. Prints "ratio lo hi rounds": the ratio of all the medians and
the 2.5th and 97.5th percentiles of the resampled ones; "NA" when a file
is missing or the two have no round in common.
"""
import random
import statistics
import sys


def rounds(path):
    out = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    out.setdefault(parts[0], []).append(float(parts[1]))
    except (OSError, ValueError):
        return None
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    plain, mode = rounds(sys.argv[1]), rounds(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    if not plain or not mode:
        print("NA")
        return
    common = sorted(set(plain) & set(mode))
    if not common:
        print("NA")
        return

    def ratio(picked):
        p = [x for r in picked for x in plain[r]]
        m = [x for r in picked for x in mode[r]]
        return statistics.median(m) / statistics.median(p)

    rng = random.Random(1)
    draws = sorted(ratio([rng.choice(common) for _ in common]) for _ in range(n))
    lo, hi = draws[int(0.025 * n)], draws[min(n - 1, int(0.975 * n))]
    print("%.3f %.3f %.3f %d" % (ratio(common), lo, hi, len(common)))


if __name__ == "__main__":
    main()
