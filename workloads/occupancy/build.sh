#!/usr/bin/env bash
# build.sh - compile the occupancy sweep for the H200 (sm_90).
# usage: workloads/occupancy/build.sh OUTDIR   -> OUTDIR/occupancy-sweep
set -eu
out=${1:?usage: build.sh OUTDIR}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$out"
"$nvcc" -O2 -arch=sm_90 -o "$out/occupancy-sweep" "$(dirname "$0")/sweep.cu"
echo "built $out/occupancy-sweep"
