#!/usr/bin/env bash
# monitor-on-gpu.sh - gpuscope monitor and serve on the H200 during the zoo's
# small_grid and bandwidth_stream (issue 19), measuring every target of the issue:
#   BUDGET_S=60 bash workloads/monitor-on-gpu.sh    (repo root, $OUT set by the device tool)
# Needs, carried from the build machine: .gpu/build/gpuscope (or build/gpuscope),
# .gpu/bin/small_grid and .gpu/bin/bandwidth_stream (workloads/build-zoo.sh; a
# bandwidth_stream with --seconds streams for whole seconds, an older one runs as it is).
# Takes BUDGET_S (default 60) seconds and stops within it:
#   1. monitor's first row: 5 fresh `monitor --count 1` runs (spawn to row, with
#      --progress's phases) and nvmlInit alone; NVML's cost per query (probe.py)
#   2. monitor --log (0.2 s rounds) and serve (1 s) scraped with curl every 1 s;
#      3 s idle, (BUDGET_S - 22) / 2 s of small_grid back to back (GPU-Util high,
#      SM activity near 0), as long of bandwidth_stream --seconds 3 (DRAM near its
#      roof), 3 s idle; a second monitor --log killed with SIGKILL mid-run, replayed
#   3. serve's CPU after its start (1 Hz sampling and scraping), RSS, per thread and
#      per mapping
# $OUT gets one file, monitor-results.tar.gz: h200-zoo.jsonl, monitor-table.txt,
# scrapes.txt, killed.jsonl, phases.txt, run.log, summary.txt; the short table is
# printed last (first-row ms, serve CPU % at 1 Hz, serve RSS MiB, small_grid's
# contrast rounds, bandwidth_stream's DRAM peak).
# Read-only towards the card: no clock, power, persistence, MIG or reset commands.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
G=${GPUSCOPE:-$PWD/.gpu/build/gpuscope}
[ -x "$G" ] || G=$PWD/build/gpuscope
BIN=${BIN:-$PWD/.gpu/bin}
PROBE=$PWD/workloads/monitor/probe.py
BUDGET=${BUDGET_S:-60}
PHASE_S=$(((BUDGET - 22) / 2))
[ "$PHASE_S" -ge 4 ] || PHASE_S=4
mkdir -p "$OUT"
W=$(mktemp -d /tmp/gs-monitor-gpu.XXXXXX)
LOG=$W/h200-zoo.jsonl
RUN=$W/run.log
: >"$RUN"
: >"$W/phases.txt"
say() { echo "[monitor-on-gpu +${SECONDS}s] $*" | tee -a "$RUN" >&2; }
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done' EXIT
now_ns() { date +%s%N; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
cpu_ns() { # CPU ns of a process's live threads (schedstat: finer than ticks)
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'
}
life_pct() { # life_pct PID: % of a core over the process's whole life
	local up start
	up=$(cut -d' ' -f1 /proc/uptime)
	start=$(awk '{print $22}' "/proc/$1/stat" 2>/dev/null) || return
	awk -v c="$(cpu_ticks "$1")" -v hz="$(getconf CLK_TCK)" -v up="$up" -v st="$start" \
		'BEGIN { printf "%.2f", 100 * c / hz / (up - st / hz) }'
}

say "$("$G" --version 2>&1 | head -1); $(nvidia-smi --query-gpu=name,driver_version,mig.mode.current --format=csv,noheader 2>&1 | head -1)"
# 1. the first row, before anything else uses the GPU
timeout 20 python3 "$PROBE" first-row "$G" 5 >"$W/first-row.txt" 2>&1
cat "$W/first-row.txt" >>"$RUN"
first_ms=$(sed -n 's/^first-row ms: median \([0-9.]*\).*/\1/p' "$W/first-row.txt")
say "monitor first row: ${first_ms:-?} ms; $(sed -n 's/^first-row phases of the median run: //p' "$W/first-row.txt")"
timeout 15 python3 "$PROBE" nvml-cost >"$W/nvml-cost.txt" 2>&1
cat "$W/nvml-cost.txt" >>"$RUN"
say "nvml per round: $(grep '^TOTAL' "$W/nvml-cost.txt")"

# 2. the run
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
# serve's steady state starts after its NVML init and first rounds
sleep 2
c0=$(cpu_ns "$srv")
ts0=$(now_ns)
scrape() {
	local n=0
	while :; do
		{
			echo "# scrape $n at $(date +%s.%N) phase $(cat "$W/.phase" 2>/dev/null)"
			curl -s -m 2 "$url" || echo "# scrape failed"
		} >>"$W/scrapes.txt"
		n=$((n + 1))
		sleep 1
	done
}
echo idle >"$W/.phase"
[ -n "$url" ] && { scrape & pids+=($!); }
sleep 3

bw_args=()
grep -aq -- "--seconds S" "$BIN/bandwidth_stream" 2>/dev/null && bw_args=(--seconds 3)
run_phase() { # run_phase NAME SECONDS [ARGS...]
	local name=$1 end=$((SECONDS + $2)) n=0 bad=0 a
	shift 2
	echo "$name" >"$W/.phase"
	say "phase $name (${PHASE_S}s) $*"
	a=$(now_ns)
	while [ $SECONDS -lt $end ]; do
		"$BIN/$name" "$@" >>"$RUN" 2>&1 || bad=$((bad + 1))
		n=$((n + 1))
	done
	echo "$name $a $(now_ns)" >>"$W/phases.txt"
	say "phase $name: $n runs, $bad failed"
}
run_phase small_grid "$PHASE_S"
# the crash test: a second logger killed with SIGKILL while the GPU works
"$G" monitor --log "$W/killed.jsonl" --interval 0.2 --format table >/dev/null 2>&1 &
kp=$!
pids+=($kp)
run_phase bandwidth_stream "$PHASE_S" "${bw_args[@]}"
kill -9 "$kp" 2>/dev/null
wait "$kp" 2>/dev/null
echo idle >"$W/.phase"
sleep 3

# 3. serve's cost: CPU after its start, RSS, per thread and per mapping
c1=$(cpu_ns "$srv")
ts1=$(now_ns)
serve_cpu=$(awk -v a="$c0" -v b="$c1" -v t0="$ts0" -v t1="$ts1" \
	'BEGIN { printf "%.2f", 100 * (b - a) / (t1 - t0) }')
serve_all=$(life_pct "$srv")
rss=$(awk '/VmRSS/ {print $2}' "/proc/$srv/status")
rss_mib=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
{
	grep -E 'Vm(RSS|HWM)|Rss(Anon|File|Shmem)|Threads' "/proc/$srv/status"
	python3 "$PROBE" threads "$srv"
	python3 "$PROBE" rss "$srv"
	echo "monitor (0.2 s rounds, table + log):"
	python3 "$PROBE" threads "$mon"
} >>"$RUN" 2>&1
say "serve: ${serve_cpu}% of a core after start over $(((ts1 - ts0) / 1000000000))s (${serve_all}% over its life), RSS ${rss_mib} MiB"
mon_cpu=$(life_pct "$mon")
kill -TERM "$mon" "$srv"
wait "$mon" 2>/dev/null
mrc=$?
wait "$srv" 2>/dev/null
src=$?
say "monitor exit $mrc (SIGTERM), serve exit $src (SIGTERM); monitor at 5 Hz: ${mon_cpu}% of a core"
"$G" monitor --replay "$W/killed.jsonl" --format csv >"$W/.killed.csv" 2>"$W/.killed.err"
krc=$?
say "replay of the SIGKILLed log: exit $krc, $(($(wc -l <"$W/.killed.csv") - 1)) rows; $(cat "$W/.killed.err")"
cat "$W/serve.err" >>"$RUN"
rm -f "$W/.phase" "$W/.killed.csv" "$W/.killed.err" "$W/serve.err"

python3 "$PROBE" summary "$LOG" "$W/phases.txt" "$W/scrapes.txt" >"$W/summary.txt" 2>&1
{
	cat "$W/first-row.txt"
	echo "serve at 1 Hz: ${serve_cpu}% of a core after start, ${serve_all}% over its life; RSS ${rss_mib} MiB"
	echo "monitor at 5 Hz (table + log): ${mon_cpu}% of a core"
	echo "SIGKILLed log replayed: exit $krc"
} >>"$W/summary.txt"
tar -C "$W" -czf "$OUT/monitor-results.tar.gz" h200-zoo.jsonl monitor-table.txt scrapes.txt \
	killed.jsonl phases.txt run.log summary.txt
say "done in ${SECONDS}s (budget ${BUDGET}s): $OUT/monitor-results.tar.gz"
cat "$W/summary.txt"
sg=$(sed -n 's/^small_grid: \([0-9]* of [0-9]*\) rounds.*/\1/p' "$W/summary.txt")
dram=$(sed -n 's/^bandwidth_stream: .*GPM DRAM peak \([0-9.?]*\)%.*/\1/p' "$W/summary.txt")
echo
printf '%-52s %12s %10s\n' "target (issue 19)" measured target
printf '%-52s %12s %10s\n' "monitor first row, ms (median of 5 runs)" "${first_ms:-?}" "<= 200"
printf '%-52s %12s %10s\n' "serve CPU at 1 Hz, % of a core (after start)" "${serve_cpu:-?}" "<= 1"
printf '%-52s %12s %10s\n' "serve RSS, MiB" "${rss_mib:-?}" "<= 20"
printf '%-52s %12s %10s\n' "small_grid rounds GPU-Util>=80% with SM<10%" "${sg:-?}" "> 0"
printf '%-52s %12s %10s\n' "bandwidth_stream GPM DRAM peak, %" "${dram:-?}" ">= 80"
rm -rf "$W"
