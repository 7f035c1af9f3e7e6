#!/usr/bin/env bash
# overhead-probe.sh - where record's overhead comes from on the GPU machine:
# what a timestamp costs there (bench/clock-cost.c), and the overhead bench
# with every cell on one CPU against every cell on CPUs 2-9, so that wake-ups
# across CPUs (inter-processor interrupts, dear on a virtual machine) can be
# told from CUPTI's own work. The debug variants log each thread's context
# switches and CPU time at exit (GPUSCOPE_DEBUG).
#   bash scripts/gpu-stage.sh    (here), then on the GPU machine, carry [".gpu"]:
#   bash workloads/overhead-probe.sh     ($OUT set by the device tool)
# Env: PINS="3 2-9"  TINY_VARIANTS="record_dbg k_none k_kernel k_api"
#      PYW=transformer_step  PY_VARIANTS=record_dbg  ROUNDS=2  BUDGET_S=420
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT" build
cp .gpu/build/* build/ 2>/dev/null
export PATH="/usr/local/cuda/bin:$PATH"
PINS=${PINS:-3 2-9}
TINY_VARIANTS=${TINY_VARIANTS-record_dbg k_none k_kernel k_api}
PYW=${PYW-transformer_step}
PY_VARIANTS=${PY_VARIANTS-record_dbg}
ROUNDS=${ROUNDS:-2}
BUDGET=${BUDGET_S:-420}

.gpu/bin/clock-cost >"$OUT/clock-cost.txt" 2>&1
grep -v siblings "$OUT/clock-cost.txt"
grep siblings "$OUT/clock-cost.txt" | head -16 | awk '{ printf "%s=%s ", $1, $3 } END { print "" }'

# ns per CUDA call by CUPTI kind and API mode (bench/api-cost.sh)
[ -x .gpu/bin/api-cost ] && [ "${API_COST:-1}" = 1 ] &&
	RUNS=3 bash bench/api-cost.sh >"$OUT/api-cost.txt" 2>&1

# per PIN: the tiny launches with the kind variants, then the PyTorch step
for pin in $PINS; do
	w=/tmp/probe-${pin//[^0-9]/_}
	left=$((BUDGET - SECONDS))
	PIN=$pin REPS=6 VARIANTS="$TINY_VARIANTS" PYBENCH="" WORKDIR="$w-tiny" \
		DEADLINE_S=$((left / 4)) bash bench/record-overhead.sh >"$OUT/tiny-$pin.txt" 2>&1
	left=$((BUDGET - SECONDS))
	[ -n "$PYW" ] && PIN=$pin REPS=3 ROUNDS=$ROUNDS VARIANTS="$PY_VARIANTS" PYBENCH="$PYW" \
		BIN=/nonexistent WORKDIR="$w-py" DEADLINE_S=$((left / 2)) \
		bash bench/record-overhead.sh >"$OUT/py-$pin.txt" 2>&1
done
for pin in $PINS; do
	w=/tmp/probe-${pin//[^0-9]/_}
	grep -h "context switches\|done:" "$w"-tiny/*.log "$w"-py/*.log 2>/dev/null |
		sed "s|^|$pin |" >>"$OUT/threads.txt"
done
tar czf "$OUT/probe-logs.tar.gz" --exclude='*.db' /tmp/probe-* 2>/dev/null
# the PyTorch step's recordings (a few MB), to read launch costs over time
tar czf "$OUT/probe-dbs.tar.gz" /tmp/probe-*-py/*.db 2>/dev/null
echo "== threads (first cells) =="
grep -m 12 "context switches" "$OUT/threads.txt"
[ -f "$OUT/api-cost.txt" ] && cat "$OUT/api-cost.txt"
for pin in $PINS; do
	echo "== CPUs $pin =="
	grep -h -A12 '^record overhead' "$OUT/tiny-$pin.txt" "$OUT/py-$pin.txt" | grep -v '^targets\|^(rec'
done
