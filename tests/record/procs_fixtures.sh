#!/bin/bash
# procs_fixtures.sh - the H200 recordings of workloads/procs/ (tests/fixtures/procs,
# README there): every process of a tree recorded under its own pid with
# exactly the rows it announced (check_procs.py), the tree in report's JSON,
# a driver-API program's graph kernels and pinned copies, one named track per
# process in the Perfetto export. Usage: procs_fixtures.sh GPUSCOPE SRC
set -u
. "$(dirname "$0")/../lib.sh"
FX=$src/tests/fixtures/procs
T=$tmp

for n in multi_process py_torchrun py_fork driver_api; do
	python3 "$src/workloads/procs/check_procs.py" "$FX/$n.db" "$FX/$n.out" >"$T/$n.check" ||
		{ cat "$T/$n.check"; die "$n: rows differ from the PROC lines"; }
	tail -1 "$T/$n.check" | grep -q 'match=yes' || die "$n: no match line"
done

# the checker itself must fail on a wrong count and on a wrong parent
sed 's/kernels=700 /kernels=701 /' "$FX/multi_process.out" >"$T/bad.out"
python3 "$src/workloads/procs/check_procs.py" "$FX/multi_process.db" "$T/bad.out" >/dev/null &&
	die "check_procs accepted a wrong kernel count"
sed 's/ppid=2106 /ppid=2094 /' "$FX/multi_process.out" >"$T/bad.out"
python3 "$src/workloads/procs/check_procs.py" "$FX/multi_process.db" "$T/bad.out" >/dev/null &&
	die "check_procs accepted a wrong parent"

# report: the process tree (root 2094, children 2104-2106, grandchild 2122 of 2106)
"$bin" report "$FX/multi_process.db" --format json >"$T/mp.json" || die "report multi_process"
python3 - "$T/mp.json" <<'PY' || die "report JSON: process tree"
import json, sys
r = json.load(open(sys.argv[1]))
tree = {p["pid"]: p["parent_pid"] for p in r["processes"]}
assert tree == {2094: 2091, 2104: 2094, 2105: 2094, 2106: 2094, 2122: 2106}, tree
assert all(p["status"] == "" for p in r["processes"]), r["processes"]
assert r["summary"]["kernels"] > 0
PY
"$bin" report "$FX/multi_process.db" | grep -E '^  2122 +2106 ' >/dev/null ||
	die "report text: no parent column for the grandchild"

# fork-started workers ended by os._exit: recorded whole (the _exit shim)
"$bin" report "$FX/py_fork.db" --format json --whole >"$T/fork.json" || die "report py_fork"
python3 - "$T/fork.json" <<'PY' || die "py_fork: workers not recorded whole"
import json, sys
r = json.load(open(sys.argv[1]))
k = sorted(p["kernels"] for p in r["processes"])
assert k == [501, 1001, 2001], k
PY

# driver API: 50 replays of a 20-kernel captured graph, 16 pinned async copies
[ "$(sqlite3 "$FX/driver_api.db" 'select count(*) from kernels where graph_id != 0')" = 1000 ] ||
	die "driver_api: graph kernels"
[ "$(sqlite3 "$FX/driver_api.db" 'select count(*) from copies where kind = 1 and src_kind = 2')" = 16 ] ||
	die "driver_api: pinned HtoD copies"
"$bin" report "$FX/driver_api.db" --format json | python3 -c \
	'import json,sys; p = json.load(sys.stdin)["primary"]; assert p == "launch_overhead", p' ||
	die "driver_api: primary"

# Perfetto: a named track per process, the command line telling ranks apart
"$bin" export "$FX/py_torchrun.db" --format perfetto -o "$T/tr.json" || die "export"
python3 "$src/tests/import/check_perfetto.py" "$T/tr.json" >/dev/null || die "perfetto structure"
n=$(grep -o '"process_name","pid":[0-9]*,"tid":0,"args":{"name":"process [0-9]*: [^"]*multiproc.py rank"' "$T/tr.json" | wc -l)
[ "$n" = 2 ] || die "perfetto: $n rank tracks named by command line, want 2"
echo "procs fixtures: ok"
