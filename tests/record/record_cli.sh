#!/bin/bash
# record_cli.sh - `gpuscope record` on CPU-only programs: exit codes, the
# database it leaves, refusing to overwrite, signals. Usage: record_cli.sh GPUSCOPE SRC
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$BIN" record -o "$T/a.db" --metrics none -- sh -c 'exit 7' 2>"$T/err"
[ $? -eq 7 ] || fail "exit code not passed through"
[ "$(sqlite3 "$T/a.db" 'select count(*) from processes')" -ge 1 ] || fail "no process row"
sqlite3 "$T/a.db" 'select s.value from processes p join strings s on s.id = p.status_id' | grep -q "no CUDA activity" || fail "no status"
ls "$T" | grep -q spool && fail "spool dir left behind"

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

"$BIN" record -o "$T/c.db" --metrics none -- /nonexistent/cmd 2>/dev/null
[ $? -eq 127 ] || fail "missing command: not 127"
"$BIN" record -o "$T/c.db" true 2>/dev/null
[ $? -eq 2 ] || fail "no --: not 2"
echo ok
