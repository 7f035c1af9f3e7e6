#!/bin/bash
# record_cli.sh - `gpuscope record` on CPU-only programs: exit codes, the
# database it leaves, refusing to overwrite, signals. Usage: record_cli.sh GPUSCOPE SRC
set -u
. "$(dirname "$0")/../lib.sh"
BIN=$1
T=$tmp
fail() { echo "FAIL: $*"; exit 1; }

"$BIN" record -o "$T/a.db" --metrics none -- sh -c 'exit 7' 2>"$T/err"
[ $? -eq 7 ] || fail "exit code not passed through"
[ "$(sqlite3 "$T/a.db" 'select count(*) from processes')" -ge 1 ] || fail "no process row"
sqlite3 "$T/a.db" 'select s.value from processes p join strings s on s.id = p.status_id' | grep -q "no CUDA activity" || fail "no status"
ls "$T" | grep -q spool && fail "spool dir left behind"

# --metrics pm tells the injected library through GPUSCOPE_METRICS; the
# program runs as without it (no GPU here: no PM sampling, no samples)
out=$("$BIN" record -o "$T/pm.db" --metrics pm --sample-hz 1 -- sh -c 'echo "m=$GPUSCOPE_METRICS"; exit 3' 2>/dev/null)
[ $? -eq 3 ] || fail "--metrics pm: exit code not passed through"
[ "$out" = "m=pm" ] || fail "--metrics pm: the program saw '$out'"
"$BIN" record -o "$T/pm.db" --metrics pm --kernel-regex x -- true 2>/dev/null
[ $? -eq 2 ] || fail "--kernel-regex with --metrics pm is not a usage error"

echo "precious" >"$T/keep.txt"
"$BIN" record -o "$T/keep.txt" --metrics none -- true 2>/dev/null
[ $? -ne 0 ] || fail "overwrote a non-gpuscope file"
[ "$(cat "$T/keep.txt")" = precious ] || fail "non-gpuscope file modified"

"$BIN" record -o "$T/a.db" --metrics none -- true 2>/dev/null || fail "cannot overwrite own db"

"$BIN" record -o "$T/b.db" --metrics none -- sleep 30 2>/dev/null &
R=$!
sleep 1
kill -TERM $R
wait $R
[ $? -eq 143 ] || fail "SIGTERM: exit code not 143"
pgrep -f "sleep 30" -P $R >/dev/null && fail "child not killed"
[ "$(sqlite3 "$T/b.db" 'select count(*) from processes')" -ge 1 ] || fail "SIGTERM: db incomplete"

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
T_OUT=$T "$BIN" record -o "$T/h.db" --metrics none -- bash "$T/traced.sh" 2>/dev/null &
R=$!
sleep 1
kill -TERM $R
wait $R
[ $? -eq 143 ] || fail "handshake: exit code not 143"
[ "$(cat "$T/term" 2>/dev/null)" = after ] || fail "handshake: SIGTERM reached the program before the flush request"
ls "$T" | grep -q spool && fail "handshake: spool dir left behind"
# a process that never answers gets the signal after SPOOL_FLUSH_WAIT_MS (2 s)
rm -f "$T/seen" "$T/term"
NO_ANSWER=1 T_OUT=$T "$BIN" record -o "$T/h.db" --metrics none -- bash "$T/traced.sh" 2>/dev/null &
R=$!
sleep 1
t0=$(date +%s%N)
kill -TERM $R
wait $R
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc -eq 143 ] || fail "no answer: exit code not 143"
[ "$ms" -ge 1900 ] && [ "$ms" -lt 6000 ] || fail "no answer: signal forwarded after $ms ms, not ~2000"

"$BIN" record -o "$T/c.db" --metrics none -- /nonexistent/cmd 2>/dev/null
[ $? -eq 127 ] || fail "missing command: not 127"
"$BIN" record -o "$T/c.db" true 2>/dev/null
[ $? -eq 2 ] || fail "no --: not 2"
# the injected library's pause/resume (gpuscope_capture), called where
# nothing is recorded (no CUDA here): -1 each time, no crash; the GPU check
# is workloads/robust/capture.py on the H200
LIB=$(dirname "$BIN")/libgpuscope-inject.so
if [ -f "$LIB" ] && command -v python3 >/dev/null; then
	r=$(python3 -c 'import ctypes, sys
l = ctypes.CDLL(sys.argv[1])
print(l.gpuscope_capture(0), l.gpuscope_capture(1))' "$LIB" 2>&1)
	[ "$r" = "-1 -1" ] || fail "gpuscope_capture outside a recording: '$r' (want -1 -1)"
fi
echo ok
