#!/usr/bin/env bash
# Runs the CPU benchmarks built under BUILD (default build/). GPU benchmarks
# (bench/record-overhead.sh) run on the GPU machine through workloads/run-on-gpu.sh.
set -u
build=${1:-build}
for b in "$build"/bench_*; do
	[ -x "$b" ] || continue
	echo "== $(basename "$b")"
	"$b" || echo "(failed: $?)"
done
