#!/usr/bin/env bash
# Writes report (text, json), diff (text, json) and export (perfetto, csv)
# output for every committed fixture into OUTDIR, so that a refactoring can
# prove its output byte-identical: run it before and after, then
# `diff -r BEFORE AFTER`.
# usage: scripts/golden.sh BUILD/gpuscope OUTDIR
set -u
bin=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
# relative paths, so that two checkouts give the same output
cd "$(dirname "$0")/.." || exit 1
fixtures=$(ls tests/fixtures/zoo/*.db tests/fixtures/pytorch/*.db \
	tests/fixtures/pytorch/*.json.gz tests/fixtures/procs/*.db \
	tests/fixtures/kineto-synthetic/*.json examples/*.db 2>/dev/null)
for f in $fixtures; do
	n=$(basename "$(dirname "$f")")_$(basename "$f")
	"$bin" report "$f" >"$out/$n.report.txt" 2>"$out/$n.report.err"
	echo "rc=$?" >>"$out/$n.report.err"
	"$bin" report --format json "$f" | sed 's#"file": "[^"]*"#"file": ""#' >"$out/$n.report.json" 2>/dev/null
	"$bin" report --whole "$f" >"$out/$n.whole.txt" 2>&1
	"$bin" export "$f" --format perfetto -o "$out/$n.perfetto.json" >/dev/null 2>&1
	mkdir -p "$out/$n.csv"
	"$bin" export "$f" --format csv -o "$out/$n.csv" >/dev/null 2>&1
done
# diff: each zoo and pytorch fixture against the next one, and with itself
prev=""
for f in $fixtures; do
	n=$(basename "$f")
	if [ -n "$prev" ]; then
		"$bin" diff "$prev" "$f" >"$out/diff_$(basename "$prev")_$n.txt" 2>&1
		"$bin" diff --format json "$prev" "$f" >"$out/diff_$(basename "$prev")_$n.json" 2>&1
	fi
	"$bin" diff "$f" "$f" >"$out/diff_self_$n.txt" 2>&1
	prev=$f
done
echo "golden: $(ls "$out" | wc -l) outputs in $out"
