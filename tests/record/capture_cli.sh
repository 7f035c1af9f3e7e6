#!/usr/bin/env bash
# record --capture-range / --delay / --duration end to end on the CPU:
# fake_spool capture (tests/record/fake_spool.c) writes the spool a program
# with two cudaProfilerStart/Stop windows and NVTX ranges "step" would; the
# database must keep exactly the kernels each mode keeps, record the
# windows and mode, and say why when nothing was captured; bad values are
# one-line usage errors.
# usage: capture_cli.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
fake=$(dirname "$bin")/fake_spool
[ -x "$fake" ] || die "$fake not built"
q() { python3 -c 'import sqlite3,sys; print("\n".join("|".join(map(str,r)) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$@"; }

# rec NAME EXPECTED_CORRELATIONS [options]
rec() {
	local name=$1 want=$2
	shift 2
	"$bin" record --no-progress --host-sampling off -o "$tmp/$name.db" "$@" -- "$fake" capture \
		>"$tmp/$name.out" 2>"$tmp/$name.err" || { bad "$name: record failed: $(cat "$tmp/$name.err")"; return; }
	local got
	got=$(q "$tmp/$name.db" "select coalesce(group_concat(correlation), '') from (select correlation from kernels order by correlation)")
	[ "$got" = "$want" ] || bad "$name: kernels $got, want $want"
}
rec all "1,2,4,5,6,8,10,11,12,13"
[ "$(q "$tmp/all.db" "select count(*) from capture_windows")" = 0 ] || bad "all: windows without a capture range"
[ -z "$(q "$tmp/all.db" "select value from meta where key = 'capture_range'")" ] || bad "all: capture meta without a range"
rec profiler "4,5,6,10,11,12,13" --capture-range cudaProfilerApi
[ "$(q "$tmp/profiler.db" "select count(*), sum(kernels) from capture_windows")" = "2|7" ] ||
	bad "profiler: windows $(q "$tmp/profiler.db" "select * from capture_windows")"
[ "$(q "$tmp/profiler.db" "select s.value from capture_windows w join strings s on s.id = w.closed_id order by w.start_ns")" = "$(printf 'cudaProfilerStop\nprogram end')" ] ||
	bad "profiler: the windows' ends"
grep -q "captured 2 windows, .* 7 kernels kept, 3 left out" "$tmp/profiler.err" || bad "profiler: record's note: $(cat "$tmp/profiler.err")"
[ "$(q "$tmp/profiler.db" "pragma user_version")" -ge 3 ] || bad "schema version"
# the cudaProfilerStart/Stop calls themselves lie outside their windows
[ "$(q "$tmp/profiler.db" "select count(*) from api_calls a join strings s on s.id = a.name_id where s.value like '%Profiler%'")" = 0 ] ||
	bad "profiler: start/stop calls kept"
rec nvtx "4,5,11,12" --capture-range nvtx:step
[ "$(q "$tmp/nvtx.db" "select count(*) from capture_windows")" = 2 ] || bad "nvtx: nested step not merged"
rec nvtx_domain "" --capture-range nvtx:step@other
grep -q "no NVTX range named 'step' in domain other" "$tmp/nvtx_domain.err" || bad "nvtx_domain: no warning"
rec delay "10,11,12,13" --delay 0.5
rec duration "4,10" --capture-range cudaProfilerApi --duration 0.025
rec nvtx_delay "11,12" --capture-range nvtx:step --delay 0.5
# a program that never calls cudaProfilerStart: its exit code, nothing
# kept, the database and record say why
"$bin" record --no-progress --host-sampling off -o "$tmp/none.db" --capture-range cudaProfilerApi \
	-- "$fake" >/dev/null 2>"$tmp/none.err"
[ $? = 0 ] || bad "none: record failed: $(cat "$tmp/none.err")"
[ "$(q "$tmp/none.db" "select count(*) from kernels")" = 0 ] || bad "none: kernels kept"
[ "$(q "$tmp/none.db" "select value from meta where key = 'capture_status'")" = \
	"nothing was captured: the program never called cudaProfilerStart (--capture-range cudaProfilerApi)" ] ||
	bad "none: status $(q "$tmp/none.db" "select value from meta where key = 'capture_status'")"
grep -q "warning: nothing was captured" "$tmp/none.err" || bad "none: no warning"

# report: what lies outside, in SUMMARY and JSON; the 891 ms between the
# windows (110 ms to 1001 ms) is neither busy nor idle: span + that = the
# first to the last GPU work
"$bin" report --format json "$tmp/profiler.db" >"$tmp/profiler.json" || bad "report json"
first_last=$(q "$tmp/profiler.db" "select max(start_ns + dur_ns) - min(start_ns) from kernels")
python3 - "$tmp/profiler.json" "$first_last" <<'PY' || bad "report json: capture fields"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["capture_range"] == "cudaProfilerApi", r.get("capture_range")
assert r["capture_windows"] == 2
assert r["capture_status"] == ""
assert r["uncaptured_in_span_ns"] == 891_000_000, r["uncaptured_in_span_ns"]
assert r["span_ns"] + r["uncaptured_in_span_ns"] == int(sys.argv[2]), (r["span_ns"], sys.argv[2])
assert r["not_captured_ns"] > r["uncaptured_in_span_ns"]
# the idle gaps: none as long as the hole between the windows
assert r["idle"]["longest_gap_ns"] < 500_000_000, r["idle"]
PY
"$bin" report "$tmp/profiler.db" >"$tmp/profiler.txt" || bad "report text"
grep -q "(capture range cudaProfilerApi: 2 window(s), " "$tmp/profiler.txt" || bad "SUMMARY lacks the capture line"
grep -q "891.00 ms between the windows is left out" "$tmp/profiler.txt" ||
	bad "SUMMARY lacks the time between windows: $(grep -A3 capture "$tmp/profiler.txt")"
"$bin" report "$tmp/none.db" >"$tmp/none.txt" 2>&1
grep -q "capture range cudaProfilerApi: nothing was captured: the program never called cudaProfilerStart" \
	"$tmp/none.txt" || bad "report of nothing captured does not say why: $(cat "$tmp/none.txt")"
"$bin" report --format json "$tmp/all.db" | python3 -c 'import json,sys; r=json.load(sys.stdin); assert "capture_range" not in r' ||
	bad "capture fields without a capture range"

# bad values: one line, exit 2, nothing run
for a in "--capture-range foo" "--capture-range nvtx:" "--capture-range nvtx:a@" "--delay -1" \
	"--delay x" "--duration 0" "--duration 1e99"; do
	# shellcheck disable=SC2086
	"$bin" record $a -o "$tmp/bad.db" -- "$fake" capture >/dev/null 2>"$tmp/bad.err"
	rc=$?
	[ $rc = 2 ] || bad "'$a': exit $rc"
	[ "$(wc -l <"$tmp/bad.err")" = 1 ] || bad "'$a': $(cat "$tmp/bad.err")"
	[ -e "$tmp/bad.db" ] && bad "'$a': a database was written"
done
"$bin" record --help | grep -q -- "--capture-range cudaProfilerApi|nvtx:NAME" || bad "--help lacks --capture-range"
[ $fail = 0 ] && ok "record capture ranges"
exit $fail
