#!/usr/bin/env bash
# api-cost.sh - what `gpuscope record` adds to each CUDA call a framework
# makes per op (bench/api-cost.cu), by CUPTI activity kind and API mode.
#   bench/api-cost.sh             (repo root, on the GPU machine)
# Env: BIN=.gpu/bin (api-cost built there by scripts/gpu-stage.sh)
#      GPUSCOPE=build/gpuscope  RUNS=3 (interleaved processes per mode)
#      MODES="plain k_none ..."  PIN=2-9 (taskset; empty: none); also r_noKIND
#      (every kind but KIND) and k1_KIND (KIND alone, with device and context)
#      WORKDIR=/tmp/api-cost
#      PROG=torch: time PyTorch ops instead (bench/torch-op-cost.py, PYTHON=python3)
# Prints one row per call: median ns per call in each mode.
set -u
BIN=${BIN:-.gpu/bin}
GPUSCOPE=${GPUSCOPE:-build/gpuscope}
RUNS=${RUNS:-3}
MODES=${MODES:-plain k_none k_kernel k_rt k_drv k_api k_api_kind k_api_work record record_kind}
PIN=${PIN-2-9}
WORKDIR=${WORKDIR:-/tmp/api-cost}
ALL_KINDS="device context kernel memcpy memset runtime driver sync memory marker"
mkdir -p "$WORKDIR"
rm -f "$WORKDIR"/*.cost "$WORKDIR"/*.db
PINCMD=()
[ -n "$PIN" ] && command -v taskset >/dev/null && PINCMD=(taskset -c "$PIN")
PROG=${PROG:-cuda}
case $PROG in
cuda)
	[ -x "$BIN/api-cost" ] || { echo "api-cost: '$BIN/api-cost' missing" >&2; exit 1; }
	CMD=("$BIN/api-cost") ;;
torch) CMD=("${PYTHON:-python3}" bench/torch-op-cost.py) ;;
*) echo "api-cost: PROG is cuda or torch, not '$PROG'" >&2; exit 1 ;;
esac

run_mode() {
	local mode=$1 envs=()
	case $mode in
	plain) "${PINCMD[@]}" "${CMD[@]}"; return ;;
	k_none) envs=(GPUSCOPE_KINDS=none) ;;
	k_kernel) envs=(GPUSCOPE_KINDS=device,context,kernel) ;;
	k_rt) envs=(GPUSCOPE_KINDS=device,context,runtime) ;;
	k_drv) envs=(GPUSCOPE_KINDS=device,context,driver) ;;
	k_api) envs=(GPUSCOPE_KINDS=device,context,runtime,driver) ;;
	k_api_kind) envs=(GPUSCOPE_KINDS=device,context,runtime,driver GPUSCOPE_API=kind) ;;
	k_api_work) envs=(GPUSCOPE_KINDS=device,context,runtime,driver GPUSCOPE_API=work) ;;
	record) ;;
	record_kind) envs=(GPUSCOPE_API=kind) ;;
	record_sync) envs=(GPUSCOPE_KINDS=${ALL_KINDS// /,}) ;; # with CUPTI's sync records
	r_no*) # every kind but one (GPUSCOPE_KINDS names, src/inject/inject.c)
		local k out=
		for k in $ALL_KINDS; do [ "$k" = "${mode#r_no}" ] || out=$out${out:+,}$k; done
		envs=(GPUSCOPE_KINDS=$out) ;;
	k1_*) envs=(GPUSCOPE_KINDS=device,context,${mode#k1_}) ;; # one kind alone
	*) echo "api-cost: unknown mode '$mode'" >&2; return 1 ;;
	esac
	env "${envs[@]}" "${PINCMD[@]}" "$GPUSCOPE" record -o "$WORKDIR/$mode.db" -- "${CMD[@]}"
	rm -f "$WORKDIR/$mode.db"
}

for r in $(seq "$RUNS"); do
	for mode in $MODES; do
		run_mode "$mode" 2>>"$WORKDIR/$mode.err" |
			sed -n 's/^COST name=\([^ ]*\) ns=\([0-9.]*\).*/\1 \2/p' >>"$WORKDIR/$mode.cost"
	done
done

# table: rows = calls (in the program's order), columns = modes
calls=$(awk '{ print $1 }' "$WORKDIR/plain.cost" 2>/dev/null | awk '!seen[$0]++')
[ -n "$calls" ] || calls=$(awk '{ print $1 }' "$WORKDIR"/*.cost | awk '!seen[$0]++')
printf '%-28s' "ns per call (median of $RUNS)"
for mode in $MODES; do printf ' %10s' "$mode"; done
echo
for c in $calls; do
	printf '%-28s' "$c"
	for mode in $MODES; do
		v=$(awk -v c="$c" '$1 == c { print $2 }' "$WORKDIR/$mode.cost" 2>/dev/null | sort -g |
			awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "NA" }')
		printf ' %10s' "$v"
	done
	echo
done
