#!/usr/bin/env bash
# gpuscope serve from the command line: /metrics from a replayed log is clean
# for promtool and carries what the log says (MIG instance series included);
# /health; HEAD; hostile HTTP (hostile.py); bad logs and bad --listen;
# SIGTERM ends it with 0; without a GPU it stays up and picks one up later.
# usage: serve_cli.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
log=$src/tests/fixtures/monitor/synthetic-2gpu.jsonl
t=$tmp
pid=
cleanup='[ -n "$pid" ] && kill "$pid" 2>/dev/null'

start() { # start ARGS...: serve in the background, sets pid and url
	"$bin" serve --listen 127.0.0.1:0 "$@" 2>"$t/serve.err" &
	pid=$!
	for _ in $(seq 50); do
		url=$(sed -n 's/^gpuscope: serving //p' "$t/serve.err")
		[ -n "$url" ] && return 0
		sleep 0.1
	done
	bad "serve did not start: $(cat "$t/serve.err")"
	return 1
}

fetch() { # fetch FILE PATTERN: GET /metrics until it holds PATTERN (30 s at most: CI's clean
	# clone on a loaded 2-core machine once missed the MIG series in 10 s)
	for _ in $(seq 300); do
		curl -sf --max-time 5 "$url" >"$1" && grep -q -- "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}

start --replay "$log" --replay-speed 100 --timeout 2 --max-connections 64 || exit 1
sleep 1 # the 40 rounds at 100x
curl -sf "$url" >"$t/m1" && ok "GET /metrics" || bad "GET /metrics"
if command -v promtool >/dev/null; then
	promtool check metrics <"$t/m1" >"$t/lint" 2>&1 && ok "promtool check metrics clean" ||
		{ bad "promtool: $(cat "$t/lint")"; }
else
	bad "promtool missing (scripts/install-deps.sh installs prometheus)"
fi
# the last round of the log, as the log says it (ratios, base units, labels)
g0='gpu="0",UUID="GPU-5y0t4e7c-0000-0000-0000-000000000000",pci_bus_id="00000000:19:00.0",device="nvidia0",model_name="NVIDIA H200",hostname="synthetic",driver_version="580.159.04"'
for want in "gpuscope_dram_active_ratio{$g0} 0.8825" "gpuscope_sm_active_ratio{$g0} 0.965" \
	"gpuscope_gpu_utilization_ratio{$g0} 1" "gpuscope_sm_clock_hertz{$g0} 1980000000" \
	"gpuscope_energy_joules_total{$g0} 1011275" "# TYPE gpuscope_energy_joules_total counter" \
	"# TYPE gpuscope_xid_errors_total counter" 'gpuscope_xid_last_code{gpu="1",' \
	"gpuscope_clock_event_reason_active{$g0,reason=\"sw_power_cap\"} 0" \
	"gpuscope_process_memory_used_bytes{$g0,pid=\"4242\",command=\"bandwidth_strea\",container_id=\"3f4e5d6c7b8a99887766554433221100ffeeddccbbaa99887766554433221100\",pod_uid=\"0c4b5f5a-7c8e-4d1e-9d4c-1f2e3a4b5c6d\"} 1069547520"; do
	grep -qF -- "$want" "$t/m1" && ok "has $want" || bad "lacks $want"
done
# unknown is omitted, never 0: the log has no fp16 for... every GPU has it; no PCIe replay counter unknowns
grep -q 'gpuscope_xid_last_code{gpu="0"' "$t/m1" && bad "xid_last of gpu 0 is unknown, not 0" || ok "unknown omitted"
code=$(curl -s -o "$t/h" -w '%{http_code}' "${url%/metrics}/health")
[ "$code" = 200 ] && grep -q '^ok' "$t/h" && ok "/health" || bad "/health $code"
curl -sI "$url" >"$t/head" && grep -q '^HTTP/1.1 200' "$t/head" && ok "HEAD" || bad "HEAD"
port=${url##*:}
port=${port%%/*}
python3 "$src/tests/serve/hostile.py" 127.0.0.1 "$port" 2 64 || fail=1
kill -0 "$pid" 2>/dev/null && ok "still running after the hostile cases" || bad "serve died"
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
[ $rc = 0 ] && ok "SIGTERM: exit 0" || bad "SIGTERM: exit $rc"

# MIG instances from a log: their series beside the GPU's, promtool clean
start --replay "$src/tests/fixtures/monitor/synthetic-mig.jsonl" --replay-speed 100 || exit 1
sleep 1
fetch "$t/mig" 'GPU_I_ID=' && ok "GET /metrics of a MIG log" || bad "GET /metrics of a MIG log"
promtool check metrics <"$t/mig" >"$t/lint" 2>&1 && ok "MIG: promtool check metrics clean" ||
	bad "MIG: promtool: $(cat "$t/lint")"
for want in "gpuscope_dram_active_ratio{$g0} 0.8825" \
	"gpuscope_dram_active_ratio{$g0,GPU_I_PROFILE=\"3g.71gb\",GPU_I_ID=\"1\",MIG_UUID=\"MIG-5y0t4e7c-0001-0000-0000-000000000000\"} 0.8825" \
	"gpuscope_memory_total_bytes{$g0,GPU_I_PROFILE=\"1g.18gb\",GPU_I_ID=\"5\",MIG_UUID=\"MIG-5y0t4e7c-0005-0000-0000-000000000000\"} 19327352832"; do
	grep -qF -- "$want" "$t/mig" && ok "has $want" || bad "lacks $want"
done
# 6 values of instance 1, 4 of instance 5
n=$(grep -c 'GPU_I_ID=' "$t/mig")
[ "$n" = 10 ] && ok "10 instance series" || bad "$n instance series, want 10"
kill "$pid"
wait "$pid" 2>/dev/null
pid=

# --hostname (the node's name in a pod) wins over the log's host
start --replay "$log" --replay-speed 100 --hostname node-7 || exit 1
fetch "$t/host" '^gpuscope_gpu_info{' && grep -q '^gpuscope_gpu_info{gpu="0",.*,hostname="node-7",' "$t/host" &&
	ok "--hostname node-7" || bad "--hostname not used"
kill "$pid"
wait "$pid" 2>/dev/null
pid=

# a log whose processes are in a pod (monitor --log's k8s_* keys), a second one beside each:
# the names on the process and GPU series, dcgm-exporter's with --labels dcgm, promtool clean;
# --max-process-series 3 keeps the first process's three series and counts the second's
python3 -c '
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    for p in o.get("procs", []):
        p.update(k8s_ns="ml-team", k8s_pod="trainer-0", k8s_container="pytorch")
    if o.get("procs"):
        o["procs"].append(dict(o["procs"][0], pid=4243))
        o["procs_total"] = len(o["procs"])
    print(json.dumps(o))' "$log" >"$t/pods.jsonl"
start --replay "$t/pods.jsonl" --replay-speed 100 --labels dcgm --max-process-series 3 || exit 1
fetch "$t/pods" 'gpuscope_process_series_dropped_total [1-9]' && ok "GET /metrics of a log with pods" ||
	bad "GET /metrics of a log with pods: $(grep dropped "$t/pods")"
promtool check metrics <"$t/pods" >"$t/lint" 2>&1
grep -v "camelCase" "$t/lint" | grep -q . && bad "pods: promtool: $(cat "$t/lint")" || ok "pods: promtool clean"
grep -q '^gpuscope_process_memory_used_bytes{.*,pod_uid="0c4b5f5a-7c8e-4d1e-9d4c-1f2e3a4b5c6d",namespace="ml-team",pod="trainer-0",container="pytorch"} 1069547520$' "$t/pods" &&
	ok "a process's pod, dcgm-exporter's names" || bad "no process pod labels: $(grep process_memory "$t/pods")"
grep -q '^gpuscope_gpu_utilization_ratio{gpu="0",.*,namespace="ml-team",pod="trainer-0",container="pytorch"} 1$' "$t/pods" &&
	ok "GPU 0's series carry its one pod" || bad "GPU 0 has no pod: $(grep '^gpuscope_gpu_utilization_ratio' "$t/pods")"
grep '^gpuscope_gpu_utilization_ratio{gpu="1",' "$t/pods" | grep -q 'pod=' && bad "GPU 1 (no process) has a pod" || ok "GPU 1, no process: no pod"
n=$(grep -c '^gpuscope_process_.*pid="4242"' "$t/pods")
m=$(grep -c '^gpuscope_process_.*pid="4243"' "$t/pods")
[ "$n" = 3 ] && [ "$m" = 0 ] && ok "--max-process-series 3: the first process's 3 series, not the second's" ||
	bad "--max-process-series 3: $n and $m series"
kill "$pid"
wait "$pid" 2>/dev/null
pid=

# bad input: one line, non-zero, no hang
head -c 100000 /dev/urandom >"$t/random"
mkfifo "$t/fifo"
for f in "$t/random" "$t/fifo" /dev/zero "$t" "$t/none"; do
	timeout 10 "$bin" serve --listen 127.0.0.1:0 --replay "$f" 2>"$t/err" >/dev/null
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$t/err")" = 1 ] && ok "--replay $f: $(cat "$t/err")" ||
		bad "--replay $f: exit $rc: $(cat "$t/err")"
done
head -c -300 "$log" >"$t/cut.jsonl"
start --replay "$t/cut.jsonl" --replay-speed 100 || exit 1
sleep 0.8
grep -q "1 of 83 lines unreadable and skipped (first: line 83; the last line is cut)" "$t/serve.err" &&
	ok "cut log named" || bad "cut log: $(cat "$t/serve.err")"
curl -sf "$url" | grep -q 'gpuscope_gpu_info' && ok "cut log served" || bad "cut log not served"
kill "$pid"
wait "$pid" 2>/dev/null
pid=
for l in "1.2.3.4" "127.0.0.1:99999" "localhost:80" "[::1" ":" "127.0.0.1:x"; do
	timeout 5 "$bin" serve --listen "$l" --replay "$log" 2>"$t/err" >/dev/null
	[ $? = 1 ] && ok "--listen '$l' refused" || bad "--listen '$l'"
done
# no GPU (no libnvidia-ml.so.1 where the loader looks): serve stays up with
# gpuscope_up 0, the reason and /health 503, then picks up the driver once
# it appears (the fake NVML copied in; --retry 0.5 doubles to 1, 2 s)
mkdir -p "$t/nvml"
LD_LIBRARY_PATH=$t/nvml start --retry 0.5 --interval 0.2 || exit 1
fetch "$t/down" '^gpuscope_up' && ok "no GPU: GET /metrics answers" || bad "no GPU: /metrics"
grep -qx 'gpuscope_up 0' "$t/down" && grep -q '^gpuscope_unavailable_info{hostname=".*",reason=".*libnvidia-ml.so.1.*"} 1$' "$t/down" &&
	ok "no GPU: gpuscope_up 0 with the reason" || bad "no GPU: $(cat "$t/down")"
promtool check metrics <"$t/down" >"$t/lint" 2>&1 && ok "no GPU: promtool clean" || bad "no GPU: promtool: $(cat "$t/lint")"
code=$(curl -s -o "$t/h" -w '%{http_code}' "${url%/metrics}/health")
[ "$code" = 503 ] && grep -q '^no GPU: .*libnvidia-ml' "$t/h" && ok "no GPU: /health 503: $(cat "$t/h")" || bad "no GPU: /health $code $(cat "$t/h")"
cp "$(dirname "$bin")/fake-nvml/libnvidia-ml.so.1" "$t/nvml/"
for _ in $(seq 60); do
	curl -sf "$url" >"$t/up" && grep -qx 'gpuscope_up 1' "$t/up" && grep -q "^gpuscope_temperature_celsius{" "$t/up" && break
	sleep 0.1
done
grep -qx 'gpuscope_up 1' "$t/up" && grep -q "^gpuscope_temperature_celsius{" "$t/up" && ! grep -q "^gpuscope_unavailable_info" "$t/up" &&
	ok "the driver appears: picked up on a retry" || bad "not picked up: $(head -5 "$t/up")"
code=$(curl -s -o "$t/h" -w '%{http_code}' "${url%/metrics}/health")
[ "$code" = 200 ] && ok "/health 200 once read" || bad "/health $code after the pick-up"
grep -q 'GPU(s) found' "$t/serve.err" && ok "stderr says so" || bad "stderr: $(cat "$t/serve.err")"
kill "$pid"
wait "$pid" 2>/dev/null
pid=
[ $fail = 0 ] && echo "serve_cli: all passed"
exit $fail
