#!/usr/bin/env bash
# monitor-on-gpu.sh - gpuscope monitor and serve on the H200 during the zoo's
# small_grid and bandwidth_stream (issue 19): the log becomes the fixture the
# CPU tests replay (tests/fixtures/monitor/h200-zoo.jsonl).
#   bash workloads/monitor-on-gpu.sh      (repo root, $OUT set by the device tool)
# Needs, carried from the build machine: .gpu/build/gpuscope (or build/gpuscope),
# .gpu/bin/small_grid and .gpu/bin/bandwidth_stream (workloads/build-zoo.sh).
# Takes BUDGET_S (default 60) seconds and stops within it: 3 s idle, then
# (BUDGET_S - 14) / 2 s of small_grid back to back (GPU-Util high, SM activity
# near 0), as long of bandwidth_stream (DRAM near its roof), 3 s idle. Meanwhile:
#   monitor --log (0.5 s) and --format table; serve (1 s) scraped with curl every
#   2 s; a second monitor --log killed with SIGKILL mid-run, then replayed.
# $OUT gets one file, monitor-results.tar.gz: h200-zoo.jsonl, monitor-table.txt,
# scrapes.txt, killed.jsonl, run.log, summary.txt (the summary is printed last).
# Read-only towards the card: no clock, power, persistence, MIG or reset commands.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
G=${GPUSCOPE:-$PWD/.gpu/build/gpuscope}
[ -x "$G" ] || G=$PWD/build/gpuscope
BIN=${BIN:-$PWD/.gpu/bin}
BUDGET=${BUDGET_S:-60}
PHASE_S=$(((BUDGET - 14) / 2))
[ "$PHASE_S" -ge 4 ] || PHASE_S=4
mkdir -p "$OUT"
W=$(mktemp -d /tmp/gs-monitor-gpu.XXXXXX)
LOG=$W/h200-zoo.jsonl
RUN=$W/run.log
: >"$RUN"
say() { echo "[monitor-on-gpu +${SECONDS}s] $*" | tee -a "$RUN" >&2; }
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done' EXIT

say "$("$G" --version 2>&1 | head -1); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
t0=$(date +%s.%N)
# 0.2 s rounds: bandwidth_stream's kernels run ~0.25 s of each ~0.6 s process, so the
# first run's 0.5 s windows never held the DRAM roof (peak 49.9%)
"$G" monitor --log "$LOG" --interval 0.2 --format table >"$W/monitor-table.txt" 2>>"$RUN" &
mon=$!
pids+=($mon)
"$G" serve --listen 127.0.0.1:0 --interval 1 2>"$W/serve.err" &
srv=$!
pids+=($srv)
url=
for _ in $(seq 50); do
	url=$(sed -n 's/^gpuscope: serving //p' "$W/serve.err")
	[ -n "$url" ] && break
	sleep 0.1
done
say "serve: ${url:-did not start: $(cat "$W/serve.err")}"
# monitor's first frame: the time to the first table row
first_ms=
for _ in $(seq 100); do
	if grep -q '^[0-9][0-9]:' "$W/monitor-table.txt" 2>/dev/null; then
		first_ms=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", (b - a) * 1000 }')
		break
	fi
	sleep 0.01
done
say "monitor first row after ${first_ms:-?} ms (incl. NVML init)"
# serve's steady state starts after its NVML init: CPU time from here on
sleep 1
read -r ut0 st0 < <(awk '{print $14, $15}' "/proc/$srv/stat" 2>/dev/null || echo "0 0")
ts0=$(date +%s.%N)
scrape() {
	local n=0
	while :; do
		{
			echo "# scrape $n at $(date +%s.%N) phase $(cat "$W/.phase" 2>/dev/null)"
			curl -s -m 2 "$url" || echo "# scrape failed"
		} >>"$W/scrapes.txt"
		n=$((n + 1))
		sleep 2
	done
}
echo idle >"$W/.phase"
[ -n "$url" ] && { scrape & pids+=($!); }
sleep 3

run_phase() { # run_phase NAME SECONDS
	local name=$1 end=$((SECONDS + $2)) n=0 bad=0
	echo "$name" >"$W/.phase"
	say "phase $name (${2}s)"
	while [ $SECONDS -lt $end ]; do
		"$BIN/$name" >>"$RUN" 2>&1 || bad=$((bad + 1))
		n=$((n + 1))
	done
	say "phase $name: $n runs, $bad failed"
}
run_phase small_grid "$PHASE_S"
# the crash test: a second logger killed with SIGKILL while the GPU works
"$G" monitor --log "$W/killed.jsonl" --interval 0.2 --format table >/dev/null 2>&1 &
kp=$!
pids+=($kp)
run_phase bandwidth_stream "$PHASE_S"
kill -9 "$kp" 2>/dev/null
wait "$kp" 2>/dev/null
echo idle >"$W/.phase"
sleep 3

# serve's cost over the run: CPU time and RSS at 1 Hz sampling of this GPU
read -r ut st < <(awk '{print $14, $15}' "/proc/$srv/stat")
hz=$(getconf CLK_TCK)
alive=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
steady=$(awk -v a="$ts0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
rss=$(awk '/VmRSS/ {print $2}' "/proc/$srv/status")
serve_cpu=$(awk -v u="$ut" -v s="$st" -v hz="$hz" -v t="$alive" 'BEGIN { printf "%.2f", 100 * (u + s) / hz / t }')
serve_steady=$(awk -v u="$ut" -v s="$st" -v u0="$ut0" -v s0="$st0" -v hz="$hz" -v t="$steady" \
	'BEGIN { printf "%.2f", 100 * (u + s - u0 - s0) / hz / t }')
grep -E 'Vm(RSS|HWM)|Rss(Anon|File)|Threads' "/proc/$srv/status" >>"$RUN"
say "serve: ${serve_cpu}% of a core over ${alive}s (after init: ${serve_steady}% over ${steady}s), RSS ${rss} KiB"
read -r mut mst < <(awk '{print $14, $15}' "/proc/$mon/stat")
mon_cpu=$(awk -v u="$mut" -v s="$mst" -v hz="$hz" -v t="$alive" 'BEGIN { printf "%.2f", 100 * (u + s) / hz / t }')
kill -TERM "$mon" "$srv"
wait "$mon" 2>/dev/null
mrc=$?
wait "$srv" 2>/dev/null
src=$?
say "monitor exit $mrc (SIGTERM), serve exit $src (SIGTERM); monitor at 2 Hz: ${mon_cpu}% of a core"
"$G" monitor --replay "$W/killed.jsonl" --format csv >"$W/.killed.csv" 2>"$W/.killed.err"
krc=$?
say "replay of the SIGKILLed log: exit $krc, $(($(wc -l <"$W/.killed.csv") - 1)) rows; $(cat "$W/.killed.err")"
cat "$W/serve.err" >>"$RUN"
rm -f "$W/.phase" "$W/.killed.csv" "$W/.killed.err" "$W/serve.err"

# the summary: the seed's contrast, from the log and from the scrapes
python3 - "$LOG" "$W/scrapes.txt" >"$W/summary.txt" <<'PY'
import json, re, sys
try:
    rounds = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"t":"s"')]
except (OSError, ValueError) as e:
    rounds = []
    print("log unreadable: %s" % e)
if not rounds:
    print("NO ROUNDS LOGGED (see run.log)")
    sys.exit(0)
gpus = sorted({r["gpu"] for r in rounds})
print("rounds: %d over %d GPU(s)" % (len(rounds) // max(1, len(gpus)), len(gpus)))
def show(desc, pred):
    hit = [r["v"] for r in rounds if pred(r["v"])]
    print("%-58s %4d rounds" % (desc, len(hit)))
    return hit
c = show("GPU-Util >= 80% with GPM SM activity < 10% (small_grid):",
         lambda v: v.get("gpu_util", 0) >= 80 and v.get("gpm_sm_util", 100) < 10)
if c:
    print("   e.g. GPU-Util %(gpu_util).0f%%, SM activity %(gpm_sm_util).2f%%, DRAM %(gpm_dram_bw_util).2f%%" % c[len(c) // 2])
d = show("GPM DRAM bandwidth >= 80% (bandwidth_stream):", lambda v: v.get("gpm_dram_bw_util", 0) >= 80)
if d:
    print("   max DRAM %.1f%% of peak, SM activity then %.1f%%" % max(
        (v["gpm_dram_bw_util"], v.get("gpm_sm_util", -1)) for v in d))
last = rounds[-1]["v"]
known = sorted(last)
print("metrics known in the last round: %d: %s" % (len(known), " ".join(known)))
procs = {p["pid"]: p.get("comm", "?") for r in rounds for p in r.get("procs", [])}
print("processes seen: %s" % ", ".join("%s %s" % kv for kv in sorted(procs.items())[:8]))
try:
    s = open(sys.argv[2], errors="replace").read().split("# scrape ")[1:]
except OSError:
    s = []
hit = 0
for block in s:
    u = re.search(r'^gpuscope_gpu_utilization_ratio\{[^}]*gpu="0"[^}]*\} (\S+)', block, re.M)
    a = re.search(r'^gpuscope_sm_active_ratio\{[^}]*gpu="0"[^}]*\} (\S+)', block, re.M)
    if u and a and float(u.group(1)) >= 0.8 and float(a.group(1)) < 0.1:
        hit += 1
print("scrapes: %d, of which %d show gpu_utilization_ratio >= 0.8 with sm_active_ratio < 0.1" % (len(s), hit))
PY
{
	echo "monitor first row: ${first_ms:-?} ms after start (target < 200 ms plus NVML init)"
	echo "serve at 1 Hz: ${serve_steady}% of a core after NVML init, ${serve_cpu}% with it (target < 1%)"
	echo "serve RSS ${rss} KiB (target < 20 MiB)"
	echo "monitor at 2 Hz (table + log): ${mon_cpu}% of a core"
	echo "SIGKILLed log replayed: exit $krc"
} >>"$W/summary.txt"
tar -C "$W" -czf "$OUT/monitor-results.tar.gz" h200-zoo.jsonl monitor-table.txt scrapes.txt \
	killed.jsonl run.log summary.txt
say "done in ${SECONDS}s (budget ${BUDGET}s): $OUT/monitor-results.tar.gz"
cat "$W/summary.txt"
rm -rf "$W"
