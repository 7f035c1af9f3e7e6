#!/usr/bin/env bash
# hostsample-probe.sh - which host sampling mechanism works on this machine
# and what it costs (issue 17, items 1 and 5); for the H200, within
# BUDGET_S seconds (default 60; stages that no longer fit are skipped and
# say so), light on the GPU (tiny kernels only):
#   BUDGET_S=60 bash workloads/hostsample-probe.sh    (repo root; $OUT set by the device tool)
# Needs, carried from the build machine: bench_hostsample_probe (static
# libdw inside: nothing to install there) in .gpu/build/ or build/. With
# python3 (3.12 + torch) it runs, most important first:
#   1. loop: workloads/hostsample/pyloop.py (pure Python calls) under
#      none | perfsupport (PYTHONPERFSUPPORT=1 alone) | perf (perf_event_open
#      task clock + frame-pointer chains + perf trampolines) | pyread
#      (process_vm_readv of the interpreter's frames) | both, at $HZ, $REPS
#      rounds in rotated order: medians and ratios against none
#   2. torch: torchloop.py on cuda (on cpu after stage 4) under perf, pyread, none: do
#      frame pointer chains reach the Python frames through libtorch and
#      libcuda, and what does each cost there?
#   3. frameworks: fw.py (torch + cuBLAS + cuDNN, triton, cupy, jax) read
#      from /proc/PID/maps each second (saved: a fixture for tests/hostsample)
#   4. record: `gpuscope record` (from .gpu/build/ or build/) of torchloop.py
#      cuda with host sampling on and off: the integrated path (exec gate,
#      CUPTI beside perf events, the database's host rows, what it says)
#      and its loop-time ratio; the on database is kept (a fixture)
# Writes ONE file, $OUT/hostsample-probe.tar.gz (env, every run's output,
# stacks, maps, the table), and prints the table last. Read-only towards
# the card.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/hostsample-out}
RES=${RES:-/tmp/hostsample-res}
PROBE=${PROBE:-$PWD/.gpu/build/bench_hostsample_probe}
[ -x "$PROBE" ] || PROBE=$PWD/build/bench_hostsample_probe
BUDGET=${BUDGET_S:-60}
PY=${PYTHON:-python3}
HZ=${HZ:-1000}
REPS=${REPS:-3}
LOOPN=${LOOPN:-30}
TORCHN=${TORCHN:-60000}
W=workloads/hostsample
rm -rf "$RES"
mkdir -p "$OUT" "$RES"
log() { echo "[hostsample-probe +${SECONDS}s] $*" >&2; }
# fits SECS: 0 when SECS more seconds stay inside the budget (5 s kept for packing)
fits() { [ $((SECONDS + $1 + 5)) -le "$BUDGET" ]; }
skipped() { echo "skipped (budget $BUDGET s): $*" | tee -a "$RES/refusals.txt" >&2; }

{
	echo "## uname"; uname -a
	echo "## perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>&1)"
	echo "## perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate 2>&1)"
	echo "## perf_event_max_stack $(cat /proc/sys/kernel/perf_event_max_stack 2>&1)"
	echo "## ptrace_scope $(cat /proc/sys/kernel/yama/ptrace_scope 2>&1)"
	echo "## id $(id)"
	echo "## python"; $PY -VV; command -v $PY; readlink -f "$(command -v $PY)"
	$PY -c 'import sysconfig; print("CFLAGS", sysconfig.get_config_var("CFLAGS")); print("PY_CFLAGS_NODIST", sysconfig.get_config_var("PY_CFLAGS_NODIST")); print("perf trampoline", sysconfig.get_config_var("PY_HAVE_PERF_TRAMPOLINE"))'
	echo "## libdw on the system (the probe has its own)"; ldconfig -p | grep -E 'libdw|libelf' || echo none
	echo "## probe"; ls -la "$PROBE"; ldd "$PROBE"
} >"$RES/env.txt" 2>&1
log "env: $(grep -E 'paranoid|Python 3' "$RES/env.txt" | tr '\n' ' ')"

# run TAG MODE ENV... -- CMD: one probe run, its output kept, RESULT + ELAPSED to runs.txt
run() {
	local tag=$1 mode=$2
	shift 2
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	local pm=$mode
	[ "$mode" = perfsupport ] && pm=none
	local log="$RES/$tag-$mode.$RANDOM.log"
	mkdir -p "$RES/out-$tag-$mode"
	local left=$((BUDGET - SECONDS - 5))
	[ "$left" -lt 3 ] && left=3
	env "${envs[@]}" timeout "$left" "$PROBE" "$pm" "$HZ" -o "$RES/out-$tag-$mode" -- "$@" >"$log" 2>&1
	local el res
	el=$(grep -o 'ELAPSED [0-9.]*' "$log" | tail -1 | cut -d' ' -f2)
	res=$(grep '^RESULT' "$log" | tail -1)
	echo "$tag $mode elapsed=${el:-NA} $res" >>"$RES/runs.txt"
	grep -E '^(PERF|PYREAD) refused' "$log" | sed "s/^/$tag $mode: /" >>"$RES/refusals.txt"
}

modes_for_round() { # rotate the order each round
	local r=$1
	local m=(none perfsupport perf pyread both)
	local n=${#m[@]}
	for ((k = 0; k < n; k++)); do echo "${m[$(((k + r) % n))]}"; done
}

log "1. python loop x$REPS rounds"
for ((r = 0; r < REPS; r++)); do
	fits 8 || { skipped "loop round $r and later"; break; }
	for m in $(modes_for_round "$r"); do
		case $m in
		none | pyread) run loop "$m" PROBE_WANT=inner_work -- "$PY" "$W/pyloop.py" "$LOOPN" ;;
		*) run loop "$m" PROBE_WANT=inner_work PYTHONPERFSUPPORT=1 -- "$PY" "$W/pyloop.py" "$LOOPN" ;;
		esac
	done
done

log "2. torch loops"
for dev in cuda; do
	for m in perf pyread none; do
		fits 7 || { skipped "torch_$dev $m"; continue; }
		case $m in
		perf) run "torch_$dev" perf PROBE_WANT=train_loop PYTHONPERFSUPPORT=1 -- "$PY" "$W/torchloop.py" "$dev" "$TORCHN" ;;
		*) run "torch_$dev" "$m" PROBE_WANT=train_loop -- "$PY" "$W/torchloop.py" "$dev" "$TORCHN" ;;
		esac
	done
done

log "4. record with host sampling"
G=${GPUSCOPE:-$PWD/.gpu/build/gpuscope}
[ -x "$G" ] || G=$PWD/build/gpuscope
RECN=${RECN:-20000}
for hs in 1000 off; do
	fits 10 || { skipped "record --host-sampling $hs"; continue; }
	log=$RES/record-$hs.log
	timeout $((BUDGET - SECONDS - 5)) "$G" record -o "$RES/record-$hs.db" --host-sampling "$hs" \
		-- "$PY" "$W/torchloop.py" "${RECDEV:-cuda}" "$RECN" >"$log" 2>&1
	echo "record host_sampling=$hs rc=$? elapsed=$(grep -o 'ELAPSED [0-9.]*' "$log" | cut -d' ' -f2)" >>"$RES/record.txt"
	grep -E 'host sampling|recorded' "$log" >>"$RES/record.txt"
done
[ -f "$RES/record-1000.db" ] && $PY - "$RES/record-1000.db" >>"$RES/record.txt" 2>&1 <<'Q'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
one = lambda q: db.execute(q).fetchall()
print("db:", one("select count(*) from kernels")[0][0], "kernels,",
      one("select count(*) from host_samples")[0][0], "host samples by source",
      one("select source, count(*) from host_samples group by source"))
print("db host_sampling:", one("select pid, (select value from strings where id = mechanism_id), samples, lost, cost_ns, (select value from strings where id = status_id) from host_sampling order by samples desc limit 3"))
print("db frameworks:", one("select (select value from strings where id = name_id), (select value from strings where id = version_id) from frameworks"))
# innermost Python frame of each sample, and the leaf
for src in (1, 2):
    print("db top innermost frames, source", src, one(
        "select s.value, count(*) c from host_samples x join host_stacks k on k.id = x.stack_id"
        " join host_frames f on f.id = k.frame_id join strings s on s.id = f.name_id"
        " where x.source = %d group by 1 order by c desc limit 6" % src))
Q
rm -f "$RES/record-off.db"

log "2b. torch loops on the CPU"
for dev in cpu; do
	for m in perf pyread none; do
		fits 7 || { skipped "torch_$dev $m"; continue; }
		case $m in
		perf) run "torch_$dev" perf PROBE_WANT=train_loop PYTHONPERFSUPPORT=1 -- "$PY" "$W/torchloop.py" "$dev" "$TORCHN" ;;
		*) run "torch_$dev" "$m" PROBE_WANT=train_loop -- "$PY" "$W/torchloop.py" "$dev" "$TORCHN" ;;
		esac
	done
done

log "3. frameworks"
if fits 12; then
	run fw pyread -- "$PY" "$W/fw.py"
	grep -h '^FRAMEWORK\|^LOADED' "$RES"/fw-*.log >"$RES/frameworks.txt" 2>/dev/null
else
	skipped "frameworks"
fi

log "table"
{
	$PY "$W/summarize.py" "$RES/runs.txt" 2>&1
	cat "$RES/record.txt" 2>/dev/null
	cat "$RES/refusals.txt" "$RES/frameworks.txt" 2>/dev/null
} >"$RES/table.txt"
tar -C "$(dirname "$RES")" -czf "$OUT/hostsample-probe.tar.gz" "$(basename "$RES")"
log "done in ${SECONDS}s (budget $BUDGET s)"
cat "$RES/table.txt"
