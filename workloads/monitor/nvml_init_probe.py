"""nvml_init_probe.py - does NVML's initialisation map libcuda into the
process, and how much resident anonymous memory does each step add?
(serve's RSS, issue 19). Each variant runs in a fresh interpreter:
    python3 workloads/monitor/nvml_init_probe.py          (needs a GPU)
Variants: nvmlInit_v2, nvmlInitWithFlags(0), (NO_ATTACH=2), (NO_GPUS=1);
after init, nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2(0) and
nvmlDeviceGetUtilizationRates. Prints per step: libcuda mapped, RssAnon
delta (kB) since before init, threads."""
import ctypes
import os
import subprocess
import sys


def state():
    mapped = any("libcuda.so" in line for line in open("/proc/self/maps"))
    anon = 0
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            anon = int(line.split()[1])
    return mapped, anon, len(os.listdir("/proc/self/task"))


def child(variant):
    n = ctypes.CDLL("libnvidia-ml.so.1")
    _, a0, _ = state()
    rows = []

    def step(name, rc):
        m, a, t = state()
        rows.append(f"{variant:9} {name:22} rc={rc:<3} libcuda={int(m)} anon+={a - a0:6} kB threads={t}")

    if variant == "init":
        step("nvmlInit_v2", n.nvmlInit_v2())
    else:
        flags = {"flags0": 0, "noattach": 2, "nogpus": 1}[variant]
        step(f"nvmlInitWithFlags({flags})", n.nvmlInitWithFlags(flags))
    c = ctypes.c_uint(0)
    step("DeviceGetCount_v2", n.nvmlDeviceGetCount_v2(ctypes.byref(c)))
    h = ctypes.c_void_p()
    step("GetHandleByIndex_v2", n.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h)))
    buf = (ctypes.c_uint * 2)()
    step("GetUtilizationRates", n.nvmlDeviceGetUtilizationRates(h, buf))
    print("\n".join(rows))


if len(sys.argv) > 1:
    child(sys.argv[1])
else:
    for v in ("init", "flags0", "noattach", "nogpus"):
        subprocess.run([sys.executable, __file__, v], check=False)
