#!/usr/bin/env bash
# counters/run-on-gpu.sh - issue 18's proof on the H200, in one call:
#   bash workloads/counters/run-on-gpu.sh      (repo root, $OUT set by the device tool)
# Carried from the build machine: build/gpuscope, build/libgpuscope-inject.so,
# build/libgpuscope-preload.so, .gpu/bin/* (workloads/build-zoo.sh builds the
# zoo and workloads/counters/signatures.cu).
# For each program (the designed-signature kernels and the zoo's counter
# cases): its wall time untraced, under `gpuscope record --metrics kernels`,
# and under `ncu --clock-control none` with the same metric list (first
# launch of each kernel on both sides); then compare.py's table of every
# metric side by side, report's verdicts, and a torch.profiler trace with
# its experimental CUPTI counters for the importer. Results in
# $OUT/counters.tar.gz; the summary table is printed last.
# Read-only towards the card: no clock, power, persistence, MIG or reset commands
# (ncu is told --clock-control none so that it leaves the clocks alone too).
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
RES=${RES:-/tmp/gpuscope-counters}
G=${GPUSCOPE:-$PWD/build/gpuscope}
BIN=${BIN:-$PWD/.gpu/bin}
PY=${PYTHON:-python3}
BUDGET=${BUDGET_S:-300}
export PATH="/usr/local/cuda/bin:/opt/nvidia/nsight-compute/2025.3.1:$PATH"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
rm -rf "$RES"
mkdir -p "$OUT" "$RES"
PROGS=${PROGS:-"signatures divergent_warps bank_conflicts uncoalesced coalesced bandwidth_stream fma_bound"}
METRICS=$(grep -o '"[a-z0-9_]*__[a-z0-9_.]*"' src/gpu/kernel_metrics.h | tr -d '"' | paste -sd, -)

log() { echo "[counters +${SECONDS}s] $*" >&2; }
wall() { # wall NAME CMD...: runs CMD, appends "NAME seconds rc" to times.txt
	local name=$1 t0 t1 rc
	shift
	t0=$(date +%s.%N)
	"$@"
	rc=$?
	t1=$(date +%s.%N)
	echo "$name $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') $rc" >>"$RES/times.txt"
	return $rc
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$RES/env.txt" 2>&1
"$NCU" --version >>"$RES/env.txt" 2>&1

# Which way of driving the range profiler works here (GPUSCOPE_COUNTERS_MODE,
# src/inject/inject.c): the probe runs the sequence from main(), outside any
# callback; then the signatures under record in each mode, the first mode
# whose run exits 0 with counters recorded is used below.
if [ -x "$BIN/counters_probe" ]; then
	timeout 60 "$BIN/counters_probe" >"$RES/probe.out" 2>"$RES/probe.log"
	echo "probe rc=$?" >>"$RES/probe.out"
fi
MODE=""
for m in ${MODES:-launch eager driver}; do
	GPUSCOPE_COUNTERS_MODE=$m GPUSCOPE_DEBUG=1 GPUSCOPE_CRASH_TRACE=1 timeout 120 "$G" record \
		--metrics kernels -o "$RES/mode-$m.db" -- "$BIN/signatures" \
		>"$RES/mode-$m.out" 2>"$RES/mode-$m.log"
	rc=$?
	n=$("$PY" -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from counters').fetchone()[0])" "$RES/mode-$m.db" 2>/dev/null || echo 0)
	echo "mode $m rc=$rc counters=$n" >>"$RES/modes.txt"
	log "mode $m: rc=$rc counters=$n"
	if [ -z "$MODE" ] && [ "$rc" -eq 0 ] && [ "${n:-0}" -gt 0 ]; then MODE=$m; fi
done
export GPUSCOPE_COUNTERS_MODE=${MODE:-launch}
for p in $PROGS; do
	[ "$SECONDS" -lt $((BUDGET - 8)) ] || { log "budget spent before $p"; break; }
	[ -x "$BIN/$p" ] || { log "missing $BIN/$p"; continue; }
	log "$p"
	wall "$p.untraced" timeout 120 "$BIN/$p" >"$RES/$p.untraced.out" 2>&1
	wall "$p.record" env GPUSCOPE_DEBUG=1 timeout 240 "$G" record --metrics kernels \
		-o "$RES/$p.db" -- "$BIN/$p" >"$RES/$p.record.out" 2>"$RES/$p.record.log"
	wall "$p.ncu" timeout 300 "$NCU" --clock-control none --cache-control none \
		--replay-mode kernel --kernel-name-base mangled --kernel-id ::regex:.*:1 --print-kernel-base mangled \
		--csv --page raw --metrics "$METRICS" "$BIN/$p" >"$RES/$p.ncu.csv" 2>"$RES/$p.ncu.log"
	"$G" report "$RES/$p.db" >"$RES/$p.report.txt" 2>&1
	"$G" report --format json "$RES/$p.db" >"$RES/$p.report.json" 2>&1
	"$PY" workloads/counters/compare.py "$RES/$p.ncu.csv" "$RES/$p.db" >"$RES/$p.compare.tsv" 2>&1
done
if [ $((BUDGET - SECONDS)) -gt 20 ]; then
	log "torch.profiler counters"
	KINETO_LOG_LEVEL=0 timeout $((BUDGET - SECONDS)) "$PY" workloads/counters/torch_counters.py \
		"$RES/torch_counters.json.gz" >"$RES/torch_counters.out" 2>&1
	"$G" report "$RES/torch_counters.json.gz" >"$RES/torch_counters.report.txt" 2>&1
fi

{
	echo "== wall seconds (untraced / record --metrics kernels / ncu), rc"
	for p in $PROGS; do
		u=$(awk -v n="$p.untraced" '$1 == n {print $2 "(" $3 ")"}' "$RES/times.txt")
		r=$(awk -v n="$p.record" '$1 == n {print $2 "(" $3 ")"}' "$RES/times.txt")
		c=$(awk -v n="$p.ncu" '$1 == n {print $2 "(" $3 ")"}' "$RES/times.txt")
		v=$(grep -m1 -A1 '^VERDICT' "$RES/$p.report.txt" 2>/dev/null | tail -1 | sed 's/^ *//')
		s=$(tail -n +1 "$RES/$p.compare.tsv" 2>/dev/null | grep '^# .*within' | sed 's/^# //')
		printf '%-18s %-12s %-12s %-12s | %s | %s\n' "$p" "$u" "$r" "$c" "$v" "$s"
	done
	echo "== modes: $(tr '\n' ';' <"$RES/modes.txt" 2>/dev/null) used: $GPUSCOPE_COUNTERS_MODE"
	echo "== probe: $(grep -c '^PROBE corr' "$RES/probe.out" 2>/dev/null) values; $(tail -1 "$RES/probe.out" 2>/dev/null)"
	echo "== torch.profiler counters: $(tail -1 "$RES/torch_counters.out" 2>/dev/null)"
	grep -h "passes\|counters" "$RES"/*.record.log 2>/dev/null | sort | uniq -c | head -8
} >"$RES/summary.txt"
tar -C "$RES" -czf "$OUT/counters.tar.gz" . 2>/dev/null
cat "$RES/summary.txt"
