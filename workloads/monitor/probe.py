#!/usr/bin/env python3
"""probe.py - measurements for workloads/monitor-on-gpu.sh (issue 19), on the H200:
  probe.py first-row GPUSCOPE N   monitor's time to its first table row, N fresh runs
                                  (spawn to the row read from its pipe; --progress names
                                  the phases), and nvmlInit alone in a fresh process
  probe.py nvml-cost              CPU and wall time per call of each NVML query serve
                                  makes in a round (ctypes on libnvidia-ml.so.1; reads only)
  probe.py threads PID            CPU seconds per thread of a live process (/proc/PID/task)
  probe.py rss PID                RSS by mapping (/proc/PID/smaps), largest first
  probe.py summary LOG PHASES SCRAPES   the rounds of each phase of the run
Every mode prints plain lines; none changes the GPU's state."""
import ctypes
import json
import os
import re
import statistics
import subprocess
import sys
import time


def first_row(gs, n):
    rows, phases = [], []
    for _ in range(n):
        t = time.perf_counter()
        p = subprocess.Popen([gs, "monitor", "--count", "1", "--format", "table", "--progress"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ms = None
        for line in p.stdout:
            if re.match(r"^\d\d:", line):
                ms = (time.perf_counter() - t) * 1000
                break
        p.stdout.close()
        err = p.stderr.read()
        p.wait()
        if ms is None:
            print("first-row: no row; exit %d: %s" % (p.returncode, err.strip()[:300]))
            continue
        rows.append(ms)
        m = re.search(r"monitor start: (.*)", err)
        phases.append(m.group(1) if m else "?")
    if rows:
        print("first-row ms: median %.1f of %d runs (%s)" % (
            statistics.median(rows), len(rows), " ".join("%.0f" % r for r in rows)))
        print("first-row phases of the median run: %s" % phases[sorted(range(len(rows)),
                                                                      key=rows.__getitem__)[len(rows) // 2]])
    inits = []
    for _ in range(3):
        out = subprocess.run([sys.executable, __file__, "nvml-init"], capture_output=True, text=True)
        m = re.search(r"nvmlInit ([\d.]+) ms", out.stdout)
        if m:
            inits.append(float(m.group(1)))
    if inits:
        print("nvmlInit alone (python ctypes, fresh process): median %.1f ms (%s)" % (
            statistics.median(inits), " ".join("%.0f" % x for x in inits)))


def lib():
    return ctypes.CDLL("libnvidia-ml.so.1")


def nvml_init():
    nv = lib()
    t = time.perf_counter()
    rc = nv.nvmlInit_v2()
    print("nvmlInit %.1f ms rc %d" % ((time.perf_counter() - t) * 1000, rc))


def nvml_cost():
    nv = lib()
    t = time.perf_counter()
    nv.nvmlInit_v2()
    print("nvmlInit %.1f ms" % ((time.perf_counter() - t) * 1000))
    h = ctypes.c_void_p()
    nv.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h))
    u = ctypes.c_uint()
    ull = ctypes.c_ulonglong()
    buf = ctypes.create_string_buffer(64 * 64)
    cnt = ctypes.c_uint()
    u4 = [ctypes.c_uint() for _ in range(4)]
    smp = ctypes.c_void_p()
    try:
        gpm = nv.nvmlGpmSampleAlloc(ctypes.byref(smp)) == 0
    except AttributeError:
        gpm = False
    def procs():
        cnt.value = 64
        return nv.nvmlDeviceGetComputeRunningProcesses_v3(h, ctypes.byref(cnt), buf)
    def putil():
        cnt.value = 64
        return nv.nvmlDeviceGetProcessUtilization(h, buf, ctypes.byref(cnt), ctypes.c_ulonglong(0))
    calls = [
        ("GetUtilizationRates", lambda: nv.nvmlDeviceGetUtilizationRates(h, buf)),
        ("GetClockInfo x2", lambda: nv.nvmlDeviceGetClockInfo(h, 1, ctypes.byref(u)) +
         nv.nvmlDeviceGetClockInfo(h, 2, ctypes.byref(u))),
        ("GetPowerUsage", lambda: nv.nvmlDeviceGetPowerUsage(h, ctypes.byref(u))),
        ("GetTemperature", lambda: nv.nvmlDeviceGetTemperature(h, 0, ctypes.byref(u))),
        ("GetMemoryInfo", lambda: nv.nvmlDeviceGetMemoryInfo(h, buf)),
        ("GetCurrentClocksEventReasons", lambda: nv.nvmlDeviceGetCurrentClocksEventReasons(h, ctypes.byref(ull))),
        ("GetTotalEnergyConsumption", lambda: nv.nvmlDeviceGetTotalEnergyConsumption(h, ctypes.byref(ull))),
        ("GetEnforcedPowerLimit", lambda: nv.nvmlDeviceGetEnforcedPowerLimit(h, ctypes.byref(u))),
        ("GetPcieThroughput x2", lambda: nv.nvmlDeviceGetPcieThroughput(h, 0, ctypes.byref(u)) +
         nv.nvmlDeviceGetPcieThroughput(h, 1, ctypes.byref(u))),
        ("GpmSampleGet", (lambda: nv.nvmlGpmSampleGet(h, smp)) if gpm else None),
        ("GetViolationStatus x6", lambda: sum(nv.nvmlDeviceGetViolationStatus(h, p, buf) for p in range(6))),
        ("GetTotalEccErrors x2", lambda: nv.nvmlDeviceGetTotalEccErrors(h, 0, 1, ctypes.byref(ull)) +
         nv.nvmlDeviceGetTotalEccErrors(h, 1, 1, ctypes.byref(ull))),
        ("GetRemappedRows", lambda: nv.nvmlDeviceGetRemappedRows(h, *[ctypes.byref(x) for x in u4])),
        ("GetPcieReplayCounter", lambda: nv.nvmlDeviceGetPcieReplayCounter(h, ctypes.byref(u))),
        ("GetComputeRunningProcesses_v3", procs),
        ("GetProcessUtilization", putil),
    ]
    tot_cpu = tot_wall = 0
    for name, f in calls:
        if f is None:
            print("%-32s unavailable" % name)
            continue
        n = 5 if "Pcie" in name and "Throughput" in name else 40
        try:
            rc = f()
        except AttributeError as e:  # a driver without the symbol
            print("%-32s unavailable (%s)" % (name, e))
            continue
        c0, w0 = time.process_time(), time.perf_counter()
        for _ in range(n):
            f()
        cpu = (time.process_time() - c0) / n * 1e6
        wall = (time.perf_counter() - w0) / n * 1e6
        tot_cpu += cpu
        tot_wall += wall
        print("%-32s cpu %8.1f us  wall %8.1f us  (rc %s)" % (name, cpu, wall, rc))
    print("%-32s cpu %8.1f us  wall %8.1f us  per round of one GPU" % ("TOTAL", tot_cpu, tot_wall))


def threads(pid):
    hz = os.sysconf("SC_CLK_TCK")
    for tid in sorted(os.listdir("/proc/%s/task" % pid), key=int):
        try:
            comm = open("/proc/%s/task/%s/comm" % (pid, tid)).read().strip()
            f = open("/proc/%s/task/%s/stat" % (pid, tid)).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        print("thread %s %-16s user %.2f s sys %.2f s" % (tid, comm, int(f[11]) / hz, int(f[12]) / hz))


def rss(pid):
    by, cur = {}, None
    for line in open("/proc/%s/smaps" % pid):
        p = line.split()
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            cur = p[5] if len(p) > 5 else "[anon]"
        elif p and p[0] == "Rss:":
            by[cur] = by.get(cur, 0) + int(p[1])
    for k, v in sorted(by.items(), key=lambda kv: -kv[1])[:15]:
        print("rss %7d KiB %s" % (v, k))
    print("rss %7d KiB total" % sum(by.values()))


def summary(log, phases, scrapes):
    rounds = []
    try:
        rounds = [json.loads(l) for l in open(log) if l.startswith('{"t":"s"')]
    except (OSError, ValueError) as e:
        print("log unreadable: %s" % e)
    win = {}
    for l in open(phases):
        name, a, b = l.split()
        win[name] = (int(a), int(b))
    print("rounds logged: %d" % len(rounds))
    def inside(name):
        a, b = win.get(name, (0, -1))
        return [r["v"] for r in rounds if a <= r["ts"] <= b]
    sg = inside("small_grid")
    hit = [v for v in sg if v.get("gpu_util", -1) >= 80 and 0 <= v.get("gpm_sm_util", 100) < 10]
    print("small_grid: %d of %d rounds GPU-Util >= 80%% with GPM SM activity < 10%%" % (len(hit), len(sg)))
    if hit:
        v = hit[len(hit) // 2]
        print("   e.g. GPU-Util %.0f%%, SM activity %.2f%%" % (v["gpu_util"], v["gpm_sm_util"]))
    bw = inside("bandwidth_stream")
    dram = [v["gpm_dram_bw_util"] for v in bw if "gpm_dram_bw_util" in v]
    mem = [v["mem_util"] for v in bw if "mem_util" in v]
    print("bandwidth_stream: %d rounds, GPM DRAM peak %s%%, >= 80%% in %d, median %s%%; "
          "NVML memory util peak %s%%" % (
              len(bw), "%.1f" % max(dram) if dram else "?", sum(d >= 80 for d in dram),
              "%.1f" % statistics.median(dram) if dram else "?", max(mem, default="?")))
    if rounds:
        print("metrics known in the last round: %d" % len(rounds[-1]["v"]))
    procs = {p["pid"]: p.get("comm", "?") for r in rounds for p in r.get("procs", [])}
    print("processes seen: %d (%s)" % (len(procs), ", ".join(sorted(set(procs.values())))))
    try:
        s = open(scrapes, errors="replace").read().split("# scrape ")[1:]
    except OSError:
        s = []
    ok = sum(1 for b in s if "gpuscope_gpu_info" in b)
    print("scrapes: %d, %d with gpuscope_gpu_info" % (len(s), ok))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "first-row":
        first_row(sys.argv[2], int(sys.argv[3]))
    elif mode == "nvml-init":
        nvml_init()
    elif mode == "nvml-cost":
        nvml_cost()
    elif mode == "threads":
        threads(sys.argv[2])
    elif mode == "rss":
        rss(sys.argv[2])
    elif mode == "summary":
        summary(*sys.argv[2:5])
