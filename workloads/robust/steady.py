"""steady.py - the PyTorch program of run-on-gpu.sh's robustness stage:
x.add_(1) in a loop until killed, printing `launched N` after each 1000 ops
and a synchronize, so a database can be checked against the last line.
  steady.py                 until killed
  steady.py SECONDS CODE [PAUSE]
                            then a PAUSE s pause (default 1.6: > one flush period)
                            and os._exit(CODE); PAUSE 0: os._exit right after the
                            last synchronize (only record's _exit shim saves the
                            records since the last periodic flush)
  steady.py handler         with a SIGTERM handler of its own (sys.exit(3))
"""
import os, signal, sys, time, torch
if sys.argv[1:] == ["handler"]:  # the program's own SIGTERM handler: exits 3
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(3))
    sys.argv = sys.argv[:1]
x = torch.ones(1024, device="cuda")
n = 0
t0 = time.time()
while True:
    x.add_(1.0)
    n += 1
    if n % 1000 == 0:
        torch.cuda.synchronize()
        print(f"launched {n}", flush=True)
        if len(sys.argv) > 1 and time.time() - t0 > float(sys.argv[1]):
            torch.cuda.synchronize()
            time.sleep(float(sys.argv[3]) if len(sys.argv) > 3 else 1.6)
            os._exit(int(sys.argv[2]))
