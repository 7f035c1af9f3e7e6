"""capture.py - checks gpuscope_capture (the injected library's pause/resume)
on the GPU machine: run as `GPUSCOPE_CAPTURE=off gpuscope record -o D --
python3 capture.py`. It launches x.add_(1) kernels in four phases, paused,
recorded, paused, recorded (each phase ends with a synchronize), and prints
`EXPECT kernels=N`: only the recorded phases' kernels may be in D.
"""
import ctypes
import os
import sys

import torch

lib = ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"])
lib.gpuscope_capture.argtypes = [ctypes.c_int]
x = torch.ones(1024, device="cuda")  # CUDA starts: the library is loaded now
phases = [(0, 700), (1, 1000), (0, 300), (1, 500)]
want = 0
for on, n in phases:
    torch.cuda.synchronize()
    if lib.gpuscope_capture(on) != 0:
        print("gpuscope_capture failed", file=sys.stderr)
        sys.exit(1)
    for _ in range(n):
        x.add_(1.0)
    torch.cuda.synchronize()
    want += n if on else 0
assert x[0].item() == 1 + sum(n for _, n in phases)
print(f"EXPECT kernels={want}", flush=True)
