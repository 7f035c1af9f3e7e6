#!/usr/bin/env bash
# flax-cost-on-gpu.sh - issue 35 item 4 in one device call of at most 10 minutes: what `gpuscope
# record` costs the Flax/optax loop of small steps (workloads/real/flax_small.py), per process
# and per part, and (issue 36) the uvm stage once more.
#   bash workloads/flax-cost-on-gpu.sh    (repo root; carry .gpu: scripts/gpu-stage.sh)
# 1. per process: run-session-h200.sh's jaxcost stage with the two modes alone (untraced and
#    record's defaults), FC_ROUNDS (default 10) rounds of FC_REPS (4) repetitions of 500 steps.
#    With two modes the rotation makes the processes ABBA (untraced, record; record, untraced;
#    ...): the machine's drift over tens of seconds (the untraced loop ranged 0.41-0.66 s in the
#    last call, by round) falls on both modes of a round alike. Ratio with a 95% interval
#    (bench/ratio-ci.py, rounds resampled).
# 2. in one process, per scope of perf's events (GPUSCOPE_HOST_PERF_SCOPE cpu, record's
#    default, and task): bench/host-sampling-cost.sh's ABBA blocks of record (all of record
#    switched), sampler (perf + the CPython reader) and perf alone, 3 processes per scope.
#    FC_SCOPES (default "cpu task") picks the scopes; FC_SCOPES= (empty) runs none.
#    FC_VARIANTS adds bench/record-overhead.sh's variants to the rotation (e.g. record_late
#    plain_nocb record_nocb plain_noat record_noat: recording resumed after XLA's warm-up; XLA
#    without CUDA graphs, without autotuning, untraced and recorded), each with its interval
#    against untraced and, for record_X, against plain_X.
# 3. run-session-h200.sh's uvm stage (CUPTI's unified-memory counters; refused so far); FC_UVM=
#    (empty) leaves it out.
# Everything under $OUT/flax-cost.tar.gz; the tables last on stdout.
# Read-only towards the card: no clock, power, persistence, MIG or reset commands.
set -u
cd "$(dirname "$0")/.." || exit 1
FINAL=${OUT:-$PWD/gpu-out}
W=/tmp/flax-cost
rm -rf "$W"
mkdir -p "$W" "$FINAL"
{
	echo "== machine"
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1
	nproc
	python3 -c 'import jax, flax, optax; print("jax", jax.__version__, "flax", flax.__version__, "optax", optax.__version__)' 2>&1
} >"$W/machine.txt"
OUT=$W/s1 SESSION_STAGES="jaxcost ${FC_UVM-uvm}" JAXCOST_S=${FC_JAX_S:-260} \
	JC_ROUNDS=${FC_ROUNDS:-10} JC_REPS=${FC_REPS:-4} JC_VARIANTS="${FC_VARIANTS:- }" \
	bash workloads/run-session-h200.sh >"$W/s1.txt" 2>&1
for sc in ${FC_SCOPES-cpu task}; do
	GPUSCOPE_HOST_PERF_SCOPE=$sc OUT=$W/$sc WORKDIR=/tmp/hsc-$sc SESSION_STAGES=hostcost \
		HOSTCOST_S=${FC_HOST_S:-95} INPROC_BENCH=flax_small \
		INPROC_VARIANTS="record sampler perf" INPROC_ROUNDS=3 INPROC_REPS=20 \
		INPROC_STEPS=200 CROSS=0 bash workloads/run-session-h200.sh >"$W/hc-$sc.txt" 2>&1
done
# the per-process ratio with its interval, from the jaxcost stage's round files
mkdir -p "$W/jc" && tar xzf "$W/s1/jaxcost.tar.gz" -C "$W/jc" 2>/dev/null
ci=$(python3 bench/ratio-ci.py "$W/jc/flax_small.plain.rloop" "$W/jc/flax_small.record.rloop" 2>&1)
# each variant against untraced, and record_X against plain_X (the same XLA flags)
vci=
for v in ${FC_VARIANTS:-}; do
	f=$W/jc/flax_small.$v.rloop
	[ -f "$f" ] || { vci+="$v: no timed loop (see its log)"$'\n'; continue; }
	vci+="$v / plain: $(python3 bench/ratio-ci.py "$W/jc/flax_small.plain.rloop" "$f" 2>&1)"$'\n'
	case $v in
	record_*) b=$W/jc/flax_small.plain_${v#record_}.rloop
		[ -f "$b" ] && vci+="$v / plain_${v#record_}: $(python3 bench/ratio-ci.py "$b" "$f" 2>&1)"$'\n' ;;
	esac
	vci+="$v median loop s: $(awk '{print $2}' "$f" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"$'\n'
done
tar czf "$FINAL/flax-cost.tar.gz" -C "$W" .
cat "$W/machine.txt"
echo "== per process (ratio lo hi rounds): record $ci"
[ -z "$vci" ] || printf '%s' "$vci"
sed -n '/^== /,$p' "$W/s1.txt" | grep -v "^-\|^d\|^total" | head -60
for sc in ${FC_SCOPES-cpu task}; do
	echo "== in one process, perf scope $sc"
	tail -12 "$W/hc-$sc.txt"
done
