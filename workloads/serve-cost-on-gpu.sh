#!/usr/bin/env bash
# serve-cost-on-gpu.sh - what `gpuscope serve` costs on a real GPU (issue 19's
# bench targets: 1 Hz sampling of one GPU < 1% of a core, RSS < 20 MiB), with
# the variants that say where it goes, side by side in one run:
#   BUDGET_S=100 bash workloads/serve-cost-on-gpu.sh   (repo root; $OUT set by the device tool)
# Needs, carried from the build machine: .gpu/build/gpuscope (or build/gpuscope).
# Variants, all started together and measured over the same window
# (MEASURE_S, default BUDGET_S - 25) after WARM_S (default 8) s:
#   default      gpuscope serve (1 Hz, slow counters every 5 s, CUDA version in a child)
#   counters0    --counters-interval 0 (every counter every reading: the old cost)
#   arena1       default with MALLOC_ARENA_MAX=1 (glibc's per-thread arenas' share)
#   replay       --replay of the committed H200 log (no NVML at all: gpuscope's own part)
# Each is scraped once a second (curl), as Prometheus would at a 1 s interval.
# Per variant: % of one core (utime+stime over the window, /proc/PID/stat), RSS,
# RssAnon, RssFile (/proc/PID/status), the largest mappings by Rss (smaps) and
# whether libcuda is mapped. $OUT/servecost/ gets results.tar.gz and table.txt
# (printed last). Read-only towards the card.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
G=${GPUSCOPE:-$PWD/.gpu/build/gpuscope}
[ -x "$G" ] || G=$PWD/build/gpuscope
BUDGET=${BUDGET_S:-100}
WARM=${WARM_S:-8}
MEASURE=${MEASURE_S:-$((BUDGET - WARM - 17))}
LOG=$PWD/tests/fixtures/monitor/h200-zoo-dram.jsonl
W=$(mktemp -d /tmp/gs-servecost.XXXXXX)
mkdir -p "$OUT/servecost"
HZ=$(getconf CLK_TCK)

declare -A PID PORT
start() { # NAME PORT ENV... -- ARGS...
	local name=$1 port=$2
	shift 2
	local envs=()
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	env "${envs[@]}" "$G" serve --listen "127.0.0.1:$port" "$@" >"$W/$name.out" 2>&1 &
	PID[$name]=$!
	PORT[$name]=$port
}

ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
status_kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

start default 19401 X=1 --
start counters0 19402 X=1 -- --counters-interval 0
start arena1 19403 MALLOC_ARENA_MAX=1 --
start replay 19404 X=1 -- --replay "$LOG" --replay-speed 0.05
NAMES="default counters0 arena1 replay"

# scrape each once a second for the whole run
(
	while :; do
		for n in $NAMES; do
			curl -s -o /dev/null "http://127.0.0.1:${PORT[$n]}/metrics" &
		done
		sleep 1
	done
) &
SCRAPER=$!

sleep "$WARM"
declare -A T0
for n in $NAMES; do T0[$n]=$(ticks "${PID[$n]}"); done
t0=$(date +%s.%N)
sleep "$MEASURE"
t1=$(date +%s.%N)
{
	echo "== gpuscope serve on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), $(nproc) CPUs"
	echo "cpu%: one core over ${MEASURE} s after ${WARM} s, scraped every 1 s; MiB from /proc/PID/status"
	printf '%-10s %6s %7s %8s %8s %8s %s\n' variant cpu% rss rss_anon rss_file libcuda state
} >"$W/table.txt"
for n in $NAMES; do
	p=${PID[$n]}
	t=$(ticks "$p")
	cpu=$(echo "$t ${T0[$n]} $t1 $t0 $HZ" | awk '{printf "%.3f", 100 * ($1 - $2) / $5 / ($3 - $4)}')
	rss=$(status_kb "$p" VmRSS)
	anon=$(status_kb "$p" RssAnon)
	file=$(status_kb "$p" RssFile)
	cuda=no
	grep -q libcuda "/proc/$p/maps" 2>/dev/null && cuda=yes
	state=$(kill -0 "$p" 2>/dev/null && echo running || echo exited)
	echo "$n $cpu ${rss:-0} ${anon:-0} ${file:-0} $cuda $state" |
		awk '{printf "%-10s %6s %7.1f %8.1f %8.1f %8s %s\n", $1, $2, $3 / 1024, $4 / 1024, $5 / 1024, $6, $7}' \
		>>"$W/table.txt"
	# the largest mappings by Rss
	awk '/^[0-9a-f]+-[0-9a-f]+ / {name = ($6 == "" ? "[anon]" : $6)} /^Rss:/ {rss[name] += $2}
		END {for (k in rss) printf "%8d kB  %s\n", rss[k], k}' "/proc/$p/smaps" 2>/dev/null |
		sort -rn | head -12 >"$W/$n.smaps.txt"
	cat "/proc/$p/status" >"$W/$n.status.txt" 2>/dev/null
	for t in /proc/"$p"/task/*; do
		echo "$(cat "$t/comm" 2>/dev/null) $(awk '{print $14 + $15}' "$t/stat" 2>/dev/null)"
	done >"$W/$n.threads.txt"
	curl -s "http://127.0.0.1:${PORT[$n]}/metrics" >"$W/$n.metrics.txt"
done
kill "$SCRAPER" 2>/dev/null
for n in $NAMES; do kill -TERM "${PID[$n]}" 2>/dev/null; done
wait 2>/dev/null
{
	for n in $NAMES; do
		echo "-- $n: largest mappings (Rss); threads (name ticks)"
		sed 's/^/  /' "$W/$n.smaps.txt"
		sed 's/^/  thread /' "$W/$n.threads.txt"
	done
	echo "-- default's gpu_info and energy series"
	grep -E '^gpuscope_(gpu_info|energy_joules_total)' "$W/default.metrics.txt" | head -3
	echo "targets: cpu% < 1 at 1 Hz (default), rss < 20 MiB"
} >>"$W/table.txt"
tar -C "$W" -czf "$OUT/servecost/results.tar.gz" .
cp "$W/table.txt" "$OUT/servecost/table.txt"
cat "$W/table.txt"
