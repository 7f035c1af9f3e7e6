"""A call-heavy pure Python loop (hostsample-probe.sh): its time under each
sampling mechanism against none is the slowdown; inner_work is where its
time goes (the probe's PROBE_WANT)."""
import sys
import time


def leaf(x):
    return x * 3 + 1


def inner_work(n):
    s = 0
    for i in range(n):
        s += leaf(i)
    return s


def outer(n):
    return inner_work(n)


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    t0 = time.perf_counter()
    total = 0
    for _ in range(reps):
        total += outer(100000)
    print(f"ELAPSED {time.perf_counter() - t0:.4f} total={total}", flush=True)


main()
