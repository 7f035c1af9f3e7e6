#!/usr/bin/env bash
# Size and opening time of report --format html on 1M-kernel traces (issue 20:
# <= 5 MB, opened in < 2 s in Chromium), beside a small real fixture.
# usage: bench/html-bench.sh [BUILD_DIR] [RUNS]   (default build, 5)
# The traces are made once under ${TMPDIR:-/tmp}/gs-bench-html: synth-1m.db by
# bench_report (1M kernels on 4 streams with launches, syncs, NVTX steps and GPM
# samples), kineto-1m.db from bench/make-big-kineto.py (the H200 transformer_step
# PyTorch trace replicated to 1M kernels, 3.6 GB of JSON, imported; skip it with
# KINETO=0). Needs chromium (scripts/install-deps.sh).
set -eu
build=${1:-build}
runs=${2:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=${TMPDIR:-/tmp}/gs-bench-html
mkdir -p "$tmp"
[ -f "$tmp/synth-1m.db" ] || "$build/bench_bench_report" 1000000 "$tmp/synth-1m.db" >/dev/null
dbs="$src/tests/fixtures/pytorch/transformer_step.db $tmp/synth-1m.db"
if [ "${KINETO:-1}" != 0 ]; then
	if [ ! -f "$tmp/kineto-1m.db" ]; then
		python3 "$src/bench/make-big-kineto.py" --kernels 1000000 "$tmp/kineto-1m.json"
		"$build/gpuscope" import "$tmp/kineto-1m.json" -o "$tmp/kineto-1m.db" --no-progress
		rm -f "$tmp/kineto-1m.json"
	fi
	dbs="$dbs $tmp/kineto-1m.db"
fi
python3 "$src/bench/html-bench.py" "$build/gpuscope" "$runs" $dbs
