#!/usr/bin/env bash
# optim-and-speed-on-gpu.sh - one device call of at most 10 minutes (repo root; carry .gpu and
# .whl: scripts/gpu-stage.sh, bench/fetch-hta.sh; bench/speed-on-gpu.sh lists the bench
# binaries .gpu/build needs, and bench/speed-ab-on-gpu.sh the old binary in .gpu/prev):
#   bash workloads/optim-and-speed-on-gpu.sh
# 1. issue 36, docs/causes.md row 9: workloads/real/torch_optim_loop.py (torch.optim's
#    per-parameter path) recorded with `gpuscope record` and under torch.profiler, and its
#    --fixed variant (fused AdamW) recorded: workloads/real/run-on-gpu-real.sh with
#    ONLY="torch_optim_loop torch_optim_loop_fixed", budget REAL_S (75 s); $OUT/real.tar.gz.
# 2. issue 38: bench/speed-ab-on-gpu.sh with SPEED_S (280 s): the speed targets on 2 and 8 CPUs
#    with HTA beside, then the previous binary against this one.
# The tables last on stdout. Read-only towards the card: no clock, power, persistence, MIG or
# reset commands.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
OUT=$OUT BUDGET_S=${REAL_S:-75} ONLY="torch_optim_loop torch_optim_loop_fixed" \
	bash workloads/real/run-on-gpu-real.sh >/tmp/optim-real.txt 2>&1
echo "run-on-gpu-real rc=$?" >>/tmp/optim-real.txt
SPEED_S=${SPEED_S:-280} bash bench/speed-ab-on-gpu.sh
echo "== torch_optim_loop (workloads/real/run-on-gpu-real.sh)"
tail -12 /tmp/optim-real.txt
