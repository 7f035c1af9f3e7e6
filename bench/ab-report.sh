#!/usr/bin/env bash
# Side by side: `gpuscope report INPUT --format json` by two or more binaries,
# N rounds interleaved (the order rotating each round, so a change of load
# falls on all of them), then each binary's medians: wall and CPU seconds
# (user + sys), peak RSS, and GPUSCOPE_TIMING's load and
# analysis phases (wall/CPU). Says when the binaries' outputs differ.
# The README-report-speed.md tables since section 12 are made with it.
# usage: bench/ab-report.sh INPUT N BIN...
set -u
if [ $# -lt 3 ]; then
	echo "usage: $0 INPUT N BIN..." >&2
	exit 2
fi
in=$1
n=$2
shift 2
bins=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
declare -A W C R A L
med() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
medpair() { tr ' ' '\n' | grep . | sort -t/ -k1g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$n"); do
	for k in $(seq 0 $((${#bins[@]} - 1))); do
		j=$(((k + i) % ${#bins[@]}))
		# bench/speed-measure.py: wall, user + sys, peak RSS (GNU time and bc
		# may be missing, as on the GPU host)
		GPUSCOPE_TIMING=1 python3 "$here/speed-measure.py" - 600 "$tmp/out-$j.json" "$tmp/err" \
			-- "${bins[$j]}" report "$in" --format json >"$tmp/t"
		read -r _ w c m < <(sed 's/[a-z_]*=//g' "$tmp/t")
		W[$j]+="$w "
		C[$j]+="$c "
		R[$j]+="$m "
		A[$j]+="$(grep -o 'analysis [0-9.]*/[0-9.]*' "$tmp/err" | head -1 | cut -d' ' -f2) "
		L[$j]+="$(grep -o ' load [0-9.]*/[0-9.]*' "$tmp/err" | head -1 | cut -d' ' -f3) "
	done
	for j in $(seq 1 $((${#bins[@]} - 1))); do
		cmp -s "$tmp/out-0.json" "$tmp/out-$j.json" || echo "round $i: ${bins[$j]}'s output differs"
	done
done
for j in $(seq 0 $((${#bins[@]} - 1))); do
	echo "${bins[$j]}: wall $(echo "${W[$j]}" | med) s [${W[$j]}] CPU $(echo "${C[$j]}" | med) s," \
		"peak RSS $(echo "${R[$j]}" | med) MiB, load $(echo "${L[$j]}" | medpair)," \
		"analysis $(echo "${A[$j]}" | medpair) (wall/CPU s)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
