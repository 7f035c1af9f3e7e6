#!/bin/bash
# record_cli.sh - `gpuscope record` on CPU-only programs: exit codes, the
# database it leaves, refusing to overwrite, signals. Usage: record_cli.sh GPUSCOPE SRC
set -u
. "$(dirname "$0")/../lib.sh"
T=$tmp

"$bin" record -o "$T/a.db" --metrics none -- sh -c 'exit 7' 2>"$T/err"
[ $? -eq 7 ] || die "exit code not passed through"
[ "$(sqlite3 "$T/a.db" 'select count(*) from processes')" -ge 1 ] || die "no process row"
sqlite3 "$T/a.db" 'select s.value from processes p join strings s on s.id = p.status_id' | grep -q "no CUDA activity" || die "no status"
ls "$T" | grep -q spool && die "spool dir left behind"

# --metrics pm tells the injected library through GPUSCOPE_METRICS; the
# program runs as without it (no GPU here: no PM sampling, no samples)
out=$("$bin" record -o "$T/pm.db" --metrics pm --sample-hz 1 -- sh -c 'echo "m=$GPUSCOPE_METRICS"; exit 3' 2>/dev/null)
[ $? -eq 3 ] || die "--metrics pm: exit code not passed through"
[ "$out" = "m=pm" ] || die "--metrics pm: the program saw '$out'"
"$bin" record -o "$T/pm.db" --metrics pm --kernel-regex x -- true 2>/dev/null
[ $? -eq 2 ] || die "--kernel-regex with --metrics pm is not a usage error"

echo "precious" >"$T/keep.txt"
"$bin" record -o "$T/keep.txt" --metrics none -- true 2>/dev/null
[ $? -ne 0 ] || die "overwrote a non-gpuscope file"
[ "$(cat "$T/keep.txt")" = precious ] || die "non-gpuscope file modified"

"$bin" record -o "$T/a.db" --metrics none -- true 2>/dev/null || die "cannot overwrite own db"

"$bin" record -o "$T/b.db" --metrics none -- sleep 30 2>/dev/null &
R=$!
sleep 1
kill -TERM $R
wait $R
[ $? -eq 143 ] || die "SIGTERM: exit code not 143"
pgrep -f "sleep 30" -P $R >/dev/null && die "child not killed"
[ "$(sqlite3 "$T/b.db" 'select count(*) from processes')" -ge 1 ] || die "SIGTERM: db incomplete"

# Flush handshake (src/trace/spool.h): a stand-in for a traced process makes
# a spool file, answers record's flush request 0.3 s late, and notes whether
# SIGTERM came only after the request. A real one is the injected library.
cat >"$T/traced.sh" <<'SH'
d=$GPUSCOPE_SPOOL_DIR
: >"$d/spool-$$.bin"
trap 'if [ -f "$T_OUT/seen" ]; then echo after >"$T_OUT/term"; else echo before >"$T_OUT/term"; fi; exit 143' TERM
while :; do
	if [ -f "$d/flush-request" ] && [ ! -f "$T_OUT/seen" ]; then
		: >"$T_OUT/seen"
		[ -n "${NO_ANSWER:-}" ] || { sleep 0.3; : >"$d/flushed-$$"; }
	fi
	sleep 0.02
done
SH
T_OUT=$T "$bin" record -o "$T/h.db" --metrics none -- bash "$T/traced.sh" 2>/dev/null &
R=$!
sleep 1
kill -TERM $R
wait $R
[ $? -eq 143 ] || die "handshake: exit code not 143"
[ "$(cat "$T/term" 2>/dev/null)" = after ] || die "handshake: SIGTERM reached the program before the flush request"
ls "$T" | grep -q spool && die "handshake: spool dir left behind"
# a process that never answers gets the signal after SPOOL_FLUSH_WAIT_MS (2 s)
rm -f "$T/seen" "$T/term"
NO_ANSWER=1 T_OUT=$T "$bin" record -o "$T/h.db" --metrics none -- bash "$T/traced.sh" 2>/dev/null &
R=$!
sleep 1
t0=$(date +%s%N)
kill -TERM $R
wait $R
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc -eq 143 ] || die "no answer: exit code not 143"
[ "$ms" -ge 1900 ] && [ "$ms" -lt 6000 ] || die "no answer: signal forwarded after $ms ms, not ~2000"

"$bin" record -o "$T/c.db" --metrics none -- /nonexistent/cmd 2>/dev/null
[ $? -eq 127 ] || die "missing command: not 127"
"$bin" record -o "$T/c.db" true 2>/dev/null
[ $? -eq 2 ] || die "no --: not 2"
# the injected library's pause/resume (gpuscope_capture), called where
# nothing is recorded (no CUDA here): -1 each time, no crash; the GPU check
# is workloads/robust/capture.py on the H200
LIB=$(dirname "$bin")/libgpuscope-inject.so
if [ -f "$LIB" ] && command -v python3 >/dev/null; then
	r=$(python3 -c 'import ctypes, sys
l = ctypes.CDLL(sys.argv[1])
print(l.gpuscope_capture(0), l.gpuscope_capture(1))' "$LIB" 2>&1)
	[ "$r" = "-1 -1" ] || die "gpuscope_capture outside a recording: '$r' (want -1 -1)"
fi
echo ok
