#!/usr/bin/env bash
# speed-and-flax-on-gpu.sh - two owed measurements in one device call of at most 10 minutes
# (repo root; carry .gpu with the bench binaries and .whl: bench/fetch-hta.sh):
#   bash workloads/speed-and-flax-on-gpu.sh
# 1. issue 38's targets on two CPUs: bench/speed-on-gpu.sh pinned to CPUs SPEED_CPUS (14,15),
#    its inputs made on GEN_CPUS (10-13), every case (json, gz, db, HTA on the same trace, eight
#    ranks), in the background, SPEED_S seconds (default 560).
# 2. issue 35 item 4: the Flax loop per process, untraced against record's defaults only,
#    FC_ROUNDS rounds (default 30, as many as FC_JAX_S = 540 s allow) of ABBA pairs on CPUs 2-9
#    (workloads/flax-cost-on-gpu.sh without its in-process and uvm parts): many rounds of two
#    modes, because the loop's spread from process to process (0.55-0.74 s untraced) hid every
#    difference in three rounds of seven modes.
# The two share the machine but no CPU; the Flax ratio is of pairs run in the same minutes, and
# the report runs' neighbour is the same for every case.
# Output: $OUT/speed-h200.tar.gz, $OUT/flax-cost.tar.gz; the tables last on stdout.
# Read-only towards the card: no clock, power, persistence, MIG or reset commands.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
S=$SECONDS
(OUT=$OUT BUDGET_S=${SPEED_S:-560} SPEED_CPUS=${SPEED_CPUS:-14,15} GEN_CPUS=${GEN_CPUS:-10-13} \
	HTA_REPS=${HTA_REPS:-2} bash bench/speed-on-gpu.sh .gpu/build >/tmp/sf-speed.txt 2>&1
echo "== speed: $((SECONDS - S)) s" >/tmp/sf-speed-head.txt) &
sp=$!
OUT=$OUT FC_VARIANTS= FC_ROUNDS=${FC_ROUNDS:-30} FC_SCOPES= FC_UVM= FC_JAX_S=${FC_JAX_S:-540} \
	bash workloads/flax-cost-on-gpu.sh >/tmp/sf-flax.txt 2>&1
echo "== flax: $((SECONDS - S)) s"
wait "$sp"
cat /tmp/sf-speed-head.txt
echo "== flax-cost"
tail -30 /tmp/sf-flax.txt
echo "== speed"
tail -40 /tmp/sf-speed.txt
