#!/usr/bin/env bash
# bench/speed-on-gpu.sh - issue 38's report-speed targets, measured on an idle machine, side by
# side with Holistic Trace Analysis in the same run.
# usage: [BUDGET_S=200] [SPEED_CPUS=2,3] [SPEED_CPUS2=8-15] bash bench/speed-on-gpu.sh [BUILD_DIR]
#        (default BUILD_DIR .gpu/build)
#
# The 2-core build machine is shared and loaded, so its timings are noisy. The GPU host has 16
# idle cores: every measured run is pinned to a set of them, which emulates a machine of that
# many cores (gpuscope sizes its threads by the affinity mask). SPEED_CPUS (or CPUS; default
# 2,3) is the first set; SPEED_CPUS2 (e.g. 8-15) a second one, so that one call measures 2 and 8
# cores: every case runs on each set in turn. Inputs are made there (nothing over 64 MiB
# travels), on GEN_CPUS: by default the CPUs no set uses, or the first set when SPEED_CPUS is
# set without a second (workloads/run-session-h200.sh runs this beside the GPU stages on
# SPEED_CPUS=14,15, and the generators must keep off their CPUs too):
#   big.json     bench/make-big-kineto.py --kernels KERNELS (default 300000: 1.09 GB, 4.27M events)
#   big.json.gz  gzip -6 of it (Python's gzip module when gzip(1) is missing)
#   10m.db       BUILD/bench_bench_report DB_KERNELS DB (default 10M kernels, ~565 MiB)
#   multi/       MULTI (default 8) links to big.json, loaded together by BUILD/bench_bench_load_many
# Then REPS (default 5) runs of each case on each set, in this order, as long as the budget lasts:
#   json   gpuscope report big.json --format json      (2 CPUs: <= 1.1 s; 8 CPUs: <= 0.4 s; <= 256 MiB)
#   gz     gpuscope report big.json.gz --format json   (the same within 15%: 1.265 s, 0.46 s)
#   db     gpuscope report 10m.db --format json        (2 CPUs: < 3 s)
#   hta    HTA's TraceAnalysis + temporal, idle and kernel breakdowns on big.json, HTA_REPS
#          (default 3) runs pinned to the first set, when HolisticTraceAnalysis imports (from
#          .whl/ in the repository root, bench/fetch-hta.sh, installed here into WORK when
#          python3 cannot import it already); the table gives HTA/gpuscope ratios of wall time
#          and peak RSS against report big.json on the same CPUs (the goal: >= 50x)
#   multi  bench_bench_load_many 0 multi/              (2 CPUs: < 20 s, < 2 GiB)
# each under bench/speed-measure.py (wall, user+sys CPU, peak RSS; a timeout per run from the
# budget left) with GPUSCOPE_TIMING=1 (gpuscope's per-phase line on stderr, kept in the logs).
# A case whose next run would not fit the budget stops there (the table says how many ran).
# CASES (json gz db hta multi) picks the cases, CASES2 (json gz db) those run on the second set.
# Output: a short table last on stdout, each figure beside its target; $OUT/speed-h200.tar.gz
# (logs, per-run lines, the table, the first run's report of each input, machine facts). Exit 0
# when every gpuscope run that started succeeded; the targets are reported, not enforced.
#
# Needs (carried, built from main with cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo into
# .gpu/build): gpuscope, bench_bench_report, bench_bench_load_many (cmake targets of the same
# names), and libisal.so.2 copied beside them (/usr/lib/x86_64-linux-gnu/libisal.so.2, 324 KiB;
# without it .json.gz is inflated by zlib and the table says so); for HTA, .whl/ carried.
# Environment: BUDGET_S (200), SPEED_CPUS or CPUS (2,3), SPEED_CPUS2 (none), GEN_CPUS, REPS (5),
# HTA_REPS (3), KERNELS (300000), DB_KERNELS (10000000), MULTI (8; 0 skips), CASES, CASES2,
# WORK (${TMPDIR:-/tmp}/gs-speed), OUT.
set -u
t_start=$(date +%s)
budget=${BUDGET_S:-200}
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-.gpu/build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
cpus=${SPEED_CPUS:-${CPUS:-2,3}}
cpus2=${SPEED_CPUS2:-}
reps=${REPS:-5}
hta_reps=${HTA_REPS:-3}
kernels=${KERNELS:-300000}
db_kernels=${DB_KERNELS:-10000000}
multi=${MULTI:-8}
cases=${CASES:-json gz db hta multi}
cases2=${CASES2:-json gz db}
work=${WORK:-${TMPDIR:-/tmp}/gs-speed}
out=${OUT:-$work/out}
logs=$work/logs
py="python3 -S"
measure="$py $src/bench/speed-measure.py"
for b in gpuscope bench_bench_report bench_bench_load_many; do
	[ -x "$build/$b" ] || { echo "speed-on-gpu: $build/$b missing (cmake --build BUILD --target $b)" >&2; exit 1; }
done
case $reps$hta_reps in '' | *[!0-9]* | 0*) echo "speed-on-gpu: REPS and HTA_REPS must be positive integers" >&2; exit 2 ;; esac
rm -rf "$work"
mkdir -p "$work/multi" "$logs" "$out"
export LD_LIBRARY_PATH=$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} GPUSCOPE_TIMING=1
left() { echo $((budget - ($(date +%s) - t_start))); }
ncpu=$(nproc --all 2>/dev/null || getconf _NPROCESSORS_ONLN)
# how many CPUs a taskset-style list names
ncpus_of() { $py -c '
import sys
n = set()
for p in sys.argv[1].split(","):
    a, _, b = p.partition("-"); n.update(range(int(a), int(b or a) + 1))
print(len(n))' "$1"; }
# the generators run on the CPUs the bench does not use, unless told or beside other stages
gen_cpus=${GEN_CPUS:-}
[ -z "$gen_cpus" ] && [ -n "${SPEED_CPUS:-}" ] && [ -z "$cpus2" ] && gen_cpus=$cpus
[ -n "$gen_cpus" ] || gen_cpus=$($py -c '
import os, sys
want = set()
for p in sys.argv[1].split(","):
    a, _, b = p.partition("-"); want.update(range(int(a), int(b or a) + 1))
rest = sorted(os.sched_getaffinity(0) - want)
print(",".join(map(str, rest)) if rest else "-")' "$cpus${cpus2:+,$cpus2}")
{
	echo "== speed-on-gpu: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $ncpu CPUs, measured on CPUs $cpus${cpus2:+ and on CPUs $cpus2}, generators on ${gen_cpus}"
	echo "   $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), load: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "   gpuscope: $("$build/gpuscope" --version 2>&1 | head -1); budget $budget s; reps $reps"
	if [ -e "$build/libisal.so.2" ]; then echo "   libisal.so.2: carried (ISA-L inflate)"; else echo "   libisal.so.2: not carried (zlib inflate for .gz)"; fi
} | tee "$work/machine.txt"

# the inputs
gen() { # NAME CMD...: run on the generator CPUs, log to logs/gen-NAME.txt
	local name=$1
	shift
	$measure "$gen_cpus" "$(left)" - "$logs/gen-$name.txt" -- "$@" >"$logs/gen-$name.res"
	echo "-- made $name: $(cat "$logs/gen-$name.res")"
	grep -q '^rc=0 ' "$logs/gen-$name.res"
}
big=$work/big.json
# the database beside the trace, then gzip (nothing here is measured)
case " $cases " in *" db "*) (gen db "$build/bench_bench_report" "$db_kernels" "$work/10m.db") & pid_db=$! ;; *) pid_db= ;; esac
gen trace $py "$src/bench/make-big-kineto.py" --kernels "$kernels" "$big" || { cat "$logs/gen-trace.txt" >&2; exit 1; }
tail -1 "$logs/gen-trace.txt" | sed 's/^/   /'
bytes=$(stat -c %s "$big")
for i in $(seq 0 $((multi - 1))); do ln -s "$big" "$work/multi/rank-$i.json"; done
case " $cases " in
*" gz "*)
	if command -v gzip >/dev/null; then
		gen gz sh -c "gzip -6 -c '$big' >'$big.gz'"
	else
		gen gz $py -c "import gzip, shutil, sys
with open(sys.argv[1], 'rb') as i, gzip.open(sys.argv[1] + '.gz', 'wb', 6) as o: shutil.copyfileobj(i, o, 1 << 20)" "$big"
	fi
	;;
esac
[ -n "$pid_db" ] && { wait "$pid_db"; grep -h '^bench_report' "$logs/gen-db.txt" 2>/dev/null | sed 's/^/   /'; }
cat "$big" "$big.gz" >/dev/null 2>&1 # page cache warm
echo "-- inputs: big.json $(awk -v b="$bytes" 'BEGIN { printf "%.2f GB", b/1e9 }'), big.json.gz $(($(stat -c %s "$big.gz" 2>/dev/null || echo 0) / 1048576)) MiB, 10m.db $(($(stat -c %s "$work/10m.db" 2>/dev/null || echo 0) / 1048576)) MiB; $(left) s of the budget left"

# one case: NAME INPUT_FOR_CHECK CMD... (REPS runs while the budget lasts)
fail=0
declare -A n_ok med_w med_c med_r note
median() { sort -g | awk '{v[NR] = $1} END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR+1)/2]; else printf "%.3f", (v[NR/2] + v[NR/2+1]) / 2 }'; }
run_case() { # NAME CPUS REPS FIRST_OUT CMD...
	local name=$1 on=$2 nrep=$3 first_out=$4
	shift 4
	local i res w=() c=() r=() longest=0
	: >"$logs/$name.runs"
	for i in $(seq 1 "$nrep"); do
		local l
		l=$(left)
		# the next run must fit: 1.5 x the longest so far (a first run gets what is left)
		if [ "$i" -gt 1 ] && [ "$(awk -v l="$l" -v x="$longest" 'BEGIN { print (l < 1.5 * x + 2) }')" = 1 ]; then
			note[$name]="budget: $((i - 1)) of $nrep runs"
			break
		fi
		[ "$l" -lt 5 ] && { note[$name]="budget: no time left"; break; }
		local o=-
		[ "$i" = 1 ] && o=$first_out
		res=$($measure "$on" "$l" "$o" "$logs/$name-$i.err" -- "$@")
		echo "   $name run $i: $res" | tee -a "$logs/$name.runs"
		grep -h '^gpuscope timing\|^bench_load_many\|^HTA-RESULT' "$logs/$name-$i.err" "$o" 2>/dev/null | sed 's/^/     /' | tee -a "$logs/$name.runs"
		# HTA's failures are reported, not the bench's
		local bad=1
		case $name in hta*) bad=0 ;; esac
		case $res in
		rc=0\ *) ;;
		rc=124\ *) note[$name]="run $i killed at the budget"; fail=$((fail | bad)); break ;;
		*) note[$name]="run $i failed: $(grep -h 'HTA-RESULT.*FAILED' "$o" 2>/dev/null | head -1) $(tail -2 "$logs/$name-$i.err" | tr '\n' ' ')"; fail=$((fail | bad)); break ;;
		esac
		local ww cc rr
		ww=$(echo "$res" | sed 's/.*wall_s=\([^ ]*\).*/\1/')
		cc=$(echo "$res" | sed 's/.*cpu_s=\([^ ]*\).*/\1/')
		rr=$(echo "$res" | sed 's/.*rss_mib=\([^ ]*\).*/\1/')
		# gpuscope's own VmHWM when it printed its timing line (the measurer's
		# ru_maxrss also counts the ~5 MiB of the Python that forked it)
		local hwm
		hwm=$(sed -n 's/^gpuscope timing.*; peak RSS \([0-9]*\) MiB$/\1/p' "$logs/$name-$i.err" | tail -1)
		[ -n "$hwm" ] && rr=$hwm
		w+=("$ww") c+=("$cc") r+=("$rr")
		longest=$(awk -v a="$longest" -v b="$ww" 'BEGIN { print (b > a) ? b : a }')
	done
	n_ok[$name]=${#w[@]}
	med_w[$name]=$(printf '%s\n' "${w[@]}" | grep . | median)
	med_c[$name]=$(printf '%s\n' "${c[@]}" | grep . | median)
	med_r[$name]=$(printf '%s\n' "${r[@]}" | grep . | median)
}
# HTA, when it imports: python3 as it is, else the wheels of bench/fetch-hta.sh installed here
hta_py=
if case " $cases " in *" hta "*) true ;; *) false ;; esac; then
	hta_why="not importable"
	if ! python3 -c 'import hta.trace_analysis' 2>/dev/null && ls "$src"/.whl/*.whl >/dev/null 2>&1; then
		python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
			--target "$work/hta-site" "$src"/.whl/*.whl >"$logs/hta-install.txt" 2>&1 &&
			export PYTHONPATH="$work/hta-site${PYTHONPATH:+:$PYTHONPATH}"
	fi
	if python3 -c 'import hta.trace_analysis' 2>"$logs/hta-import.txt"; then
		hta_py=python3
		echo "-- HTA: $(python3 -c 'import importlib.metadata as m, sys
print("HolisticTraceAnalysis", m.version("HolisticTraceAnalysis"), "pandas", m.version("pandas"), "numpy", m.version("numpy"), "plotly", m.version("plotly"), "python", sys.version.split()[0])' 2>&1)"
		mkdir -p "$work/hta-trace"
		ln -sf "$big" "$work/hta-trace/rank-0.json"
		cp "$src/bench/hta-run.py" "$work/hta-run.py"
	else
		hta_why="HolisticTraceAnalysis does not import ($(tail -1 "$logs/hta-import.txt")): bench/fetch-hta.sh, then carry .whl"
		echo "-- HTA: $hta_why"
	fi
fi

# every case on each set of CPUs; a case of the second set is NAME@2
sets="$cpus${cpus2:+ $cpus2}"
set_no() { [ "$1" = "$cpus" ] && echo 1 || echo 2; }
for c in $cases; do
	for on in $sets; do
		k=$(set_no "$on")
		n=$c
		[ "$k" = 2 ] && { case " $cases2 " in *" $c "*) n=$c@2 ;; *) continue ;; esac; }
		echo "-- case $c on CPUs $on ($(left) s left)"
		case $c in
		json) run_case "$n" "$on" "$reps" "$work/report-$n.json" "$build/gpuscope" report "$big" --format json ;;
		gz) run_case "$n" "$on" "$reps" "$work/report-$n.json" "$build/gpuscope" report "$big.gz" --format json ;;
		db) [ -f "$work/10m.db" ] && run_case "$n" "$on" "$reps" "$work/report-$n.json" "$build/gpuscope" report "$work/10m.db" --format json ;;
		hta)
			if [ "$k" = 1 ] && [ -n "$hta_py" ]; then
				run_case "$n" "$on" "$hta_reps" "$work/hta-out.txt" "$hta_py" "$work/hta-run.py" "$work/hta-trace"
			fi
			;;
		multi) [ "$multi" -gt 0 ] && run_case "$n" "$on" "$reps" "$work/$n.txt" "$build/bench_bench_load_many" 0 "$work/multi" ;;
		*) echo "speed-on-gpu: unknown case '$c'" >&2 ;;
		esac
	done
done

# the reports of each input must agree: .json and .json.gz, and each on both sets of CPUs
same=$($py -c '
import json, os, sys
def load(p):
    d = json.load(open(p)); d.pop("file", None); return d
pairs = [("json", "gz"), ("json", "json@2"), ("gz", "gz@2"), ("db", "db@2")]
out = []
for a, b in pairs:
    pa, pb = (os.path.join(sys.argv[1], "report-%s.json" % x) for x in (a, b))
    if os.path.getsize(pa) if os.path.exists(pa) else 0:
        if os.path.exists(pb) and os.path.getsize(pb):
            out.append("%s vs %s %s" % (a, b, "identical" if load(pa) == load(pb) else "DIFFERENT"))
print("; ".join(out) or "-")' "$work" 2>&1)
primary=$($py -c '
import json, sys
d = json.load(open(sys.argv[1])); s = d.get("summary", {})
print("%s; %s kernels, %s API calls, GPU busy %.1f%%" % (d.get("primary"), s.get("kernels"), s.get("api_calls"), s.get("gpu_busy_pct", 0)))' "$work/report-json.json" 2>/dev/null || echo -)

{
	echo
	echo "== speed-on-gpu results: medians, each run pinned to CPUs $cpus ($(ncpus_of "$cpus") CPUs)${cpus2:+ or $cpus2 ($(ncpus_of "$cpus2") CPUs)} of an idle $ncpu-CPU machine"
	echo "   big.json: primary $primary; reports: $same"
	printf '%-40s %4s %4s %8s %8s %8s  %-24s %s\n' case CPUs runs "wall s" "CPU s" "RSS MiB" target verdict
	row() { # NAME LABEL CPUS TARGET_S (-: none) TARGET_MIB (0: none)
		local n=$1
		[ -n "${n_ok[$n]:-}" ] || return
		local t=- v=-
		if [ "$4" != - ]; then
			t="<= $4 s"
			[ "$5" != 0 ] && t="$t, <= $5 MiB"
			v=$(awk -v w="${med_w[$n]}" -v r="${med_r[$n]}" -v tw="$4" -v tr="$5" 'BEGIN {
				if (w == "-") { print "-"; exit }
				s = (w <= tw) ? "time met" : "time MISSED"
				if (tr > 0) s = s ((r <= tr) ? ", memory met" : ", memory MISSED")
				print s }')
		fi
		printf '%-40s %4s %4s %8s %8s %8s  %-24s %s %s\n' "$2" "$3" "${n_ok[$n]}" "${med_w[$n]}" "${med_c[$n]}" \
			"${med_r[$n]}" "$t" "$v" "${note[$n]:+(${note[$n]})}"
	}
	# issue 38's targets by the number of CPUs (2 or 8; none for other counts): the trace
	# <= 1.1 s on 2 and <= 0.4 s on 8, <= 256 MiB; .json.gz the same within 15%; the database
	# < 3 s on 2; the eight ranks < 20 s and < 2 GiB on 2
	tgt() { # CASE NCPUS: "SECONDS MIB" or "- 0"
		case $1:$2 in
		json:2) echo "1.1 256" ;; json:8) echo "0.4 256" ;;
		gz:2) echo "1.265 256" ;; gz:8) echo "0.46 256" ;;
		db:2) echo "3 0" ;; multi:2) echo "20 2048" ;;
		*) echo "- 0" ;;
		esac
	}
	label() {
		case $1 in
		json) echo "report big.json ($(awk -v b="$bytes" 'BEGIN { printf "%.2f GB", b/1e9 }'))" ;;
		gz) echo "report big.json.gz" ;;
		db) echo "report 10m.db ($(awk -v k="$db_kernels" 'BEGIN { printf "%gM", k/1e6 }') kernels)" ;;
		multi) echo "load+analyse $multi x big.json" ;;
		esac
	}
	for c in json gz db multi; do
		for on in $sets; do
			n=$c
			[ "$(set_no "$on")" = 2 ] && n=$c@2
			nc=$(ncpus_of "$on")
			# shellcheck disable=SC2046
			row "$n" "$(label "$c")" "$nc" $(tgt "$c" "$nc")
		done
	done
	if [ -n "${n_ok[hta]:-}" ]; then
		row hta "HTA on big.json (TraceAnalysis + 3)" "$(ncpus_of "$cpus")" - 0
		awk -v hw="${med_w[hta]}" -v hr="${med_r[hta]}" -v gw="${med_w[json]:--}" -v gr="${med_r[json]:--}" 'BEGIN {
			if (hw == "-" || gw == "-" || gw == 0) { print "   HTA/gpuscope: -"; exit }
			printf "   HTA/gpuscope on the same CPUs: %.1fx the wall time (goal >= 50x), %.1fx the peak RSS\n", hw / gw, hr / gr }'
	else
		echo "   HTA: not run (${hta_why:-not in CASES})"
	fi
	echo "(CPU s = user + sys; RSS = peak resident: gpuscope's VmHWM from its GPUSCOPE_TIMING line, else the"
	echo " run's ru_maxrss from bench/speed-measure.py; each run's phases are in logs/NAME.runs)"
} | tee "$work/table.txt"
cp "$work/machine.txt" "$work/table.txt" "$logs/"
for f in "$work"/report-*.json "$work"/multi*.txt "$work/hta-out.txt"; do [ -f "$f" ] && gzip -c "$f" >"$logs/$(basename "$f").gz"; done
tar -czf "$out/speed-h200.tar.gz" -C "$work" logs
echo "wrote $out/speed-h200.tar.gz ($(($(stat -c %s "$out/speed-h200.tar.gz") / 1024)) KiB); $(($(date +%s) - t_start)) s in all"
exit $fail
