#!/usr/bin/env bash
# hostcost-cap.sh - what record's perf events cost a host-bound step, by
# their call-chain cap and by the sampling rate (issue 17 item 5), in one
# device call: record's own perf counts (GPUSCOPE_DEBUG's "perf:" line),
# then bench/host-sampling-cost.sh's in-process ABBA on transformer_step
# with perf's kernel walk capped at CAPS frames (GPUSCOPE_HOST_STACK), then
# the whole recorder switched in one process (variant record) at each rate
# of RATES, the rates interleaved for ROUNDS rounds.
# Usage (repo root, on the GPU machine): bash workloads/hostcost-cap.sh
# Env: CAPS="127 32" RATES="250 1000" ROUNDS=3 OUT=dir
set -u
export GPUSCOPE=${GPUSCOPE:-$PWD/.gpu/build/gpuscope} BIN=${BIN:-$PWD/.gpu/bin}
OUT=${OUT:-/tmp/hostcost-cap-out}
python3 --version
GPUSCOPE_DEBUG=1 taskset -c 2-9 "$GPUSCOPE" record -o /tmp/hostcost-cap.db -- \
	python3 workloads/pytorch/transformer_step.py --steps 30 2>&1 | grep -E "perf:|host sampling"
for cap in ${CAPS-127 32}; do
	GPUSCOPE_HOST_STACK=$cap BUDGET_S=120 CROSS=0 INPROC_BENCH=transformer_step \
		INPROC_VARIANTS="perf pyread sampler record" INPROC_ROUNDS=3 INPROC_REPS=40 \
		OUT="$OUT/cap$cap" WORKDIR="/tmp/hc-cap$cap" bash bench/host-sampling-cost.sh 2>&1 |
		sed -n '/^workload/,/^per-sample/p' | sed "s/^/cap $cap: /"
done
for r in $(seq "${ROUNDS:-3}"); do
	for hz in ${RATES-250 1000}; do
		RECORD_ARGS="--host-sampling $hz" BUDGET_S=60 CROSS=0 INPROC_BENCH=transformer_step \
			INPROC_VARIANTS=record INPROC_ROUNDS=1 INPROC_REPS=40 OUT="$OUT/hz$hz.$r" \
			WORKDIR="/tmp/hc-hz$hz.$r" bash bench/host-sampling-cost.sh 2>&1 |
			grep '^transformer_step' | sed "s/^/$hz Hz round $r: /"
	done
done
