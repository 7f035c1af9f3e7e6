#!/usr/bin/env bash
# build-zoo.sh - compile every workloads/cuda/*.cu into .gpu/bin/NAME
# (nvcc -O2 -arch=sm_90 -lineinfo). Run from anywhere; NVCC overrides nvcc.
# BIN_DIR overrides the output folder. ptxas -v output (registers, shared
# memory, spills per kernel) goes to BIN_DIR/ptxas.txt.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${BIN_DIR:-$root/.gpu/bin}
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null 2>&1 || nvcc=/usr/local/cuda/bin/nvcc
mkdir -p "$out"
: >"$out/ptxas.txt"
fail=0
for src in "$root"/workloads/cuda/*.cu; do
	name=$(basename "$src" .cu)
	if "$nvcc" -O2 -arch=sm_90 -lineinfo -Xptxas -v -o "$out/$name" "$src" \
		2>>"$out/ptxas.txt"; then
		echo "built $out/$name"
	else
		echo "build-zoo: failed to build '$name'" >&2
		fail=1
	fi
done
exit $fail
