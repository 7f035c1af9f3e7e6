#!/usr/bin/env bash
# Import throughput and peak memory on a generated kineto trace.
# usage: bench/bench_import.sh [BUILD_DIR] [MEGABYTES]   (default build, 500)
# Prints MB/s of JSON text parsed and peak RSS (GNU time), for .json and .json.gz.
set -eu
build=${1:-build}
mb=${2:-500}
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=${TMPDIR:-/tmp}/gs-bench-import
mkdir -p "$tmp"
[ -f "$tmp/big-$mb.json" ] || python3 "$src/bench/gen-kineto.py" "$tmp/big-$mb.json" "$mb"
[ -f "$tmp/big-$mb.json.gz" ] || gzip -1 -k "$tmp/big-$mb.json"
bytes=$(stat -c %s "$tmp/big-$mb.json")
for f in "$tmp/big-$mb.json" "$tmp/big-$mb.json.gz"; do
	rm -f "$tmp/out.db"
	/usr/bin/time -v "$build/gpuscope" import "$f" -o "$tmp/out.db" --no-progress \
		>"$tmp/out.txt" 2>"$tmp/time.txt"
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tmp/time.txt")
	secs=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt")
	echo "$(basename "$f"): $(awk -v b="$bytes" -v s="$secs" 'BEGIN { printf "%.0f MB/s of json (%.1f s for %.0f MB)", b/1e6/s, s, b/1e6 }'), peak RSS $((rss / 1024)) MiB"
	cat "$tmp/out.txt"
done
rm -f "$tmp/out.db"
