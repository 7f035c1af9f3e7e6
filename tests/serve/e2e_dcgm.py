#!/usr/bin/env python3
"""The DCGM drop-in end to end (e2e_prometheus.sh runs Prometheus and `serve --compat dcgm
--replay LOG` first, as job "dcgm", LOG's processes in pod ml-team/zoo-0, container cuda): every
DCGM field of the registry holds the log's values in DCGM's unit with dcgm-exporter's labels, a
GPU's series carry that pod's namespace, pod and container while its processes run and none
while it idles, the compat text has no gpuscope_ family DCGM has a field for, and every query of
NVIDIA's dcgm-exporter dashboard returns data.
usage: e2e_dcgm.py PROM_URL LOG METRICS_H DCGM_DASHBOARD_JSON COMPAT_METRICS_TEXT"""
import json
import math
import re
import sys

from promcheck import Checks

prom, log_path, metrics_h, dash_path, text_path = sys.argv[1:6]
c = Checks(prom)
check, api = c.check, c.api


# the registry: trace name -> (gpuscope name, DCGM field, factor from the value's unit to DCGM's)
# dcgm-exporter's units: % for DCGM_FI_DEV_*, ratios for DCGM_FI_PROF_*, MHz, MiB, B/s, mJ, us
to_dcgm = {"MB/s": 1e6, "B": 1 / 2**20, "J": 1000, "s": 1e6}
reg = {}
text = open(metrics_h).read().replace("\\\n", " ")
pat = r'X\(\w+,\s*"([^"]+)",\s*"([^"]+)",\s*GPU_(?:GAUGE|COUNTER),\s*[0-9.e]+,\s*"([^"]*)",\s*\w+,\s*"([^"]*)"'
for m in re.finditer(pat, text):
    trace, promname, unit, dcgm = m.groups()
    if not dcgm:
        continue
    f = 0.01 if unit == "%" and dcgm.startswith("DCGM_FI_PROF_") else to_dcgm.get(unit, 1)
    reg[trace] = ("gpuscope_" + promname, dcgm, f)
check("%d registry metrics have a DCGM field" % len(reg), len(reg) >= 30)

gpus, values, host, busy, idle = {}, {}, "", set(), set()
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
        g, v = str(o["gpu"]), o["v"]
        if "gpu_util" in v and "procs" in o:
            (busy if o["procs"] else idle).add((g, v["gpu_util"]))
        for k, x in v.items():
            if k in reg:
                values.setdefault((reg[k][1], g), set()).add(x * reg[k][2])
        if "mem_total_bytes" in v and "mem_used_bytes" in v:
            values.setdefault(("DCGM_FI_DEV_FB_FREE", g), set()).add(
                (v["mem_total_bytes"] - v["mem_used_bytes"]) / 2**20)
        if "gpu_util" in v:
            values.setdefault(("DCGM_FI_PROF_GR_ENGINE_ACTIVE", g), set()).add(v["gpu_util"] / 100)

# 1. values in DCGM's units, labels as dcgm-exporter's
scraped = 0
for (name, g), want in sorted(values.items()):
    res = api("/api/v1/query", query='%s{job="dcgm",gpu="%s"}[1h]' % (name, g))["result"]
    got = [float(v) for s in res for _, v in s["values"]]
    scraped += len(got)
    bad = [v for v in got if not any(math.isclose(v, w, rel_tol=1e-9, abs_tol=1e-9) for w in want)]
    if not got or bad:
        check("%s gpu %s: %d samples, not the log's in DCGM's unit: %s" % (name, g, len(got), bad[:3]),
              False)
    for s in res:
        m, lg = s["metric"], gpus.get(g, {})
        if not (m.get("Hostname") == host and m.get("modelName") == lg.get("name") and
                m.get("DCGM_FI_DRIVER_VERSION") == lg.get("driver") and m.get("UUID") == lg.get("uuid")
                and m.get("pci_bus_id") == lg.get("pci") and m.get("device") == "nvidia" + g):
            check("%s gpu %s: dcgm-exporter's labels: %s" % (name, g, m), False)
check("%d scraped samples of %d (DCGM field, gpu) series all match the log in DCGM's units, "
      "with dcgm-exporter's labels" % (scraped, len(values)), scraped > 0)
missing = []
for must in ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_FB_USED",
             "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK",
             "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
             "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
             "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_OCCUPANCY", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
             "DCGM_FI_PROF_PIPE_FP32_ACTIVE", "DCGM_FI_PROF_PIPE_FP16_ACTIVE",
             "DCGM_FI_PROF_PIPE_FP64_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE", "DCGM_FI_PROF_PCIE_TX_BYTES",
             "DCGM_FI_PROF_PCIE_RX_BYTES"):
    if not api("/api/v1/query", query='%s{job="dcgm"}[1h]' % must)["result"]:
        missing.append(must)
check("the issue's DCGM fields are exported (missing: %s)" % missing, not missing)

# 2. the pod on a GPU's series while its processes run (gpuscope sees use, not allocation):
# samples with the pod hold the utilization of rounds with processes, those without it of
# rounds without; grouping by pod, as dcgm-exporter's users do, finds it
pod = '{job="dcgm",namespace="ml-team",pod="zoo-0",container="cuda"}'
res = api("/api/v1/query", query="DCGM_FI_DEV_GPU_UTIL%s[1h]" % pod)["result"]
with_pod = {(s["metric"]["gpu"], float(v)) for s in res for _, v in s["values"]}
res = api("/api/v1/query", query='DCGM_FI_DEV_GPU_UTIL{job="dcgm",pod=""}[1h]')["result"]
without = {(s["metric"]["gpu"], float(v)) for s in res for _, v in s["values"]}
check("GPU-Util with the pod: %d values, all of rounds with processes" % len(with_pod),
      with_pod and with_pod <= busy)
check("GPU-Util without a pod: %d values, all of rounds without processes" % len(without),
      without and without <= idle)
res = api("/api/v1/query_range", query='sum by (namespace, pod) (DCGM_FI_DEV_FB_USED%s)' % pod,
          start=api("/api/v1/query", query="time()")["result"][0] - 3600,
          end=api("/api/v1/query", query="time()")["result"][0], step="2")["result"]
check("sum by (namespace, pod) of the framebuffer finds ml-team/zoo-0",
      any(s["metric"] == {"namespace": "ml-team", "pod": "zoo-0"} for s in res))

# 3. the compat text: no gpuscope_ family DCGM has a field for; DCGM's TYPE lines
body = open(text_path).read()
dup = sorted({p for p, _, _ in reg.values() if re.search(r"^%s\{" % re.escape(p), body, re.M)})
check("no gpuscope_ family beside its DCGM field (%s)" % ", ".join(dup), not dup)
check("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION is a counter",
      "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n" in body)

# 4. NVIDIA's dashboard: every panel query and both variables return data
dash = json.load(open(dash_path))
end = api("/api/v1/query", query="time()")["result"][0]
n = 0
for p in dash["panels"]:
    for t in p.get("targets", []):
        e = t["expr"].replace("$Hostname", ".*").replace("$gpu", ".*")
        r = api("/api/v1/query_range", query=e, start=end - 3600, end=end, step="2")["result"]
        n += 1
        check("NVIDIA dashboard '%s': %s -> %d series" % (p["title"], e, len(r)), bool(r))
for v in dash["templating"]["list"]:
    q = v["query"]["query"].replace("$Hostname", ".*")
    m = re.fullmatch(r"label_values\((.+), (\w+)\)", q)
    res = api("/api/v1/series", **{"match[]": m.group(1), "start": end - 3600, "end": end})
    got = sorted({s.get(m.group(2)) for s in res if s.get(m.group(2)) is not None})
    check("NVIDIA dashboard variable $%s: %s -> %s" % (v["name"], q, got), bool(got))
    n += 1
check("%d NVIDIA dashboard queries checked" % n, n == 10)
sys.exit(1 if c.fails else 0)
