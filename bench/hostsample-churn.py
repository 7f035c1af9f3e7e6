#!/usr/bin/env python3
"""hostsample-churn.py: threads started and joined over and over (8 at a
time, each a few short calls 30 frames deep) beside a main thread 50 frames
deep, for --seconds: the CPython reader's worst case for its prefetch
(docs/host-sampling.md "Overhead"), whose thread states and frame stacks
come and go between samples. Run it under bench_hostsample_probe pyread.
"""
import argparse
import threading
import time


def work(d):
    if d:
        return work(d - 1)
    s = 0
    for i in range(2000):
        s += i
    return s


def worker():
    for _ in range(20):
        work(30)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--threads", type=int, default=8)
    a = p.parse_args()
    t0 = time.time()
    rounds = 0
    while time.time() - t0 < a.seconds:
        ts = [threading.Thread(target=worker) for _ in range(a.threads)]
        for t in ts:
            t.start()
        work(50)
        for t in ts:
            t.join()
        rounds += 1
    print(f"WORKLOAD name=hostsample_churn rounds={rounds}", flush=True)


if __name__ == "__main__":
    main()
