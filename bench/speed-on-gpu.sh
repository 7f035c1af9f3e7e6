#!/usr/bin/env bash
# bench/speed-on-gpu.sh - issue #25's report-speed targets, measured on an idle machine.
# usage: [BUDGET_S=200] bash bench/speed-on-gpu.sh [BUILD_DIR]   (default .gpu/build)
#
# The 2-core build machine is shared and loaded (load 9-11), so its timings are noisy. The
# H200 machine has 16 idle cores: every measured run is pinned to CPUS (default 2,3), which
# emulates the 2-core target (gpuscope sizes its threads by the affinity mask). Inputs are
# made there (nothing over 64 MiB travels), on GEN_CPUS: by default the other CPUs, or the
# measured ones when SPEED_CPUS is set (workloads/run-session-h200.sh runs this beside the GPU
# stages on SPEED_CPUS=14,15, and the generators must keep off their CPUs too):
#   big.json     bench/make-big-kineto.py --kernels KERNELS (default 300000: 1.09 GB, 4.27M events)
#   big.json.gz  gzip -6 of it (Python's gzip module when gzip(1) is missing)
#   10m.db       BUILD/bench_bench_report DB_KERNELS DB (default 10M kernels, ~565 MiB)
#   multi/       MULTI (default 8) links to big.json, loaded together by BUILD/bench_bench_load_many
# Then REPS (default 5) runs of each case, in this order, as long as the budget lasts:
#   json   gpuscope report big.json --format json       (target <= 1.7 s, <= 256 MiB)
#   gz     gpuscope report big.json.gz --format json    (same targets)
#   db     gpuscope report 10m.db --format json         (target < 3 s, memory not above before)
#   multi  bench_bench_load_many 0 multi/               (target < 20 s, < 2 GiB)
# each under bench/speed-measure.py (wall, user+sys CPU, peak RSS; a timeout per run from the
# budget left) with GPUSCOPE_TIMING=1 (gpuscope's per-phase line on stderr, kept in the logs).
# A case whose next run would not fit the budget stops there (the table says how many ran).
# Output: a short table last on stdout; $OUT/speed-h200.tar.gz (logs, per-run lines, the table,
# the first run's report of each input, machine facts). Exit 0 when every run that started
# succeeded; the targets are reported, not enforced.
#
# Needs (carried, built from main with cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo into
# .gpu/build): gpuscope, bench_bench_report, bench_bench_load_many (cmake targets of the same
# names), and libisal.so.2 copied beside them (/usr/lib/x86_64-linux-gnu/libisal.so.2, 324 KiB;
# without it .json.gz is inflated by zlib and the table says so).
# Environment: BUDGET_S (200), CPUS or SPEED_CPUS (2,3), GEN_CPUS, REPS (5), KERNELS (300000), DB_KERNELS (10000000),
# MULTI (8; 0 skips), CASES (json gz db multi), WORK (${TMPDIR:-/tmp}/gs-speed), OUT.
set -u
t_start=$(date +%s)
budget=${BUDGET_S:-200}
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-.gpu/build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
cpus=${SPEED_CPUS:-${CPUS:-2,3}}
reps=${REPS:-5}
kernels=${KERNELS:-300000}
db_kernels=${DB_KERNELS:-10000000}
multi=${MULTI:-8}
cases=${CASES:-json gz db multi}
work=${WORK:-${TMPDIR:-/tmp}/gs-speed}
out=${OUT:-$work/out}
logs=$work/logs
py="python3 -S"
measure="$py $src/bench/speed-measure.py"
for b in gpuscope bench_bench_report bench_bench_load_many; do
	[ -x "$build/$b" ] || { echo "speed-on-gpu: $build/$b missing (cmake --build BUILD --target $b)" >&2; exit 1; }
done
case $reps in '' | *[!0-9]* | 0) echo "speed-on-gpu: REPS must be a positive integer" >&2; exit 2 ;; esac
rm -rf "$work"
mkdir -p "$work/multi" "$logs" "$out"
export LD_LIBRARY_PATH=$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} GPUSCOPE_TIMING=1
left() { echo $((budget - ($(date +%s) - t_start))); }
ncpu=$(nproc --all 2>/dev/null || getconf _NPROCESSORS_ONLN)
# the generators run on the CPUs the bench does not use, unless told or beside other stages
gen_cpus=${GEN_CPUS:-${SPEED_CPUS:+$cpus}}
[ -n "$gen_cpus" ] || gen_cpus=$($py -c '
import os, sys
want = set()
for p in sys.argv[1].split(","):
    a, _, b = p.partition("-"); want.update(range(int(a), int(b or a) + 1))
rest = sorted(os.sched_getaffinity(0) - want)
print(",".join(map(str, rest)) if rest else "-")' "$cpus")
{
	echo "== speed-on-gpu: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $ncpu CPUs, measured on CPUs $cpus, generators on ${gen_cpus}"
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
run_case() {
	local name=$1 first_out=$2
	shift 2
	local i res w=() c=() r=() longest=0
	: >"$logs/$name.runs"
	for i in $(seq 1 "$reps"); do
		local l
		l=$(left)
		# the next run must fit: 1.5 x the longest so far (a first run gets what is left)
		if [ "$i" -gt 1 ] && [ "$(awk -v l="$l" -v x="$longest" 'BEGIN { print (l < 1.5 * x + 2) }')" = 1 ]; then
			note[$name]="budget: $((i - 1)) of $reps runs"
			break
		fi
		[ "$l" -lt 5 ] && { note[$name]="budget: no time left"; break; }
		local o=-
		[ "$i" = 1 ] && o=$first_out
		res=$($measure "$cpus" "$l" "$o" "$logs/$name-$i.err" -- "$@")
		echo "   $name run $i: $res" | tee -a "$logs/$name.runs"
		grep -h '^gpuscope timing\|^bench_load_many' "$logs/$name-$i.err" "$o" 2>/dev/null | sed 's/^/     /' | tee -a "$logs/$name.runs"
		case $res in
		rc=0\ *) ;;
		rc=124\ *) note[$name]="run $i killed at the budget"; fail=1; break ;;
		*) note[$name]="run $i failed: $(head -2 "$logs/$name-$i.err" | tr '\n' ' ')"; fail=1; break ;;
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
for c in $cases; do
	echo "-- case $c ($(left) s left)"
	case $c in
	json) run_case json "$work/report-json.json" "$build/gpuscope" report "$big" --format json ;;
	gz) run_case gz "$work/report-gz.json" "$build/gpuscope" report "$big.gz" --format json ;;
	db) [ -f "$work/10m.db" ] && run_case db "$work/report-db.json" "$build/gpuscope" report "$work/10m.db" --format json ;;
	multi) [ "$multi" -gt 0 ] && run_case multi "$work/multi.txt" "$build/bench_bench_load_many" 0 "$work/multi" ;;
	*) echo "speed-on-gpu: unknown case '$c'" >&2 ;;
	esac
done

# the .json and .json.gz reports must agree (the same trace)
same=-
if [ -s "$work/report-json.json" ] && [ -s "$work/report-gz.json" ]; then
	same=$($py -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("file", None)
print("identical" if a == b else "DIFFERENT")' "$work/report-json.json" "$work/report-gz.json" 2>&1)
fi
primary=$($py -c '
import json, sys
d = json.load(open(sys.argv[1])); s = d.get("summary", {})
print("%s; %s kernels, %s API calls, GPU busy %.1f%%" % (d.get("primary"), s.get("kernels"), s.get("api_calls"), s.get("gpu_busy_pct", 0)))' "$work/report-json.json" 2>/dev/null || echo -)

{
	echo
	echo "== speed-on-gpu results: medians, each run pinned to CPUs $cpus of an idle $ncpu-CPU machine"
	echo "   big.json: primary $primary; .json vs .json.gz reports: $same"
	printf '%-34s %4s %8s %8s %8s  %-22s %s\n' case runs "wall s" "CPU s" "RSS MiB" target verdict
	row() { # NAME LABEL TARGET_S TARGET_MIB (0: no memory target)
		local n=$1
		[ -n "${n_ok[$n]:-}" ] || return
		local t v
		t="<= $3 s"
		[ "$4" != 0 ] && t="$t, <= $4 MiB"
		v=$(awk -v w="${med_w[$n]}" -v r="${med_r[$n]}" -v tw="$3" -v tr="$4" 'BEGIN {
			if (w == "-") { print "-"; exit }
			s = (w <= tw) ? "time met" : "time MISSED"
			if (tr > 0) s = s ((r <= tr) ? ", memory met" : ", memory MISSED")
			print s }')
		printf '%-34s %4s %8s %8s %8s  %-22s %s %s\n' "$2" "${n_ok[$n]}" "${med_w[$n]}" "${med_c[$n]}" "${med_r[$n]}" \
			"$t" "$v" "${note[$n]:+(${note[$n]})}"
	}
	row json "report big.json ($(awk -v b="$bytes" 'BEGIN { printf "%.2f GB", b/1e9 }'))" 1.7 256
	row gz "report big.json.gz" 1.7 256
	row db "report 10m.db ($(awk -v k="$db_kernels" 'BEGIN { printf "%gM", k/1e6 }') kernels)" 3 0
	row multi "load+analyse $multi x big.json" 20 2048
	echo "(CPU s = user + sys; RSS = peak resident: gpuscope's VmHWM from its GPUSCOPE_TIMING line, else the"
	echo " run's ru_maxrss from bench/speed-measure.py; each run's phases are in logs/NAME.runs)"
} | tee "$work/table.txt"
cp "$work/machine.txt" "$work/table.txt" "$logs/"
for f in "$work"/report-*.json "$work/multi.txt"; do [ -f "$f" ] && gzip -c "$f" >"$logs/$(basename "$f").gz"; done
tar -czf "$out/speed-h200.tar.gz" -C "$work" logs
echo "wrote $out/speed-h200.tar.gz ($(($(stat -c %s "$out/speed-h200.tar.gz") / 1024)) KiB); $(($(date +%s) - t_start)) s in all"
exit $fail
