#!/usr/bin/env bash
# capture-on-gpu.sh - record's capture ranges on the H200 (issue 17 item 4):
# `record --capture-range cudaProfilerApi|nvtx:NAME`, `--delay`, `--duration`
# on a CUDA C program (workloads/cuda/capture_ranges.cu) and a PyTorch script
# (workloads/pytorch/capture_ranges.py, torch.cuda.profiler.start/stop and
# torch.cuda.nvtx.range), each kernel count in the databases checked against
# the program's own (its last line, CAPTURE ...), exactly.
#   BUDGET_S=60 bash workloads/capture-on-gpu.sh     (repo root, $OUT set by the device tool)
# Needs, carried from the build machine: .gpu/build/{gpuscope,libgpuscope-inject.so,
# libgpuscope-preload.so} and .gpu/bin/capture_ranges (workloads/build-zoo.sh).
# Runs (about 45 s in all), the most telling first: the C program with no range,
# cudaProfilerApi, nvtx:capture_me, cudaProfilerApi on a run that never calls
# cudaProfilerStart (must exit 0, keep no kernel and say why); the PyTorch script
# with cudaProfilerApi and nvtx:capture_me; then C with cudaProfilerApi --duration and
# --delay (with the program's --wait), PyTorch with no range. A run that would pass
# BUDGET_S is skipped (and says so).
# $OUT gets one file, capture-results.tar.gz: the databases, each run's stdout and
# stderr, report.txt / report.json of the cudaProfilerApi runs, run.log, table.txt
# (printed last). Exit 0 when every run that ran matched.
# Environment for the CPU test (tests/workloads/capture_on_gpu.sh): GPUSCOPE, BIN,
# PYTHON, CAPTURE_WAIT_S. Read-only towards the card.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
G=${GPUSCOPE:-$PWD/.gpu/build/gpuscope}
[ -x "$G" ] || G=$PWD/build/gpuscope
BIN=${BIN:-$PWD/.gpu/bin}
PY=${PYTHON:-python3}
BUDGET=${BUDGET_S:-60}
WAIT_S=${CAPTURE_WAIT_S:-2.5} # the C program's --wait for the --delay run (delay = WAIT_S - 0.5)
mkdir -p "$OUT"
W=$(mktemp -d /tmp/gs-capture-gpu.XXXXXX)
RUN=$W/run.log
TABLE=$W/table.txt
: >"$RUN"
say() { echo "[capture-on-gpu +${SECONDS}s] $*" | tee -a "$RUN" >&2; }
fails=0
rows=()

# field NAME FILE: NAME=value from the program's CAPTURE line
field() { sed -n "s/^CAPTURE .*\b$1=\([^ ]*\).*/\1/p" "$2" | tail -1; }

# count DB [LIKE]: kernels in a database (named LIKE, when given)
count() {
	"$PY" - "$1" "${2:-}" <<'PY'
import sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
if sys.argv[2]:
    q = ("SELECT count(*) FROM kernels k JOIN launch_configs c ON c.id = k.config_id"
         " JOIN strings s ON s.id = c.name_id WHERE s.value LIKE ?")
    print(con.execute(q, (sys.argv[2],)).fetchone()[0])
else:
    print(con.execute("SELECT count(*) FROM kernels").fetchone()[0])
PY
}

# capture DB: "windows=N captured_s=X status=..." from the database
capture_info() {
	"$PY" - "$1" <<'PY'
import sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
meta = dict(con.execute("SELECT key, value FROM meta WHERE key LIKE 'capture%'"))
try:
    n = con.execute("SELECT count(*) FROM capture_windows").fetchone()[0]
except sqlite3.Error:
    n = "-"
cap = int(meta.get("capture_captured_ns", 0) or 0) / 1e9
span = int(meta.get("capture_span_ns", 0) or 0) / 1e9
st = meta.get("capture_status", "")
if "capture_range" not in meta:
    print("none: the whole run")
    sys.exit(0)
print(f"windows={n} captured={cap:.3f}s/{span:.3f}s" + (f" status='{st}'" if st else ""))
PY
}

# rec NAME EST_S [record options] -- CMD...: records into $W/NAME.db
rec() {
	local name=$1 est=$2
	shift 2
	if [ $((SECONDS + est + 3)) -gt "$BUDGET" ]; then
		say "$name: skipped (budget)"
		rows+=("$name|skipped (budget)|-|-|-")
		return 1
	fi
	say "$name: gpuscope record $*"
	timeout $((est * 3 + 30)) "$G" record --no-progress -o "$W/$name.db" "$@" \
		>"$W/$name.out" 2>"$W/$name.err"
	local rc=$?
	echo "$name: exit $rc" >>"$RUN"
	tail -5 "$W/$name.err" >>"$RUN"
	return $rc
}

# check NAME RC EXPECTED GOT: one table row
check() {
	local name=$1 rc=$2 want=$3 got=$4 info verdict
	info=$([ -f "$W/$name.db" ] && capture_info "$W/$name.db")
	if [ "$rc" != 0 ]; then
		verdict="FAIL (exit $rc)"
	elif [ -z "$want" ]; then
		verdict="FAIL (no CAPTURE line)"
	elif [ "$want" = "$got" ]; then
		verdict=ok
	else
		verdict=FAIL
	fi
	case $verdict in ok) ;; *) fails=$((fails + 1)) ;; esac
	rows+=("$name|$verdict|$want|$got|$info")
}

say "$("$G" --version 2>&1 | head -1); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
C=$BIN/capture_ranges
T=workloads/pytorch/capture_ranges.py
have_c=0
have_t=0
[ -x "$C" ] && have_c=1
"$PY" -c "import torch; assert torch.cuda.is_available()" >/dev/null 2>&1 && have_t=1

c_main() {
	rec c_all 4 -- "$C"
	rc=$?
	check c_all $rc "$(field all "$W/c_all.out")" "$(count "$W/c_all.db")"
	rec c_profiler 4 --capture-range cudaProfilerApi -- "$C"
	rc=$?
	check c_profiler $rc "$(field profiler "$W/c_profiler.out")" "$(count "$W/c_profiler.db")"
	[ $rc = 0 ] && "$G" report "$W/c_profiler.db" >"$W/c_profiler.report.txt" 2>&1
	[ $rc = 0 ] && "$G" report --format json "$W/c_profiler.db" >"$W/c_profiler.report.json" 2>&1
	rec c_nvtx 4 --capture-range nvtx:capture_me -- "$C"
	rc=$?
	check c_nvtx $rc "$(field nvtx "$W/c_nvtx.out")" "$(count "$W/c_nvtx.db")"
	# never calls cudaProfilerStart: runs to its end (its own result check passes),
	# nothing is kept, the database says why
	rec c_noprofiler 4 --capture-range cudaProfilerApi -- "$C" --no-profiler
	rc=$?
	check c_noprofiler $rc "$(field profiler "$W/c_noprofiler.out")" "$(count "$W/c_noprofiler.db")"
	grep -q "^WORKLOAD " "$W/c_noprofiler.out" ||
		{ rows+=("c_noprofiler_result|FAIL (no WORKLOAD line: the program did not finish)|-|-|-"); fails=$((fails + 1)); }
	capture_info "$W/c_noprofiler.db" 2>/dev/null | grep -q "status='nothing was captured" ||
		{ rows+=("c_noprofiler_status|FAIL (the database does not say why)|-|-|-"); fails=$((fails + 1)); }
	[ -f "$W/c_noprofiler.db" ] && "$G" report "$W/c_noprofiler.db" >"$W/c_noprofiler.report.txt" 2>&1
}

c_more() {
	rec c_duration 4 --capture-range cudaProfilerApi --duration "$(field duration_s "$W/c_all.out")" -- "$C"
	rc=$?
	check c_duration $rc "$(field profiler_duration "$W/c_all.out")" "$(count "$W/c_duration.db")"
	delay=$(awk -v w="$WAIT_S" 'BEGIN { print w - 0.5 }')
	if rec c_delay 6 --delay "$delay" -- "$C" --wait "$WAIT_S"; then
		pre=$(field pre_end_s "$W/c_delay.out")
		if awk -v p="${pre:-99}" -v d="$delay" 'BEGIN { exit !(p < d - 0.1) }'; then
			check c_delay 0 "$(field after_delay "$W/c_delay.out")" "$(count "$W/c_delay.db")"
		else
			rows+=("c_delay|n/a (CUDA start-up took ${pre}s, past --delay ${delay})|-|$(count "$W/c_delay.db")|-")
		fi
	elif [ -f "$W/c_delay.out" ]; then
		check c_delay 1 "" ""
	fi
}

t_main() {
	rec t_profiler 10 --capture-range cudaProfilerApi -- "$PY" "$T"
	rc=$?
	check t_profiler $rc "$(field profiler "$W/t_profiler.out")" "$(count "$W/t_profiler.db")"
	[ $rc = 0 ] && "$G" report "$W/t_profiler.db" >"$W/t_profiler.report.txt" 2>&1
	[ $rc = 0 ] && "$G" report --format json "$W/t_profiler.db" >"$W/t_profiler.report.json" 2>&1
	rec t_nvtx 10 --capture-range nvtx:capture_me -- "$PY" "$T"
	rc=$?
	check t_nvtx $rc "$(field nvtx "$W/t_nvtx.out")" "$(count "$W/t_nvtx.db")"
}

t_more() {
	# the whole run: its add kernels (the fill and the sum are others)
	rec t_all 10 -- "$PY" "$T"
	rc=$?
	check t_all $rc "$(field adds "$W/t_all.out")" "$(count "$W/t_all.db" '%Functor%add%')"
}

# the most telling runs first, so that a short budget skips the others
if [ $have_c = 1 ]; then c_main; else
	say "no $C (workloads/build-zoo.sh): the CUDA C runs are skipped"
	rows+=("c_*|skipped (no $C)|-|-|-")
	fails=$((fails + 1))
fi
if [ $have_t = 1 ]; then t_main; else
	say "no PyTorch with CUDA ($PY): the PyTorch runs are skipped"
	rows+=("t_*|skipped (no torch with CUDA)|-|-|-")
fi
[ $have_c = 1 ] && c_more
[ $have_t = 1 ] && t_more

{
	echo "capture ranges on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
	echo "kernels: the program's own count (want) against the database's (got)"
	printf '%-20s %-10s %6s %6s  %s\n' run verdict want got "capture (database)"
	for r in "${rows[@]}"; do
		IFS='|' read -r a b c d e <<<"$r"
		printf '%-20s %-10s %6s %6s  %s\n' "$a" "$b" "$c" "$d" "$e"
	done
	echo "failures: $fails; ${SECONDS}s"
} >"$TABLE"
tar -czf "$OUT/capture-results.tar.gz" -C "$W" . 2>>"$RUN"
if [ "$(stat -c %s "$OUT/capture-results.tar.gz")" -gt 15000000 ]; then
	rm -f "$W"/t_*.db
	tar -czf "$OUT/capture-results.tar.gz" -C "$W" .
fi
cat "$TABLE"
rm -rf "$W"
[ "$fails" = 0 ]
