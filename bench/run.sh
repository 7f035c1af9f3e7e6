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
echo "== serve-bench.py (issue 19 targets; SERVE_BENCH_S=60)"
python3 "$(dirname "$0")/serve-bench.py" "$build/gpuscope" "${SERVE_BENCH_S:-60}"
