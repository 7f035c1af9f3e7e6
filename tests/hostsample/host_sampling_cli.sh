#!/bin/bash
# host_sampling_cli.sh - `gpuscope record --host-sampling` on a CPU-only
# Python program (issue 17): the database holds its stacks (gamma <- beta
# <- alpha from the CPython reader, native frames from perf events where
# the kernel allows them), a host_sampling row, and no perf map file is left
# in /tmp; 'off' records none; bad rates are usage errors; the program's
# exit code and output are untouched. Usage: host_sampling_cli.sh GPUSCOPE SRC
set -u
. "$(dirname "$0")/../lib.sh"
T=$tmp
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

out=$("$bin" record -o "$T/a.db" --metrics none -- "$PY" "$T/prog.py" 2>"$T/err")
rc=$?
[ $rc -eq 3 ] || die "exit code $rc, not the program's 3"
[ "$out" = done ] || die "program output changed: '$out'"
grep -q "host sampling, pid" "$T/err" || die "no host sampling line: $(cat "$T/err")"
[ "$(q a.db 'pragma user_version')" -ge 2 ] || die "schema version below 2"
n=$(q a.db "select count(*) from host_samples where source = 2")
[ "$n" -ge 50 ] || die "only $n CPython reader samples"
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
[ "$a" -ge 30 ] || die "alpha in only $a samples"
[ $((g * 100)) -ge $((a * 95)) ] || die "gamma innermost in $g of the $a samples in alpha"
mech=$(q a.db "select s.value from host_sampling h join strings s on s.id = h.mechanism_id
	order by h.samples desc limit 1")
case $mech in
perf+pyread)
	p=$(q a.db "select count(*) from host_samples where source = 1")
	[ "$p" -ge 50 ] || die "perf on but only $p perf samples"
	;;
pyread) grep -q "perf events:" "$T/err" || die "perf off without a reason" ;;
*) die "mechanism '$mech'" ;;
esac
# perf's events sample a Python program at a quarter of the rate (their
# cost is the program's thread's; the reader gives its Python stacks at the
# full rate), any other program at the full rate; GPUSCOPE_HOST_PERF_DIV=1
# keeps the full rate. A sample's weight is its period.
perf_w() { q "$1" "select coalesce(min(weight_ns), 0) || ' ' || coalesce(max(weight_ns), 0)
	from host_samples where source = $2"; }
if [ "$mech" = perf+pyread ]; then
	[ "$(perf_w a.db 1)" = "4000000 4000000" ] || die "Python program: perf weights $(perf_w a.db 1)"
	[ "$(perf_w a.db 2)" = "1000000 1000000" ] || die "reader weights $(perf_w a.db 2)"
	GPUSCOPE_HOST_PERF_DIV=1 "$bin" record -o "$T/a1.db" --metrics none -- "$PY" "$T/prog.py" >/dev/null 2>&1
	[ "$(perf_w a1.db 1)" = "1000000 1000000" ] || die "PERF_DIV=1: perf weights $(perf_w a1.db 1)"
	printf '#!%s\n' "$PY" | cat - "$T/prog.py" >"$T/script"
	chmod +x "$T/script"
	"$bin" record -o "$T/a2.db" --metrics none -- "$T/script" >/dev/null 2>&1
	[ "$(perf_w a2.db 1)" = "4000000 4000000" ] || die "#! script: perf weights $(perf_w a2.db 1)"
	# a shell script that starts it (record/pycmd.h rule 3)
	printf '#!/bin/sh\n# the job\ncd /\nexec %s %s\n' "$PY" "$T/prog.py" >"$T/job.sh"
	"$bin" record -o "$T/a4.db" --metrics none -- sh "$T/job.sh" >/dev/null 2>&1
	[ "$(perf_w a4.db 1)" = "4000000 4000000" ] || die "sh job.sh: perf weights $(perf_w a4.db 1)"
	"$bin" record -o "$T/a3.db" --metrics none --host-sampling 500 -- \
		awk 'BEGIN { for (i = 0; i < 3e7; i++) s += i; print s > "/dev/null" }' >/dev/null 2>&1
	[ "$(perf_w a3.db 1)" = "2000000 2000000" ] || die "awk at 500 Hz: perf weights $(perf_w a3.db 1)"
	ok "perf at a quarter of the rate for Python (a program, a #! script, a shell script starting it), the full rate otherwise"
fi
pid=$(q a.db "select pid from host_sampling order by samples desc limit 1")
[ ! -e "/tmp/perf-$pid.map" ] || die "perf map file of pid $pid left behind"
ok "record --host-sampling: $n reader samples, $a in alpha, gamma innermost in $g, mechanism $mech"

# the Perfetto export: one instant event per sample on its thread, valid JSON
"$bin" export "$T/a.db" --format perfetto -o "$T/a.json" 2>/dev/null || die "export"
"$PY" - "$T/a.json" "$n" <<'CHECK' || die "perfetto host samples"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "host_sample"]
py = [e for e in ev if e["args"]["source"] == "pyread"]
assert len(py) == int(sys.argv[2]), (len(py), sys.argv[2])
assert all(e["ph"] == "i" and e["ts"] >= 0 and e["tid"] == e["pid"] for e in ev)
a = [e for e in py if " alpha " in e["args"]["stack"] + " "]
g = [e for e in a if e["name"] == "gamma" and e["args"]["stack"].startswith("gamma <- beta <- alpha")]
assert len(a) >= 30 and len(g) * 100 >= len(a) * 95, (len(g), len(a))
CHECK
ok "perfetto export of host samples"

"$bin" record -o "$T/b.db" --metrics none --host-sampling off -- "$PY" "$T/prog.py" >/dev/null 2>&1
[ $? -eq 3 ] || die "off: exit code"
[ "$(q b.db 'select count(*) from host_samples') $(q b.db 'select count(*) from host_sampling')" = "0 0" ] ||
	die "--host-sampling off recorded host rows"
ok "--host-sampling off"

for bad in 0 -5 abc 20000 nan; do
	"$bin" record -o "$T/c.db" --host-sampling "$bad" -- true 2>"$T/err"
	[ $? -eq 2 ] || die "--host-sampling $bad: not a usage error"
	grep -q "host-sampling" "$T/err" || die "--host-sampling $bad: message does not name it"
done
[ ! -e "$T/c.db" ] || die "a usage error wrote a database"
ok "bad rates refused"

# CPython's perf trampolines are not asked for while the CPython reader runs
# (they cost deep Python loops 21%: docs/host-sampling.md); only perf alone
# (GPUSCOPE_HOST_MECH=perf) asks for them, and never over the user's value
cat >"$T/env.py" <<'PROG'
import os
print(os.environ.get("PYTHONPERFSUPPORT", "unset"))
PROG
out=$(env -u PYTHONPERFSUPPORT "$bin" record -o "$T/d.db" --metrics none -- "$PY" "$T/env.py" 2>/dev/null)
[ "$out" = unset ] || die "default record set PYTHONPERFSUPPORT=$out"
out=$(PYTHONPERFSUPPORT=0 GPUSCOPE_HOST_MECH=perf "$bin" record -o "$T/d.db" --force --metrics none -- "$PY" "$T/env.py" 2>/dev/null)
[ "$out" = 0 ] || die "the user's PYTHONPERFSUPPORT=0 became $out"
if [ "$mech" = perf+pyread ]; then
	out=$(env -u PYTHONPERFSUPPORT GPUSCOPE_HOST_MECH=perf "$bin" record -o "$T/d.db" --force --metrics none -- "$PY" "$T/env.py" 2>/dev/null)
	[ "$out" = 1 ] || die "perf without the reader: PYTHONPERFSUPPORT=$out, not 1"
	[ "$(q d.db "select count(*) from host_samples where source = 2")" = 0 ] ||
		die "GPUSCOPE_HOST_MECH=perf still ran the CPython reader"
fi
ok "trampolines only for perf without the reader"

# the bench's switch (GPUSCOPE_HOST_SWITCH): nothing is sampled while the
# program has it at '0', both mechanisms sample at '1', only the reader at 'y'
cat >"$T/switch.py" <<'PROG'
import os, sys, time
fd = os.open(os.environ["GPUSCOPE_HOST_SWITCH"], os.O_RDWR)
def put(b):
    os.pwrite(fd, b, 0)
    end = time.monotonic() + 5
    while os.pread(fd, 1, 1) != b:
        assert time.monotonic() < end, "no acknowledgement"
        time.sleep(0.001)
def spin(s):  # CPU time, so that perf's samples do not depend on the load
    end = time.process_time() + s
    while time.process_time() < end:
        pass
def paused_work(): spin(0.3)
def sampled_work(): spin(0.3)
def reader_work(): spin(0.3)
put(b"0"); paused_work()
put(b"1"); sampled_work()
put(b"y"); reader_work()
put(b"0")
print("switched")
PROG
out=$(GPUSCOPE_HOST_PERF_DIV=1 GPUSCOPE_HOST_SWITCH="$T/switch" "$bin" record -o "$T/e.db" --metrics none -- "$PY" "$T/switch.py" 2>"$T/err")
[ "$out" = switched ] || die "switch program: '$out' $(cat "$T/err")"
in_fn() { # samples of source $2 whose stack holds function $1
	q e.db "with recursive up(sample, node) as (
	select x.rowid, x.stack_id from host_samples x where x.source = $2
	union all select up.sample, k.parent_id from up join host_stacks k on k.id = up.node
	where up.node != 0)
	select count(distinct up.sample) from up join host_stacks k on k.id = up.node
	join host_frames f on f.id = k.frame_id join strings s on s.id = f.name_id
	where s.value = '$1'"
}
p0=$(in_fn paused_work 2) s2=$(in_fn sampled_work 2) r2=$(in_fn reader_work 2)
[ "$p0" -le 1 ] || die "$p0 reader samples while switched off"
[ "$s2" -ge 50 ] && [ "$r2" -ge 50 ] || die "switched on: only $s2 / $r2 reader samples"
if [ "$mech" = perf+pyread ]; then
	# perf samples carry no Python names here (no trampolines): count by time
	read -r off on rd <<<"$(q e.db "select
		(select count(*) from host_samples where source = 1 and ts_ns < (select min(ts_ns) from host_samples where source = 2)),
		(select count(*) from host_samples where source = 1),
		(select count(*) from host_samples where source = 2)" | tr '|' ' ')"
	[ "$off" -le 120 ] || die "$off perf samples before the switch went on"
	# 0.3 s of CPU switched on at 1 kHz; 0.6 s or more if perf sampled while off or at 'y'
	[ "$on" -ge 150 ] && [ "$on" -le 480 ] || die "$on perf samples for 0.3 s of CPU switched on"
fi
rm -f "$T/switch"
ok "the host sampling switch: off $p0, on $s2 / $r2 reader samples, perf ${on:-} (${off:-} before)"
