#!/usr/bin/env bash
# GPUSCOPE_TIMING=1 (issue #25): report prints one timing line on stderr with
# every phase (read, parse, post passes, load, sort, analysis, render) as
# wall/CPU seconds and the peak RSS, for a PyTorch trace (.json.gz, the fast
# path), a plain .json and a gpuscope database; stdout is byte-identical to a
# run without it, and without it stderr has no such line.
# usage: timing_line.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
T=$tmp
gunzip -c "$src/tests/fixtures/pytorch/transformer_step.json.gz" >"$T/step.json"
db=$(ls "$src"/tests/fixtures/zoo/*.db | head -1)
for f in "$src/tests/fixtures/pytorch/transformer_step.json.gz" "$T/step.json" "$db"; do
	name=$(basename "$f")
	"$bin" report --format json "$f" >"$T/plain.out" 2>"$T/plain.err" || { bad "$name: report failed"; continue; }
	GPUSCOPE_TIMING=1 "$bin" report --format json "$f" >"$T/timed.out" 2>"$T/timed.err" || { bad "$name: timed report failed"; continue; }
	cmp -s "$T/plain.out" "$T/timed.out" || bad "$name: GPUSCOPE_TIMING changed stdout"
	grep -q '^gpuscope timing' "$T/plain.err" && bad "$name: a timing line without GPUSCOPE_TIMING"
	line=$(grep '^gpuscope timing (wall/CPU s' "$T/timed.err")
	[ "$(grep -c '^gpuscope timing' "$T/timed.err")" = 1 ] || { bad "$name: not one timing line: $(cat "$T/timed.err")"; continue; }
	phases="load sort analysis render"
	case $name in *.json*) phases="read parse post passes $phases" ;; esac
	for p in $phases; do
		echo "$line" | grep -qE "[:,] ([a-z ]* )?$p[a-z ]* [0-9]+\.[0-9]{3}/[0-9]+\.[0-9]{3}" ||
			bad "$name: no '$p' phase in: $line"
	done
	echo "$line" | grep -qE '; total [0-9]+\.[0-9]{3} s wall, [0-9]+\.[0-9]{3} s CPU; peak RSS [1-9][0-9]* MiB$' ||
		bad "$name: no total and peak RSS in: $line"
	# the CPU total is the process's: at least the analysis phase's CPU
	echo "$line" | awk '{
		for (i = 1; i <= NF; i++) if ($i == "analysis") { split($(i + 1), a, "/"); an = a[2] }
		for (i = 1; i <= NF; i++) if ($i == "wall,") cpu = $(i + 1)
		exit !(an != "" && cpu + 0 >= an + 0) }' || bad "$name: total CPU below the analysis phase's: $line"
	[ $fail = 0 ] && ok "$name: $line"
done
GPUSCOPE_TIMING=0 "$bin" report "$db" >/dev/null 2>"$T/zero.err"
grep -q '^gpuscope timing' "$T/zero.err" && bad "GPUSCOPE_TIMING=0 printed a timing line"
# GPUSCOPE_TIMING=passes: the phase line, and before it a line per pass table
# run (the engine's and the diagnosis'), every pass of the engine's named once
# with start <= end; GPUSCOPE_TIMING=1 prints no pass line
f=$src/tests/fixtures/pytorch/transformer_step.json.gz
GPUSCOPE_TIMING=passes "$bin" report --format json "$f" >"$T/passes.out" 2>"$T/passes.err" ||
	bad "GPUSCOPE_TIMING=passes: report failed"
"$bin" report --format json "$f" >"$T/plain2.out" 2>/dev/null
cmp -s "$T/plain2.out" "$T/passes.out" ||
	bad "GPUSCOPE_TIMING=passes changed stdout"
grep -q '^gpuscope timing (wall/CPU s' "$T/passes.err" || bad "GPUSCOPE_TIMING=passes: no phase line"
engine=$(grep '^gpuscope passes (start-end/CPU s): timeline ' "$T/passes.err" | head -1)
for p in timeline idle phases launch kernels ops hostidle hostwait series_build; do
	echo "$engine" | grep -qE "[:,] $p [0-9]+\.[0-9]{3}-[0-9]+\.[0-9]{3}/[0-9]+\.[0-9]{3}(,|$)" ||
		bad "GPUSCOPE_TIMING=passes: no '$p' in the engine's line: $engine"
done
echo "$engine" | tr ',' '\n' | awk '{ split($NF, a, "[-/]"); if (a[1] + 0 > a[2] + 0) exit 1 }' ||
	bad "GPUSCOPE_TIMING=passes: a pass ends before it starts: $engine"
grep -qE '^gpuscope passes \(start-end/CPU s\): rules [0-9.]+-[0-9.]+/[0-9.]+, unprofiled ' "$T/passes.err" ||
	bad "GPUSCOPE_TIMING=passes: no diagnosis line"
grep -q '^gpuscope passes' "$T/timed.err" && bad "GPUSCOPE_TIMING=1 printed pass lines"
[ $fail = 0 ] && ok "GPUSCOPE_TIMING=passes: $(grep -c '^gpuscope passes' "$T/passes.err") pass lines"
exit $fail
