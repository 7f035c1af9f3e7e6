#!/usr/bin/env bash
# periodic-and-flax-on-gpu.sh - 2026-12-07's second session in one device call of at most
# 10 minutes (repo root; carry .gpu: scripts/gpu-stage.sh):
#   bash workloads/periodic-and-flax-on-gpu.sh
# 1. issue 36, docs/causes.md row 37: workloads/real/torch_ckpt_every.py (a checkpoint every 50
#    steps) recorded and under torch.profiler, and its --fixed variant (the save on a background
#    thread) recorded: run-on-gpu-real.sh ONLY=..., REAL_S seconds (default 80).
# 2. issue 36 item 3 and issue 35 item 4: workloads/flax-cost-on-gpu.sh with its uvm stage (the
#    unified-memory counters now asked for at each of the flush thread's 20 ms polls: managed_faults
#    recorded again, all of its steps' faults expected) and the Flax loop per process against
#    record's variants FC_VARIANTS (default: recording resumed after XLA's warm-up; XLA without
#    CUDA graphs, untraced and recorded; API records alone, and with CUPTI's graph-level records
#    instead of the kernel records), FC_ROUNDS rounds (default 3).
# Output: $OUT/real.tar.gz, $OUT/flax-cost.tar.gz; the tables last on stdout.
# Read-only towards the card: no clock, power, persistence, MIG or reset commands.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
S=$SECONDS
OUT=$OUT BUDGET_S=${REAL_S:-80} ONLY="torch_ckpt_every torch_ckpt_every_fixed" \
	bash workloads/real/run-on-gpu-real.sh >/tmp/periodic-real.txt 2>&1
echo "== real: $((SECONDS - S)) s" >/tmp/periodic-head.txt
S=$SECONDS
OUT=$OUT FC_VARIANTS="${FC_VARIANTS-record_late plain_nocb record_nocb record_api record_gtrace}" \
	FC_ROUNDS=${FC_ROUNDS:-3} FC_SCOPES= FC_JAX_S=${FC_JAX_S:-270} \
	bash workloads/flax-cost-on-gpu.sh >/tmp/periodic-flax.txt 2>&1
echo "== flax and uvm: $((SECONDS - S)) s" >>/tmp/periodic-head.txt
cat /tmp/periodic-head.txt
echo "== torch_ckpt_every (table.txt)"
tail -8 /tmp/periodic-real.txt
echo "== flax-cost"
tail -45 /tmp/periodic-flax.txt
