"""abba: the in-process ABBA design of the zoo's --inproc modes (torch-free,
so that bench/hostsample-cpu.py uses it too).

Repetitions alternate off (A) and on (B) as A B B A, switched by
switch(on) (0: done) after sync(); one untimed step follows each switch.
Prints `TIME name=N loop_s=F steps=S rep=R capture=on|off` per repetition
and, last, `INPROC name=N ratio=F on_median=F off_median=F quads=Q
quad_min=F quad_max=F` (ratio: median over quads of on-time / off-time).
"""
import statistics
import sys
import time


def capture_fn():
    """gpuscope_capture(int) of the injected library, or exit with a reason"""
    import ctypes
    import os
    path = os.environ.get("CUDA_INJECTION64_PATH")
    if not path:
        print("--inproc: not run under `gpuscope record` (no CUDA_INJECTION64_PATH)",
              file=sys.stderr)
        sys.exit(2)
    fn = ctypes.CDLL(path).gpuscope_capture
    fn.argtypes = [ctypes.c_int]
    fn.restype = ctypes.c_int
    return fn


def abba(name, reps, steps, state, step, switch, sync, final=1):
    """returns the number of repetitions run; switch(final) at the end"""
    on_t, off_t, quads = [], [], []
    reps = max(4, reps - reps % 4)
    cur = []
    for r in range(reps):
        on = r % 4 in (1, 2)
        sync()
        if switch(1 if on else 0) != 0:
            print("--inproc: switching tracing failed (recording stopped?)", file=sys.stderr)
            sys.exit(2)
        step(state, 0)  # one untimed step after the switch
        sync()
        t0 = time.perf_counter()
        for i in range(steps):
            step(state, i)
        sync()
        dt = time.perf_counter() - t0
        (on_t if on else off_t).append(dt)
        cur.append((on, dt))
        print(f"TIME name={name} loop_s={dt:.6f} steps={steps} rep={r} "
              f"capture={'on' if on else 'off'}")
        if len(cur) == 4:
            a = sum(t for o, t in cur if not o)
            b = sum(t for o, t in cur if o)
            quads.append(b / a)
            cur = []
    sync()
    switch(final)
    print(f"INPROC name={name} ratio={statistics.median(quads):.4f} "
          f"on_median={statistics.median(on_t):.6f} off_median={statistics.median(off_t):.6f} "
          f"quads={len(quads)} quad_min={min(quads):.4f} quad_max={max(quads):.4f}")
    return reps
