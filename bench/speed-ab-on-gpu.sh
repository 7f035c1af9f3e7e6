#!/usr/bin/env bash
# bench/speed-ab-on-gpu.sh - issue 38's speed targets on the GPU host in one device call, and a
# side-by-side of two gpuscope binaries on the same inputs:
#   bash bench/speed-ab-on-gpu.sh [PREV_BINARY]   (repo root; carry .gpu and .whl)
# 1. bench/speed-on-gpu.sh (its inputs made there; json, gz, db on SPEED_CPUS (2,3) and json, db
#    on SPEED_CPUS2 (8-15); HTA on the first set, HTA_REPS runs), budget SPEED_S (360 s).
# 2. bench/ab-report.sh on its big.json, AB_N (5) interleaved rounds of PREV_BINARY (default
#    .gpu/prev/gpuscope: main before the session's changes) against .gpu/build/gpuscope, pinned
#    to each set in turn: what the changes gave on 2 and on 8 CPUs, the load on both alike.
# Everything under $OUT (speed-h200.tar.gz from step 1, ab.txt); the tables last on stdout.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
prev=${1:-.gpu/prev/gpuscope}
set1=${SPEED_CPUS:-2,3}
set2=${SPEED_CPUS2:-8-15}
export WORK=${WORK:-/tmp/gs-speed}
BUDGET_S=${SPEED_S:-360} SPEED_CPUS=$set1 SPEED_CPUS2=$set2 CASES=${CASES:-json gz db hta} \
	CASES2=${CASES2:-json db} MULTI=${MULTI:-0} HTA_REPS=${HTA_REPS:-2} \
	bash bench/speed-on-gpu.sh .gpu/build >"$OUT/speed.txt" 2>&1
echo "speed-on-gpu rc=$?" >>"$OUT/speed.txt"
: >"$OUT/ab.txt"
if [ -f "$WORK/big.json" ] && [ -x "$prev" ]; then
	for set in "$set1" "$set2"; do
		echo "== CPUs $set: $prev against .gpu/build/gpuscope on big.json" >>"$OUT/ab.txt"
		LD_LIBRARY_PATH=$PWD/.gpu/build taskset -c "$set" bash bench/ab-report.sh "$WORK/big.json" \
			"${AB_N:-5}" "$prev" .gpu/build/gpuscope >>"$OUT/ab.txt" 2>&1
		GPUSCOPE_TIMING=passes taskset -c "$set" .gpu/build/gpuscope report "$WORK/big.json" \
			--format json 2>>"$OUT/ab.txt" >/dev/null
	done
else
	echo "no $WORK/big.json or no $prev: side-by-side skipped" >>"$OUT/ab.txt"
fi
tail -40 "$OUT/speed.txt"
grep -v "^gpuscope passes" "$OUT/ab.txt" | tail -12
