#!/usr/bin/env bash
# flax-parts-on-gpu.sh - issue 35 item 4: what each part of `gpuscope record` costs the Flax loop
# of small steps (workloads/real/flax_small.py) per process, alone on the machine, in one device
# call of at most 10 minutes (repo root; carry .gpu: scripts/gpu-stage.sh):
#   bash workloads/flax-parts-on-gpu.sh
# The in-process ABBA runs put CUPTI's records at ~8% and the sampler at ~5%, but record costs
# 1.17-1.33x per process (18 rounds, H200): ~10% that the in-process "off" halves (CUPTI loaded
# and once enabled) paid as well. This measures the parts per process instead, six modes
# rotated from round to round (bench/record-overhead.sh), nothing else running on the machine:
#   plain          untraced
#   record         record's defaults
#   record_api     CUPTI's API records but no kernel, copy or memset records (the sampler on)
#   k_kernel       CUPTI's kernel records alone: no API records, so none of XLA's driver calls
#                  go through CUPTI's API tracing (the sampler and NVML on)
#   record_nohost  CUPTI's records as shipped, `--host-sampling off`
#   record_nosample  record with `--metrics none`: no NVML/GPM sampler in record's own process
#                  (measured on PyTorch only so far, where it changed nothing)
# (k_bare, CUPTI loaded and nothing enabled, measured 0.88-0.95 of untraced twice: left out to
# give the others more rounds; FP_VARIANTS adds it back.)
# Each against plain with a 95% interval (bench/ratio-ci.py, rounds resampled).
# FP_ROUNDS (default 12: as many as FP_JAX_S = 540 s allow), FP_VARIANTS to change the modes.
# Output: $OUT/flax-cost.tar.gz (logs, round files, the CPU topology); the table last on stdout.
# Read-only towards the card: no clock, power, persistence, MIG or reset commands.
set -u
cd "$(dirname "$0")/.." || exit 1
lscpu -e 2>&1 | head -20 >/tmp/fp-cpus.txt
OUT=${OUT:-$PWD/gpu-out} FC_VARIANTS="${FP_VARIANTS:-record_api k_kernel record_nohost record_nosample}" \
	FC_ROUNDS=${FP_ROUNDS:-12} FC_SCOPES= FC_UVM= FC_JAX_S=${FP_JAX_S:-540} \
	bash workloads/flax-cost-on-gpu.sh
echo "== CPUs (lscpu -e)"
cat /tmp/fp-cpus.txt
