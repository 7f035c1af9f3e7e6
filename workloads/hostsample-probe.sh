#!/usr/bin/env bash
# hostsample-probe.sh - which host sampling mechanism works on this machine
# and what it costs (issue 17, items 1 and 5); for the H200, ~2 minutes:
#   bash workloads/hostsample-probe.sh        (repo root; $OUT set by the device tool)
# Needs, carried from the build machine: build/bench_hostsample_probe (static
# libdw inside: nothing to install there). Runs, with python3 (3.12 + torch):
#   1. loop: workloads/hostsample/pyloop.py (pure Python calls) under
#      none | perfsupport (PYTHONPERFSUPPORT=1 alone) | perf (perf_event_open
#      task clock + frame-pointer chains + perf trampolines) | pyread
#      (process_vm_readv of the interpreter's frames) | both, at $HZ, $REPS
#      rounds in rotated order: medians and ratios against none
#   2. torch: torchloop.py on cpu and cuda under none, perf, pyread: do frame
#      pointer chains reach the Python frames through libtorch and libcuda?
#   3. frameworks: fw.py (torch + cuBLAS + cuDNN, triton, cupy, jax) read
#      from /proc/PID/maps (saved each second: a fixture for tests/hostsample)
# Writes $OUT/hostsample-probe.tar.gz (env, every run's output, stacks,
# maps) and prints the table last. Read-only towards the card.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/hostsample-out}
RES=${RES:-/tmp/hostsample-res}
PROBE=${PROBE:-$PWD/build/bench_hostsample_probe}
PY=${PYTHON:-python3}
HZ=${HZ:-1000}
REPS=${REPS:-5}
LOOPN=${LOOPN:-60}
TORCHN=${TORCHN:-100000}
W=workloads/hostsample
rm -rf "$RES"
mkdir -p "$OUT" "$RES"
log() { echo "[hostsample-probe +${SECONDS}s] $*" >&2; }

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
	env "${envs[@]}" timeout 120 "$PROBE" "$pm" "$HZ" -o "$RES/out-$tag-$mode" -- "$@" >"$log" 2>&1
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
	for m in $(modes_for_round "$r"); do
		case $m in
		none | pyread) run loop "$m" PROBE_WANT=inner_work -- "$PY" "$W/pyloop.py" "$LOOPN" ;;
		*) run loop "$m" PROBE_WANT=inner_work PYTHONPERFSUPPORT=1 -- "$PY" "$W/pyloop.py" "$LOOPN" ;;
		esac
	done
done

log "2. torch loops"
for dev in cpu cuda; do
	for ((r = 0; r < 2; r++)); do
		run "torch_$dev" none -- "$PY" "$W/torchloop.py" "$dev" "$TORCHN"
		run "torch_$dev" perf PROBE_WANT=train_loop PYTHONPERFSUPPORT=1 -- "$PY" "$W/torchloop.py" "$dev" "$TORCHN"
		run "torch_$dev" pyread PROBE_WANT=train_loop -- "$PY" "$W/torchloop.py" "$dev" "$TORCHN"
	done
done

log "3. frameworks"
run fw pyread -- "$PY" "$W/fw.py"
grep -h '^FRAMEWORK\|^LOADED' "$RES"/fw-*.log >"$RES/frameworks.txt" 2>/dev/null

log "table"
$PY "$W/summarize.py" "$RES/runs.txt" >"$RES/table.txt" 2>&1
cat "$RES/refusals.txt" >>"$RES/table.txt" 2>/dev/null
cat "$RES/frameworks.txt" >>"$RES/table.txt"
tar -C "$(dirname "$RES")" -czf "$OUT/hostsample-probe.tar.gz" "$(basename "$RES")"
cp "$RES/table.txt" "$RES/runs.txt" "$RES/env.txt" "$OUT/" 2>/dev/null
log "done in ${SECONDS}s"
cat "$RES/table.txt"
