#!/usr/bin/env python3
"""serve and monitor against issue 19's targets, on this machine (medians, side by side):
  1. a scrape of 8 GPUs (replayed) < 5 ms           (keep-alive GET /metrics, 500 requests)
  2. serve's RSS < 20 MiB                            (/proc/PID/status VmRSS, 8 GPUs)
  3. 200 concurrent scrapers for DURATION s: no failed scrape, flat memory (RSS every 5 s)
  4. monitor's first frame < 200 ms after start      (--replay ... --count 1, 21 runs)
  5. serve's CPU at 1 Hz (replay: rendering and serving; the NVML side is measured on the
     H200 by workloads/monitor-on-gpu.sh)
usage: bench/serve-bench.py BUILD/gpuscope [DURATION_S]  (default 60)"""
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

gs = sys.argv[1]
duration = float(sys.argv[2]) if len(sys.argv) > 2 else 60
src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
tmp = tempfile.mkdtemp(prefix="gs-bench-")

# an 8-GPU log from the synthetic 2-GPU one: GPUs 2..7 copy 0 and 1 with their own ids
lines = open(os.path.join(src, "tests/fixtures/monitor/synthetic-2gpu.jsonl")).read().splitlines()
out = []
for l in lines:
    o = json.loads(l)
    if o["t"] == "header":
        o["gpus"] = 8
        out.append(o)
    elif o["t"] in ("gpu", "s"):
        for k in range(4):
            c = json.loads(l)
            c["gpu"] = o["gpu"] + 2 * k
            if c["t"] == "gpu":
                c["uuid"] = "GPU-bench-%d" % c["gpu"]
            out.append(c)
log8 = os.path.join(tmp, "8gpu.jsonl")
with open(log8, "w") as f:
    for o in out:
        f.write(json.dumps(o, separators=(",", ":")) + "\n")


def start_serve(*args):
    p = subprocess.Popen([gs, "serve", "--listen", "127.0.0.1:0"] + list(args),
                         stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    port = int(line.rsplit(":", 1)[1].split("/")[0])
    return p, port


def rss_kib(pid):
    for l in open("/proc/%d/status" % pid):
        if l.startswith("VmRSS"):
            return int(l.split()[1])
    return -1


def cpu_s(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


res = []
p, port = start_serve("--replay", log8, "--replay-speed", "1000")
time.sleep(0.5)
c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
lat, size = [], 0
for i in range(500):
    t = time.perf_counter()
    c.request("GET", "/metrics")
    r = c.getresponse()
    body = r.read()
    lat.append((time.perf_counter() - t) * 1000)
    size = len(body)
c.close()
med = statistics.median(lat)
res.append(("scrape of 8 GPUs (median of 500, %d KiB)" % (size // 1024), "%.2f ms" % med, "< 5 ms", med < 5))
rss = rss_kib(p.pid)
res.append(("serve RSS, 8 GPUs", "%.1f MiB" % (rss / 1024), "< 20 MiB", rss < 20 * 1024))

# 200 concurrent scrapers
fails, done = [0], [0]
stop = time.time() + duration
lock = threading.Lock()


def scraper():
    conn = None
    while time.time() < stop:
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/metrics")
            r = conn.getresponse()
            b = r.read()
            ok = r.status == 200 and b"gpuscope_gpu_info" in b
        except Exception:
            ok = False
            conn = None
        with lock:
            done[0] += 1
            fails[0] += 0 if ok else 1
        if not ok:
            time.sleep(0.05)
    if conn:
        conn.close()


rss_series = []
ts = [threading.Thread(target=scraper) for _ in range(200)]
for t in ts:
    t.start()
while time.time() < stop:
    rss_series.append(rss_kib(p.pid))
    time.sleep(5)
for t in ts:
    t.join()
grow = (max(rss_series) - rss_series[0]) / 1024
res.append(("200 scrapers x %.0f s: %d scrapes" % (duration, done[0]), "%d failed" % fails[0],
            "0 failed", fails[0] == 0))
res.append(("RSS under load (first %.1f, max %.1f MiB)" % (rss_series[0] / 1024, max(rss_series) / 1024),
            "+%.1f MiB" % grow, "flat (< +2 MiB)", grow < 2))
p.terminate()
p.wait()

# monitor's first frame
times = []
for i in range(21):
    t = time.perf_counter()
    subprocess.run([gs, "monitor", "--replay", log8, "--format", "table", "--count", "1"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    times.append((time.perf_counter() - t) * 1000)
med = statistics.median(times)
res.append(("monitor first frame (replay, 8 GPUs, whole run)", "%.1f ms" % med, "< 200 ms", med < 200))

# serve at 1 Hz for 20 s, replayed (no NVML here)
p, port = start_serve("--replay", log8, "--replay-speed", "1")
c0 = cpu_s(p.pid)
t0 = time.time()
c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
while time.time() - t0 < 20:
    c.request("GET", "/metrics")
    c.getresponse().read()
    time.sleep(1)
pct = 100 * (cpu_s(p.pid) - c0) / (time.time() - t0)
p.terminate()
p.wait()
res.append(("serve, 8 GPUs at 1 Hz, 1 scrape/s (replay)", "%.2f%% of a core" % pct, "< 1%", pct < 1))

print("%-52s %16s %16s  %s" % ("benchmark", "measured", "target", "met"))
for name, got, want, ok in res:
    print("%-52s %16s %16s  %s" % (name, got, want, "yes" if ok else "NO"))
