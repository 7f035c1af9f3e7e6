#!/bin/bash
# host_sampling_cli.sh - `gpuscope record --host-sampling` on a CPU-only
# Python program (issue 17): the database holds its stacks (gamma <- beta
# <- alpha from the CPython reader, native frames from perf events where
# the kernel allows them), a host_sampling row, and no perf map file is left
# in /tmp; 'off' records none; bad rates are usage errors; the program's
# exit code and output are untouched. Usage: host_sampling_cli.sh GPUSCOPE SRC
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || { echo "SKIP: no python3"; exit 0; }
cat >"$T/prog.py" <<'PROG'
import sys, time
def gamma(end):
    while time.time() < end:
        for _ in range(20000):
            pass
def beta(end):
    gamma(end)
def alpha():
    beta(time.time() + 1.5)  # long enough for the reader under ASan on a loaded machine
alpha()
print("done")
sys.exit(3)
PROG
q() { sqlite3 "$T/$1" "$2"; }

out=$("$BIN" record -o "$T/a.db" --metrics none -- "$PY" "$T/prog.py" 2>"$T/err")
rc=$?
[ $rc -eq 3 ] || fail "exit code $rc, not the program's 3"
[ "$out" = done ] || fail "program output changed: '$out'"
grep -q "host sampling, pid" "$T/err" || fail "no host sampling line: $(cat "$T/err")"
[ "$(q a.db 'pragma user_version')" = 2 ] || fail "schema version not 2"
n=$(q a.db "select count(*) from host_samples where source = 2")
[ "$n" -ge 50 ] || fail "only $n CPython reader samples"
# while alpha runs (its share of the run depends on the machine's load),
# the innermost Python frame is gamma
g=$(q a.db "select count(*) from host_samples x join host_stacks k on k.id = x.stack_id
	join host_frames f on f.id = k.frame_id join strings s on s.id = f.name_id
	where x.source = 2 and s.value = 'gamma' and f.kind = 2")
a=$(q a.db "with recursive up(sample, node) as (
	select x.rowid, x.stack_id from host_samples x where x.source = 2
	union all select up.sample, k.parent_id from up join host_stacks k on k.id = up.node
	where up.node != 0)
	select count(distinct up.sample) from up join host_stacks k on k.id = up.node
	join host_frames f on f.id = k.frame_id join strings s on s.id = f.name_id
	where s.value = 'alpha'")
[ "$a" -ge 30 ] || fail "alpha in only $a samples"
[ $((g * 100)) -ge $((a * 95)) ] || fail "gamma innermost in $g of the $a samples in alpha"
mech=$(q a.db "select s.value from host_sampling h join strings s on s.id = h.mechanism_id
	order by h.samples desc limit 1")
case $mech in
perf+pyread)
	p=$(q a.db "select count(*) from host_samples where source = 1")
	[ "$p" -ge 50 ] || fail "perf on but only $p perf samples"
	;;
pyread) grep -q "perf events:" "$T/err" || fail "perf off without a reason" ;;
*) fail "mechanism '$mech'" ;;
esac
pid=$(q a.db "select pid from host_sampling order by samples desc limit 1")
[ ! -e "/tmp/perf-$pid.map" ] || fail "perf map file of pid $pid left behind"
echo "ok: record --host-sampling: $n reader samples, $a in alpha, gamma innermost in $g, mechanism $mech"

# the Perfetto export: one instant event per sample on its thread, valid JSON
"$BIN" export "$T/a.db" --format perfetto -o "$T/a.json" 2>/dev/null || fail "export"
"$PY" - "$T/a.json" "$n" <<'CHECK' || fail "perfetto host samples"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "host_sample"]
py = [e for e in ev if e["args"]["source"] == "pyread"]
assert len(py) == int(sys.argv[2]), (len(py), sys.argv[2])
assert all(e["ph"] == "i" and e["ts"] >= 0 and e["tid"] == e["pid"] for e in ev)
a = [e for e in py if " alpha " in e["args"]["stack"] + " "]
g = [e for e in a if e["name"] == "gamma" and e["args"]["stack"].startswith("gamma <- beta <- alpha")]
assert len(a) >= 30 and len(g) * 100 >= len(a) * 95, (len(g), len(a))
CHECK
echo "ok: perfetto export of host samples"

"$BIN" record -o "$T/b.db" --metrics none --host-sampling off -- "$PY" "$T/prog.py" >/dev/null 2>&1
[ $? -eq 3 ] || fail "off: exit code"
[ "$(q b.db 'select count(*) from host_samples') $(q b.db 'select count(*) from host_sampling')" = "0 0" ] ||
	fail "--host-sampling off recorded host rows"
echo "ok: --host-sampling off"

for bad in 0 -5 abc 20000 nan; do
	"$BIN" record -o "$T/c.db" --host-sampling "$bad" -- true 2>"$T/err"
	[ $? -eq 2 ] || fail "--host-sampling $bad: not a usage error"
	grep -q "host-sampling" "$T/err" || fail "--host-sampling $bad: message does not name it"
done
[ ! -e "$T/c.db" ] || fail "a usage error wrote a database"
echo "ok: bad rates refused"
