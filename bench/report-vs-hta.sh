#!/usr/bin/env bash
# gpuscope report vs Holistic Trace Analysis on one large real-shaped PyTorch trace.
# usage: bench/report-vs-hta.sh [BUILD_DIR] [REPS]   (default build, 3)
#
# Issue #4 item 6: `gpuscope report` on a 300k-kernel kineto trace in < 10 s wall
# and < 1.5 GB peak RSS on the 2-core build machine, side by side with HTA on the
# same file in the same run. Steps:
#  (a) venv ${HTA_VENV:-/tmp/hta-venv} with HolisticTraceAnalysis==$HTA_VERSION;
#  (b) ${TMPDIR:-/tmp}/gs-bench-hta/hta-trace/rank-0.json from bench/make-big-kineto.py
#      (the H200 transformer_step trace replicated to >= ${KERNELS:-300000} kernels;
#      reused when present);
#  (c) REPS rounds, alternating which tool goes first, each under /usr/bin/time -v:
#      `gpuscope report BIG.json --format json` and HTA's TraceAnalysis(trace_dir)
#      + get_temporal_breakdown + get_idle_time_breakdown + get_gpu_kernel_breakdown;
#  (d) a table of medians (wall s, peak RSS MiB), ratios HTA/gpuscope, the targets,
#      and gpuscope's primary finding. When gpuscope misses a target, one
#      `gpuscope import` + report-on-the-database run shows where the time goes.
# Environment: KERNELS, HTA_VENV, HTA_REPS (HTA rounds, default REPS), HTA_TIMEOUT
# (s per HTA run, default 1200), HTA_MEM_GB (address-space cap per HTA run, default 20),
# PHASES=0|1 (force the import/report phase split off or on),
# MULTI (issue #25 item 4: that many rank copies of the trace, default 8, 0 = skip) loaded
# and analysed together by bench_bench_load_many (trace_load_many), REPS rounds; HTA on
# them only with HTA_MULTI=1 (it needs about 5.3 GB per 1 GB rank file).
# Exit: non-zero when gpuscope fails; HTA failures are reported, not fatal.
set -u
build=${1:-build}
reps=${2:-3}
HTA_VERSION=0.5.0
kernels=${KERNELS:-300000}
venv=${HTA_VENV:-/tmp/hta-venv}
hta_reps=${HTA_REPS:-$reps}
hta_timeout=${HTA_TIMEOUT:-1200}
hta_mem_gb=${HTA_MEM_GB:-20}
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=${TMPDIR:-/tmp}/gs-bench-hta
gs=$build/gpuscope
[ -x "$gs" ] || gs=$src/$build/gpuscope
[ -x "$gs" ] || { echo "report-vs-hta: no gpuscope binary at $build/gpuscope (build first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "report-vs-hta: /usr/bin/time (GNU time) is needed: apt-get install time" >&2; exit 1; }
case $reps in ''|*[!0-9]*|0) echo "report-vs-hta: REPS must be a positive integer" >&2; exit 2;; esac
mkdir -p "$tmp/hta-trace"
big=$tmp/hta-trace/rank-0.json
echo "== report-vs-hta: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), gpuscope $gs"

# (a) HTA venv
hta_ok=1
hta_why=
if [ ! -x "$venv/bin/python" ]; then
	echo "-- creating venv $venv"
	python3 -m venv "$venv" || { hta_ok=0; hta_why="python3 -m venv $venv failed"; }
fi
if [ $hta_ok = 1 ]; then
	have=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("HolisticTraceAnalysis"))' 2>/dev/null)
	if [ "$have" != "$HTA_VERSION" ]; then
		echo "-- pip install HolisticTraceAnalysis==$HTA_VERSION into $venv"
		"$venv/bin/pip" install -q "HolisticTraceAnalysis==$HTA_VERSION" || { hta_ok=0; hta_why="pip install HolisticTraceAnalysis==$HTA_VERSION failed"; }
	fi
fi
if [ $hta_ok = 1 ]; then
	echo "-- HTA: $("$venv/bin/python" -c 'import importlib.metadata as m, sys
print("HolisticTraceAnalysis", m.version("HolisticTraceAnalysis"), "pandas", m.version("pandas"), "numpy", m.version("numpy"), "python", sys.version.split()[0])' 2>&1)"
	"$venv/bin/python" -c 'import ijson' 2>/dev/null && echo "   (ijson installed: HTA may pick its ijson parser)" \
		|| echo "   (no ijson: HTA parses with its default json backend, as a plain pip install does)"
else
	echo "-- HTA unavailable: $hta_why (measuring gpuscope only)"
fi

# (b) the big trace
info=$tmp/trace.info
# reused only when made by this generator from this source for this kernel count
key="kernels_wanted=$kernels gen=$(md5sum <"$src/bench/make-big-kineto.py" | cut -c1-12) src=$(md5sum <"$src/tests/fixtures/pytorch/transformer_step.json.gz" | cut -c1-12)"
if [ -f "$big" ] && [ -f "$info" ] && grep -qxF "$key" "$info"; then
	echo "-- reusing $big"
else
	echo "-- generating $big (>= $kernels kernels) with bench/make-big-kineto.py"
	rm -f "$big" "$info"
	if ! python3 "$src/bench/make-big-kineto.py" --kernels "$kernels" "$big.tmp" 2>"$tmp/gen.txt"; then
		cat "$tmp/gen.txt" >&2
		echo "report-vs-hta: make-big-kineto.py failed" >&2
		exit 1
	fi
	mv "$big.tmp" "$big"
	{ echo "$key"; cat "$tmp/gen.txt"; } >"$info"
fi
bytes=$(stat -c %s "$big")
stats=$(grep '^copies=' "$info")
echo "-- trace: $big: $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB (%d bytes)", b/1e6, b }'), $stats"
grep '^make-big-kineto:' "$info" | sed 's/^/   /'
cat "$big" >/dev/null  # page cache warm for both tools

# HTA run: the comparable analysis, each call timed; failures are reported and the rest go on
cp "$src/bench/hta-run.py" "$tmp/hta_run.py"

# wall seconds and peak RSS KiB from a GNU time -v file
wall_of() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s*60 + p[i]; printf "%.2f", s}' "$1"; }
rss_of() { awk -F': ' '/Maximum resident set size/ {print $2}' "$1"; }
median() { sort -g | awk '{v[NR] = $1} END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR+1)/2]; else printf "%.2f", (v[NR/2] + v[NR/2+1]) / 2 }'; }

gs_w=() gs_r=() hta_w=() hta_r=()
gs_fail=0
run_gs() {
	local i=$1 out=/dev/null
	[ "$i" = 1 ] && out=$tmp/report-1.json
	/usr/bin/time -v "$gs" report "$big" --format json >"$out" 2>"$tmp/gs-$i.err"
	local rc=$?
	sed -n '/Command being timed/q;p' "$tmp/gs-$i.err" >"$tmp/gs-$i.stderr"
	if [ $rc != 0 ]; then
		echo "   gpuscope run $i FAILED (exit $rc):"
		sed 's/^/     /' "$tmp/gs-$i.stderr" | head -20
		gs_fail=1
		return
	fi
	local w r
	w=$(wall_of "$tmp/gs-$i.err") r=$(rss_of "$tmp/gs-$i.err")
	gs_w+=("$w") gs_r+=("$r")
	echo "   gpuscope run $i: $w s wall, $((r / 1024)) MiB peak RSS"
}
hta_runs=0
run_hta() {
	local i=$1
	[ $hta_ok = 1 ] || return
	[ $hta_runs -lt "$hta_reps" ] || return
	hta_runs=$((hta_runs + 1))
	(ulimit -v $((hta_mem_gb * 1024 * 1024)); cd "$tmp" && exec /usr/bin/time -v timeout -s KILL "$hta_timeout" \
		"$venv/bin/python" "$tmp/hta_run.py" "$tmp/hta-trace") >"$tmp/hta-$i.log" 2>&1
	local rc=$?
	local calls
	calls=$(grep '^HTA-RESULT' "$tmp/hta-$i.log" | sed 's/^HTA-RESULT //' | paste -sd ';' | sed 's/;/; /g')
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "   HTA run $i KILLED after the ${hta_timeout} s limit (rc $rc); reached: ${calls:-nothing}"
		hta_ok=0 hta_why="run $i passed the ${hta_timeout} s limit"
		return
	fi
	if ! grep -q '^HTA-RESULT load ok' "$tmp/hta-$i.log"; then
		echo "   HTA run $i FAILED (rc $rc): ${calls:-no result}; last lines of $tmp/hta-$i.log:"
		grep -v '^HTA-RESULT' "$tmp/hta-$i.log" | sed -n '/Command being timed/q;p' | tail -8 | sed 's/^/     /'
		grep -q 'MemoryError\|Cannot allocate\|std::bad_alloc' "$tmp/hta-$i.log" && echo "     (out of memory under the ${hta_mem_gb} GB cap)"
		hta_ok=0 hta_why="run $i failed (rc $rc)"
		return
	fi
	local w r
	w=$(wall_of "$tmp/hta-$i.log") r=$(rss_of "$tmp/hta-$i.log")
	hta_w+=("$w") hta_r+=("$r")
	echo "   HTA run $i: $w s wall, $((r / 1024)) MiB peak RSS ($calls)"
	if [ "${w%.*}" -gt 600 ] && [ "$hta_reps" -gt 1 ] && [ -z "${HTA_REPS:-}" ]; then
		hta_reps=$hta_runs
		echo "   (HTA took over 600 s: no more HTA runs; set HTA_REPS to force them)"
	fi
}

# (c) the rounds
echo "-- $reps round(s), alternating order (HTA: at most $hta_reps run(s), ${hta_timeout} s and ${hta_mem_gb} GB cap each)"
for i in $(seq 1 "$reps"); do
	if [ $((i % 2)) = 1 ]; then run_gs "$i"; run_hta "$i"; else run_hta "$i"; run_gs "$i"; fi
done
if [ ${#gs_w[@]} = 0 ]; then
	echo "report-vs-hta: every gpuscope run failed" >&2
	exit 1
fi

# (d) the table
gw=$(printf '%s\n' "${gs_w[@]}" | median)
gr=$(printf '%s\n' "${gs_r[@]}" | median)
grm=$(awk -v r="$gr" 'BEGIN { printf "%.0f", r/1024 }')
echo
echo "== results: $(basename "$big"), $(awk -v b="$bytes" 'BEGIN { printf "%.0f MB", b/1e6 }'), $stats"
printf '%-28s %5s %14s %20s\n' tool runs "median wall s" "median peak RSS MiB"
printf '%-28s %5s %14s %20s\n' "gpuscope report" "${#gs_w[@]}" "$gw" "$grm"
if [ ${#hta_w[@]} -gt 0 ]; then
	hw=$(printf '%s\n' "${hta_w[@]}" | median)
	hr=$(printf '%s\n' "${hta_r[@]}" | median)
	printf '%-28s %5s %14s %20s\n' "HTA $HTA_VERSION" "${#hta_w[@]}" "$hw" "$(awk -v r="$hr" 'BEGIN { printf "%.0f", r/1024 }')"
	awk -v hw="$hw" -v gw="$gw" -v hr="$hr" -v gr="$gr" 'BEGIN {
		printf "%-28s %5s %14s %20s\n", "ratio HTA/gpuscope", "", (gw > 0 ? sprintf("%.1fx", hw/gw) : "-"), sprintf("%.1fx", hr/gr) }'
else
	printf '%-28s %5s %14s %20s\n' "HTA $HTA_VERSION" 0 - -
	echo "(no HTA number: ${hta_why:-HTA unavailable})"
fi
[ $hta_ok = 0 ] && [ ${#hta_w[@]} -gt 0 ] && echo "(HTA stopped early: $hta_why)"
miss=
t_ok=$(awk -v w="$gw" 'BEGIN { print (w < 10) ? "met" : "MISSED" }')
m_ok=$(awk -v r="$gr" 'BEGIN { print (r * 1024 < 1.5e9) ? "met" : "MISSED" }')
[ "$t_ok" = met ] || miss=1
[ "$m_ok" = met ] || miss=1
echo "targets (gpuscope): wall < 10 s: $t_ok ($gw s); peak memory < 1.5 GB: $m_ok ($(awk -v r="$gr" 'BEGIN { printf "%.2f GB", r*1024/1e9 }'))"
echo "raw gpuscope wall s: ${gs_w[*]}; peak RSS KiB: ${gs_r[*]}"
[ ${#hta_w[@]} -gt 0 ] && echo "raw HTA wall s: ${hta_w[*]}; peak RSS KiB: ${hta_r[*]}"
echo "gpuscope primary finding (run 1): $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d.get("primary")
f = next((x for x in d.get("findings", []) if x.get("id") == p), None)
s = d.get("summary", {})
print("%s (%s, impact %.1f%%): %s" % (p, f.get("severity"), f.get("impact_pct", 0), f.get("title")) if f else str(p))
print("   summary: %s kernels, %s copies, %s memsets, %s API calls, GPU busy %.1f%%" % (s.get("kernels"), s.get("copies"), s.get("memsets"), s.get("api_calls"), s.get("gpu_busy_pct", 0)))
' "$tmp/report-1.json" 2>&1)"
[ -s "$tmp/gs-1.stderr" ] && { echo "gpuscope stderr (run 1):"; head -5 "$tmp/gs-1.stderr" | sed 's/^/   /'; }

# where the time goes, when a target is missed (or PHASES=1)
if [ "${PHASES:-${miss:+1}}" = 1 ]; then
	echo
	echo "-- phases: gpuscope import BIG.json -o DB, then gpuscope report DB"
	rm -f "$tmp/big.db"
	/usr/bin/time -v "$gs" import "$big" -o "$tmp/big.db" --no-progress >/dev/null 2>"$tmp/imp.err" \
		&& echo "   import:           $(wall_of "$tmp/imp.err") s wall, $(($(rss_of "$tmp/imp.err") / 1024)) MiB peak RSS, db $(($(stat -c %s "$tmp/big.db") / 1048576)) MiB" \
		|| { echo "   import FAILED:"; sed -n '/Command being timed/q;p' "$tmp/imp.err" | head -5 | sed 's/^/     /'; }
	if [ -f "$tmp/big.db" ]; then
		/usr/bin/time -v "$gs" report "$tmp/big.db" --format json >/dev/null 2>"$tmp/rdb.err" \
			&& echo "   report on the db: $(wall_of "$tmp/rdb.err") s wall, $(($(rss_of "$tmp/rdb.err") / 1024)) MiB peak RSS" \
			|| { echo "   report on the db FAILED:"; sed -n '/Command being timed/q;p' "$tmp/rdb.err" | head -5 | sed 's/^/     /'; }
	fi
	rm -f "$tmp/big.db"
fi
# several rank files at once (trace_load_many: files in parallel, streamed)
multi=${MULTI:-8}
many=$build/bench_bench_load_many
[ -x "$many" ] || many=$src/$build/bench_bench_load_many
if [ "$multi" -gt 0 ] && [ -x "$many" ]; then
	echo
	echo "-- $multi rank files at once: $many 0 DIR ($multi links to the trace), $reps round(s)"
	rm -rf "$tmp/multi"
	mkdir -p "$tmp/multi"
	for i in $(seq 0 $((multi - 1))); do ln -s "$big" "$tmp/multi/rank-$i.json"; done
	mw=() mr=()
	for i in $(seq 1 "$reps"); do
		if /usr/bin/time -v "$many" 0 "$tmp/multi" >"$tmp/many-$i.out" 2>"$tmp/many-$i.err"; then
			mw+=("$(wall_of "$tmp/many-$i.err")") mr+=("$(rss_of "$tmp/many-$i.err")")
			echo "   round $i: ${mw[-1]} s wall, $((mr[-1] / 1024)) MiB peak RSS; $(cat "$tmp/many-$i.out")"
		else
			echo "   round $i FAILED: $(head -3 "$tmp/many-$i.err")"
			gs_fail=1
		fi
	done
	if [ ${#mw[@]} -gt 0 ]; then
		w=$(printf '%s\n' "${mw[@]}" | median) r=$(printf '%s\n' "${mr[@]}" | median)
		echo "== $multi x $(awk -v b="$bytes" 'BEGIN { printf "%.2f GB", b/1e9 }'): median $w s wall, $((${r%.*} / 1024)) MiB peak RSS;" \
			"targets < 20 s: $(awk -v w="$w" 'BEGIN { print (w < 20) ? "met" : "MISSED" }'), < 2 GiB: $(awk -v r="$r" 'BEGIN { print (r < 2097152) ? "met" : "MISSED" }')"
	fi
	if [ "${HTA_MULTI:-0}" = 1 ] && [ $hta_ok = 1 ]; then
		(ulimit -v $((hta_mem_gb * 1024 * 1024)); cd "$tmp" && exec /usr/bin/time -v timeout -s KILL "$hta_timeout" \
			"$venv/bin/python" "$tmp/hta_run.py" "$tmp/multi") >"$tmp/hta-multi.log" 2>&1 \
			&& echo "   HTA on $multi ranks: $(wall_of "$tmp/hta-multi.log") s wall, $(($(rss_of "$tmp/hta-multi.log") / 1024)) MiB peak RSS" \
			|| echo "   HTA on $multi ranks FAILED or was killed (see $tmp/hta-multi.log)"
	else
		echo "   (HTA not run on $multi ranks: about 5.3 GB per 1 GB rank file, $((multi * 53 / 10)) GB in all; HTA_MULTI=1 runs it)"
	fi
fi
exit $gs_fail
