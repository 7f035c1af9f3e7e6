#!/usr/bin/env python3
"""Offline cross-checks of deploy/ that schema validation cannot make: the Service selects the
DaemonSet's pods and names its port; the ServiceMonitor (a CRD kubernetes-validate has no schema
for) is well formed and selects the Service's labels and port; the DaemonSet keeps to its
read-only, no-privilege contract; the Grafana dashboard is the generator's output and every
metric it names is one gpuscope exports (src/gpu/metrics.h).
usage: validate-deploy.py DEPLOY_DIR METRICS_H"""
import json
import os
import re
import subprocess
import sys

import yaml

deploy, metrics_h = sys.argv[1], sys.argv[2]
fails = 0


def check(desc, ok):
    global fails
    print(("ok: " if ok else "FAIL: ") + desc)
    fails += 0 if ok else 1


def load(name):
    with open(os.path.join(deploy, "kubernetes", name)) as f:
        return yaml.safe_load(f)


ds, svc, sm = load("daemonset.yaml"), load("service.yaml"), load("servicemonitor.yaml")
pod = ds["spec"]["template"]
labels = pod["metadata"]["labels"]
check("DaemonSet selector matches its pod labels",
      all(labels.get(k) == v for k, v in ds["spec"]["selector"]["matchLabels"].items()))
c = pod["spec"]["containers"][0]
ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
sc = c.get("securityContext", {})
check("container is not privileged, drops every capability, read-only root, no escalation",
      sc.get("privileged") is False and sc.get("capabilities", {}).get("drop") == ["ALL"] and
      sc.get("readOnlyRootFilesystem") is True and sc.get("allowPrivilegeEscalation") is False)
check("hostPID for process attribution, no service account token",
      pod["spec"].get("hostPID") is True and pod["spec"].get("automountServiceAccountToken") is False)
check("GPU nodes only", "nvidia.com/gpu.present" in pod["spec"].get("nodeSelector", {}))
# the kubelet's log directories name the pods (docs/serve.md): those two,
# nothing else of the host, read-only, at the paths serve reads
KUBELET_DIRS = {"/var/log/pods", "/var/log/containers"}
vols = {v["name"]: v for v in pod["spec"].get("volumes", [])}
mounts = c.get("volumeMounts", [])
check("host paths: only the kubelet's log directories, type Directory",
      {v.get("hostPath", {}).get("path") for v in vols.values()} == KUBELET_DIRS and
      all(set(v) == {"name", "hostPath"} and v["hostPath"].get("type") == "Directory"
          for v in vols.values()))
check("each mounted read-only where serve reads it",
      len(mounts) == len(vols) and
      all(m.get("readOnly") is True and m["name"] in vols and
          m["mountPath"] == vols[m["name"]]["hostPath"]["path"] and
          not m.get("mountPropagation") and not m.get("subPath") for m in mounts))
check("serve listens on the port the pod declares",
      c["args"][0] == "serve" and any(a.endswith(":%d" % ports.get("metrics", -1)) for a in c["args"]))
check("readiness on /health (503 without a GPU), liveness on / (no restart loop without one)",
      c["readinessProbe"]["httpGet"]["path"] == "/health" and c["livenessProbe"]["httpGet"]["path"] == "/")
check("runtimeClassName nvidia (NVML mounted by the NVIDIA runtime)",
      pod["spec"].get("runtimeClassName") == "nvidia")
env = {e["name"]: e for e in c.get("env", [])}
check("the Hostname label is the node's name (downward API)",
      env.get("NODE_NAME", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName"
      and "--hostname" in c["args"] and c["args"][c["args"].index("--hostname") + 1] == "$(NODE_NAME)")


def mib(q):
    return float(q[:-2]) * {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024}[q[-2:]]


res = c.get("resources", {})
# serve at 1 Hz on the H200: 26.1 MiB RSS, 1.68% of a core (bench/README-serve.md)
check("memory request >= the 26.1 MiB measured, limit >= twice it",
      mib(res["requests"]["memory"]) >= 26.1 and mib(res["limits"]["memory"]) >= 2 * 26.1)
check("CPU request >= the 17m measured at 1 Hz", int(res["requests"]["cpu"].rstrip("m")) >= 17)
check("the image is the one make image builds (gpuscope:VERSION)",
      re.fullmatch(r"gpuscope:\d+\.\d+\.\d+", c["image"]) is not None)
check("Service selects the DaemonSet's pods",
      all(labels.get(k) == v for k, v in svc["spec"]["selector"].items()))
check("Service port targets the container's metrics port",
      any(p.get("targetPort") == "metrics" and p["name"] == "metrics" for p in svc["spec"]["ports"]))
check("ServiceMonitor is monitoring.coreos.com/v1",
      sm["apiVersion"] == "monitoring.coreos.com/v1" and sm["kind"] == "ServiceMonitor")
check("ServiceMonitor selects the Service",
      all(svc["metadata"]["labels"].get(k) == v for k, v in sm["spec"]["selector"]["matchLabels"].items())
      and svc["metadata"]["namespace"] in sm["spec"]["namespaceSelector"]["matchNames"])
check("ServiceMonitor scrapes the Service's port by name on /metrics",
      all(e["port"] in [p["name"] for p in svc["spec"]["ports"]] and e["path"] == "/metrics"
          for e in sm["spec"]["endpoints"]))
with open(os.path.join(deploy, "prometheus", "prometheus-kubernetes.yml")) as f:
    pk = yaml.safe_load(f)
keep = [r for j in pk["scrape_configs"] for r in j["relabel_configs"] if r.get("action") == "keep"]
check("kubernetes scrape config keeps the gpuscope pods' metrics port",
      any(r["regex"] == labels["app.kubernetes.io/name"] for r in keep) and
      any(r["regex"] == "metrics" for r in keep))

# the dashboard: the generator's output, metrics that exist
gdir = os.path.join(deploy, "grafana")
gen = subprocess.run([sys.executable, "make_dashboard.py"], cwd=gdir, capture_output=True, text=True)
with open(os.path.join(gdir, "gpuscope-dashboard.json")) as f:
    committed = f.read()
check("gpuscope-dashboard.json is make_dashboard.py's output", gen.stdout == committed)
dash = json.loads(committed)
text = open(metrics_h).read().replace("\\\n", " ")
known = {"gpuscope_" + m for m in re.findall(r'X\(\w+,\s*"[^"]+",\s*"([^"]+)"', text)}
known |= {"gpuscope_gpu_info", "gpuscope_clock_event_reason_active",
          "gpuscope_sample_timestamp_seconds"}
exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
used = {m for e in exprs for m in re.findall(r"gpuscope_\w+", e)}
unknown = sorted(u for u in used if u not in known)
check("every dashboard metric is exported (%d used)" % len(used), not unknown)
if unknown:
    print("  unknown:", unknown)
check("panels have unique ids and titles",
      len({p["id"] for p in dash["panels"]}) == len(dash["panels"]) ==
      len({p["title"] for p in dash["panels"]}))

# the summaries' map and reduce Jobs (docs/summary.md): one pod per rank
# by index, the same claim, the reduce reading what the map writes
mj, rj = load("summaries-job.yaml"), load("summaries-reduce-job.yaml")
ms, rs = mj["spec"], rj["spec"]
check("map Job is Indexed, one completion per rank, parallelism bounded",
      ms["completionMode"] == "Indexed" and 0 < ms["parallelism"] <= ms["completions"])
mc, rc = ms["template"]["spec"]["containers"][0], rs["template"]["spec"]["containers"][0]
margs, rargs = " ".join(mc["args"]), " ".join(rc["args"])
check("map pod writes rank JOB_COMPLETION_INDEX's summary with report --summary -o",
      "report --summary" in margs and "-o /data/summaries/rank$JOB_COMPLETION_INDEX.gss" in margs)
check("reduce reads the map's directory of summaries", "gpuscope report /data/summaries" in rargs)
claims = {j["metadata"]["name"]: j["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"]
          for j in (mj, rj)}
check("map and reduce mount the same claim", len(set(claims.values())) == 1)
for j, c in ((mj, mc), (rj, rc)):
    sc = c.get("securityContext", {})
    check(j["metadata"]["name"] + ": no privilege, non-root, read-only root, no token",
          sc.get("privileged") is False and sc.get("allowPrivilegeEscalation") is False and
          sc.get("readOnlyRootFilesystem") is True and sc.get("runAsNonRoot") is True and
          sc.get("capabilities", {}).get("drop") == ["ALL"] and
          j["spec"]["template"]["spec"].get("automountServiceAccountToken") is False and
          j["spec"]["template"]["spec"]["restartPolicy"] == "Never")
sb = open(os.path.join(deploy, "slurm", "summaries.sbatch")).read()
check("the Slurm script is an array task writing rank SLURM_ARRAY_TASK_ID's summary",
      "#SBATCH" in sb and "SLURM_ARRAY_TASK_ID" in sb and "report --summary" in sb and
      subprocess.run(["bash", "-n", os.path.join(deploy, "slurm", "summaries.sbatch")]).returncode == 0)
sys.exit(1 if fails else 0)
