#!/usr/bin/env python3
"""The end-to-end checks (e2e_prometheus.sh runs Prometheus and serve first): query Prometheus'
HTTP API and compare what it scraped from `gpuscope serve --replay LOG` with LOG itself.
usage: e2e_check.py PROM_URL LOG DASHBOARD_JSON METRICS_H"""
import json
import math
import re
import sys

from promcheck import Checks

prom, log_path, dash_path, metrics_h = sys.argv[1:5]
c = Checks(prom)
check, api = c.check, c.api


# the registry: trace name -> (prom name, scale)
reg = {}
text = open(metrics_h).read().replace("\\\n", " ")
for m in re.finditer(r'X\(\w+,\s*"([^"]+)",\s*"([^"]+)",\s*GPU_(?:GAUGE|COUNTER),\s*([0-9.e]+),', text):
    reg[m.group(1)] = ("gpuscope_" + m.group(2), float(m.group(3)))

gpus, values, rounds, pids = {}, {}, [], set()
for line in open(log_path, errors="replace"):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if o.get("t") == "gpu":
        gpus.setdefault(str(o["gpu"]), o)
    elif o.get("t") == "header":
        host = o.get("host", "")
    elif o.get("t") == "s":
        g = str(o["gpu"])
        rounds.append((o["ts"], g, o["v"]))
        for k, v in o["v"].items():
            if k in reg:
                values.setdefault((reg[k][0], g), set()).add(v * reg[k][1])
        for p in o.get("procs", []):
            pids.add(str(p["pid"]))
end = api("/api/v1/query", query="time()")["result"][0]

# 1. labels: dcgm-exporter's set, as the log says
info = api("/api/v1/query", query="gpuscope_gpu_info")["result"]
check("gpuscope_gpu_info for each of the log's %d GPUs" % len(gpus), len(info) == len(gpus))
for s in info:
    m, g = s["metric"], gpus.get(s["metric"].get("gpu"), {})
    check("gpu %s labels" % m.get("gpu"),
          m.get("UUID") == g.get("uuid") and m.get("pci_bus_id") == g.get("pci") and
          m.get("model_name") == g.get("name") and m.get("driver_version") == g.get("driver") and
          m.get("hostname") == host and m.get("device") == "nvidia" + m.get("gpu", "?"))

# 2. every scraped value is one of the log's values for that GPU, in base units
scraped = 0
for (name, g), want in sorted(values.items()):
    res = api("/api/v1/query", query='%s{gpu="%s"}[1h]' % (name, g))["result"]
    got = [float(v) for s in res for _, v in s["values"]]
    scraped += len(got)
    bad = [v for v in got if not any(math.isclose(v, w, rel_tol=1e-9, abs_tol=1e-12) for w in want)]
    if not got or bad:
        check("%s gpu %s: %d samples, not in the log: %s" % (name, g, len(got), bad[:3]), False)
check("%d scraped samples of %d (metric, gpu) series all match the log" % (scraped, len(values)),
      scraped > 0)
# unknown stays out: a metric the log never has for a GPU has no series for it
for trace, (name, _) in reg.items():
    for g in gpus:
        if (name, g) not in values:
            res = api("/api/v1/query", query='%s{gpu="%s"}[1h]' % (name, g))["result"]
            if res:
                check("%s gpu %s is unknown in the log but exported" % (name, g), False)

# 3. the seed's contrast, if the log holds it: GPU-Util high while SM activity is near 0,
# and DRAM near its roof
# (the fixture must hold the contrast: it is what the recording was made for)
contrast = any(v.get("gpu_util", 0) >= 80 and v.get("gpm_sm_util", 100) < 10 for _, _, v in rounds)
check("the log shows GPU-Util >= 80% with SM activity < 10%", contrast)
q = ("max_over_time((gpuscope_gpu_utilization_ratio >= 0.8 and on(gpu, UUID) "
     "gpuscope_sm_active_ratio < 0.1)[1h:1s])")
check("Prometheus shows the contrast: " + q, bool(api("/api/v1/query", query=q)["result"]))
# DRAM: Prometheus' highest reading is the log's highest (the H200 run of 2026-12-03 peaked
# at 49.9%: bandwidth_stream's kernels fill only part of each 0.5 s window; see the README)
for g in gpus:
    want = max((v["gpm_dram_bw_util"] for _, gg, v in rounds if gg == g and "gpm_dram_bw_util" in v),
               default=None)
    res = api("/api/v1/query", query='max_over_time(gpuscope_dram_active_ratio{gpu="%s"}[1h])' % g)["result"]
    got = float(res[0]["value"][1]) if res else None
    print("   gpu %s: DRAM peak %s%% in the log" % (g, want))
    check("gpu %s: Prometheus' DRAM peak %s = the log's %s / 100" % (g, got, want),
          want is not None and got is not None and
          (math.isclose(got, want / 100, rel_tol=1e-9) or
           # a peak that lasted less than a scrape interval may be missed: then a lower one
           got < want / 100))

# 4. per-process series carry the log's pids
res = api("/api/v1/query", query="gpuscope_process_memory_used_bytes[1h]")["result"]
got = {s["metric"].get("pid") for s in res}
check("process series for pids %s (log: %s)" % (sorted(got), sorted(pids)), bool(got) and got <= pids)

# 5. every PromQL expression of the dashboard returns data
dash = json.load(open(dash_path))
subst = {"$hostname": ".*", "$gpu": ".*", "$__rate_interval": "20s", "$__range": "1h",
         "$__interval": "2s"}
n = 0
for p in dash["panels"]:
    for t in p.get("targets", []):
        e = t["expr"]
        for k, v in subst.items():
            e = e.replace(k, v)
        r = api("/api/v1/query_range", query=e, start=end - 3600, end=end, step="2")["result"]
        n += 1
        if not r:
            check("dashboard '%s': %s returns no data" % (p["title"], e), False)
check("%d dashboard expressions checked" % n, n > 0)
sys.exit(1 if c.fails else 0)
