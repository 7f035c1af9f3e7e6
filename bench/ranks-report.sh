#!/usr/bin/env bash
# `gpuscope report DIR` over the per-rank PyTorch traces of one job (issue 24
# item 3) against reading the same files one by one, side by side: median
# wall time and peak RSS of REPS rounds (alternating which goes first).
# usage: bench/ranks-report.sh [BUILD_DIR] [REPS]   (default build, 3)
# Environment: RANKS (8), KERNELS (short kernels per step per rank, 5000;
# 5 steps), TMPDIR. The traces come from tests/analyze/gen_ranks.py (a
# made-up job: rank 1 slow), reused when present. HTA is not run here: its
# multi-rank numbers are bench/report-vs-hta.sh MULTI=8 HTA_MULTI=1.
set -u
build=${1:-build}
reps=${2:-3}
ranks=${RANKS:-8}
kernels=${KERNELS:-5000}
src=$(cd "$(dirname "$0")/.." && pwd)
gs=$build/gpuscope
[ -x "$gs" ] || gs=$src/$build/gpuscope
[ -x "$gs" ] || { echo "ranks-report: no gpuscope at $build/gpuscope (build first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "ranks-report: GNU time is needed: apt-get install time" >&2; exit 1; }
case $reps in '' | *[!0-9]* | 0) echo "ranks-report: REPS must be a positive integer" >&2; exit 2 ;; esac
dir=${TMPDIR:-/tmp}/gs-bench-ranks/r$ranks-k$kernels
if [ ! -f "$dir/rank$((ranks - 1)).json" ]; then
	python3 "$src/tests/analyze/gen_ranks.py" "$dir" --ranks "$ranks" --kernels "$kernels" || exit 1
fi
# one FILE: wall_s rss_kib
measure() {
	/usr/bin/time -f "%e %M" -o "$dir/.t" "$@" >/dev/null 2>"$dir/.err" || { cat "$dir/.err" >&2; exit 1; }
	cat "$dir/.t"
}
: >"$dir/.job"
: >"$dir/.each"
for ((i = 0; i < reps; i++)); do
	one() { measure "$gs" report "$dir" --format json --no-progress >>"$dir/.job"; }
	each() {
		local w=0 m=0 r x y
		for ((r = 0; r < ranks; r++)); do
			read -r x y < <(measure "$gs" report "$dir/rank$r.json" --format json --no-progress)
			w=$(awk -v a="$w" -v b="$x" 'BEGIN { print a + b }')
			[ "$y" -gt "$m" ] && m=$y
		done
		echo "$w $m" >>"$dir/.each"
	}
	if ((i % 2)); then each; one; else one; each; fi
done
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
jw=$(cut -d' ' -f1 "$dir/.job" | med)
jm=$(cut -d' ' -f2 "$dir/.job" | med)
ew=$(cut -d' ' -f1 "$dir/.each" | med)
em=$(cut -d' ' -f2 "$dir/.each" | med)
size=$(du -sm "$dir" | cut -f1)
echo "ranks-report: $ranks ranks, $size MB of traces, $reps rounds, medians"
printf '%-36s %8s %10s\n' "" "wall_s" "peak_MiB"
printf '%-36s %8s %10d\n' "report DIR (one job, merged)" "$jw" $((jm / 1024))
printf '%-36s %8s %10d\n' "report FILE x $ranks (one at a time)" "$ew" $((em / 1024))
awk -v a="$jw" -v b="$ew" 'BEGIN { printf "ratio job / files: %.2f\n", a / b }'
