#!/usr/bin/env bash
# run-session-h200.sh - every H200 stage this session's issues need, in one
# device call of at most 10 minutes (the device time is shared):
#   bash workloads/run-session-h200.sh       (repo root; carry .gpu and .whl)
# Binaries built here and carried: .gpu/build/{gpuscope,libgpuscope-inject.so,
# libgpuscope-preload.so,bench_hostsample_probe}, .gpu/bin (workloads/build-zoo.sh).
# Each stage runs under its own budget and timeout and writes one tar.gz
# under $OUT; a stage that fails is logged and the next one runs. The
# stages' own tables are printed last.
# Read-only towards the card: no clock, power, persistence, MIG or reset commands.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export GPUSCOPE=$PWD/.gpu/build/gpuscope BIN=$PWD/.gpu/bin PATH="/usr/local/cuda/bin:$PATH"
LOG=$OUT/session.log
: >"$LOG"
tables=/tmp/session-tables.txt
: >"$tables"
SKIP=${SESSION_SKIP:-}

# stage NAME SECONDS CMD...: runs CMD with BUDGET_S=SECONDS under a hard
# timeout of SECONDS+10, keeps the last 25 lines of its output for the end
stage() {
	local name=$1 secs=$2 t0 rc
	shift 2
	case " $SKIP " in *" $name "*) echo "== $name skipped" >>"$tables"; return ;; esac
	t0=$SECONDS
	echo "[session +${SECONDS}s] $name (budget ${secs}s)" | tee -a "$LOG" >&2
	BUDGET_S=$secs timeout $((secs + 10)) "$@" >"/tmp/stage-$name.out" 2>&1
	rc=$?
	echo "[session +${SECONDS}s] $name rc=$rc in $((SECONDS - t0))s" | tee -a "$LOG" >&2
	{
		echo "== $name rc=$rc $((SECONDS - t0))s"
		tail -25 "/tmp/stage-$name.out"
	} >>"$tables"
	cat "/tmp/stage-$name.out" >>"$LOG"
}

if [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
	python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
		--target /tmp/site .whl/*.whl >>"$LOG" 2>&1 && export PYTHONPATH=/tmp/site
fi

stage counters 75 env MODES=launch bash workloads/counters/run-on-gpu.sh
[ -f workloads/monitor-on-gpu.sh ] && stage monitor 55 bash workloads/monitor-on-gpu.sh
stage zoo 55 env SKIP="occupancy pytorch conflict robust capture procs bench" \
	bash workloads/run-on-gpu.sh
[ -f workloads/real/run-on-gpu-real.sh ] && stage real 175 bash workloads/real/run-on-gpu-real.sh
# vram's training runs and the host-sampling probe (CPU-side, tiny
# kernels) side by side: the probe measures host costs, vram memory peaks
(stage hostsample 60 bash workloads/hostsample-probe.sh) &
stage vram 140 bash workloads/vram/run-on-gpu.sh
wait
cat "$tables"
ls -la "$OUT" >&2
