#!/usr/bin/env bash
# End to end: Debian's prometheus, on loopback, scrapes `gpuscope serve
# --replay` of a monitor log (the H200 recording when it is committed, the
# synthetic log until then); e2e_check.py compares what Prometheus holds
# with the log (values, units, labels, the seed's contrast, processes) and
# runs every PromQL expression of the Grafana dashboard. A second serve,
# --compat dcgm, is job "dcgm" (its gpuscope_ series dropped at the scrape,
# so that the checks above see one exporter); e2e_dcgm.py checks its DCGM
# fields and NVIDIA's dashboard's queries (tests/fixtures/dcgm). It replays
# the same log with its processes put in a pod (the names monitor --log
# records from the kubelet's directories), so that its GPU series carry
# dcgm-exporter's namespace, pod and container while they run.
# usage: e2e_prometheus.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
log=$src/tests/fixtures/monitor/h200-zoo.jsonl
[ -f "$log" ] || log=$src/tests/fixtures/monitor/synthetic-2gpu.jsonl
command -v prometheus >/dev/null || die "prometheus missing (scripts/install-deps.sh)"
t=$tmp
spid= ppid_= dpid=
cleanup='[ -n "$spid" ] && kill $spid 2>/dev/null; [ -n "$dpid" ] && kill $dpid 2>/dev/null; [ -n "$ppid_" ] && kill $ppid_ 2>/dev/null; wait 2>/dev/null'
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
sport=$(free_port)
pport=$(free_port)
dport=$(free_port)
# the log's span, played 2x as fast: at 4x the seed's contrast (18 rounds of
# 0.5 s) lasted about 2 scrapes and a busy machine missed them (flaky)
span=$(python3 -c '
import json,sys
ts=[json.loads(l)["ts"] for l in open(sys.argv[1]) if "\"t\":\"s\"" in l]
print(int((max(ts)-min(ts))/1e9/2)+1)' "$log")
python3 -c '
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    for p in o.get("procs", []):
        p.update(pod="0c4b5f5a-7c8e-4d1e-9d4c-1f2e3a4b5c6d", k8s_ns="ml-team", k8s_pod="zoo-0",
                 k8s_container="cuda")
    print(json.dumps(o, separators=(",", ":")))' "$log" >"$t/pods.jsonl"
cat >"$t/prometheus.yml" <<CFG
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: gpuscope
    static_configs:
      - targets: ["127.0.0.1:$sport"]
  - job_name: dcgm
    static_configs:
      - targets: ["127.0.0.1:$dport"]
    metric_relabel_configs:
      - source_labels: [__name__]
        regex: gpuscope_.*
        action: drop
CFG
prometheus --config.file="$t/prometheus.yml" --storage.tsdb.path="$t/data" \
	--web.listen-address=127.0.0.1:$pport --log.level=warn >"$t/prom.log" 2>&1 &
ppid_=$!
# ready, and the target discovered (Prometheus applies targets at most every 5 s)
for _ in $(seq 150); do
	curl -sf "http://127.0.0.1:$pport/api/v1/targets" 2>/dev/null | grep -q "127.0.0.1:$dport" && break
	sleep 0.2
done
# serve starts once Prometheus scrapes: its first rounds are not missed
"$bin" serve --replay "$log" --replay-speed 2 --listen 127.0.0.1:$sport 2>"$t/serve.err" &
spid=$!
"$bin" serve --compat dcgm --replay "$t/pods.jsonl" --replay-speed 2 --listen 127.0.0.1:$dport 2>"$t/dcgm.err" &
dpid=$!
ok "prometheus ready; replaying $(basename "$log") for ${span}s"
sleep $((span + 4))
n=$(curl -sf "http://127.0.0.1:$pport/api/v1/targets" | grep -o '"health":"up"' | wc -l)
[ "$n" = 2 ] && ok "both targets up" || { cat "$t/prom.log"; die "$n targets up"; }
curl -sf "http://127.0.0.1:$dport/metrics" >"$t/dcgm.txt" || bad "GET /metrics of --compat dcgm"
python3 "$src/tests/serve/e2e_check.py" "http://127.0.0.1:$pport" "$log" \
	"$src/deploy/grafana/gpuscope-dashboard.json" "$src/src/gpu/metrics.h" || bad "e2e_check.py"
python3 "$src/tests/serve/e2e_dcgm.py" "http://127.0.0.1:$pport" "$log" "$src/src/gpu/metrics.h" \
	"$src/tests/fixtures/dcgm/dcgm-exporter-dashboard.json" "$t/dcgm.txt" || bad "e2e_dcgm.py"
[ $fail = 0 ] && echo "e2e_prometheus: all passed"
exit $fail
