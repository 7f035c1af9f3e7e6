#!/usr/bin/env bash
# Hostile and damaged input to the trace readers (issue #21 items 2, 5-9,
# 12): each case says what is wrong in one line and exits 1 (or reads the
# input right), never crashes, hangs, or reports nonsense. Each case marked
# (main) failed on the main of 2026-12-03 (6dd5c16).
# usage: bad_input.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
bin=$(realpath "$1")
# expect_err NAME REGEX CMD...: exit 1, one stderr line matching REGEX
expect_err() {
	local name=$1 re=$2
	shift 2
	timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -qE "$re" "$tmp/err"; then
		ok "$name"
	else
		bad "$name (rc $rc)"
		head -c 600 "$tmp/err"
	fi
}
ex=$src/examples/tiny-kernel-storm.db

# item 5: a time near INT64_MAX
cp "$ex" "$tmp/t5.db"
sqlite3 "$tmp/t5.db" "UPDATE kernels SET start_ns=9223372036854775807 WHERE id=1"
expect_err "db time near INT64_MAX (main)" "out of range" "$bin" report "$tmp/t5.db"
cp "$ex" "$tmp/t5b.db"
sqlite3 "$tmp/t5b.db" "UPDATE kernels SET dur_ns=9223372036854775807 WHERE id=2"
expect_err "db duration near INT64_MAX (main)" "out of range" "$bin" report "$tmp/t5b.db"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":5000000000000000,"dur":2}]}' >"$tmp/t5.json"
expect_err "kineto ts beyond 2^62 ns (main)" "out of range" "$bin" report "$tmp/t5.json"

# item 12: kineto pids out of range (docs/import-export.md: errors)
for pid in 1e20 -7 4294967296; do
	printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":%s,"tid":7,"ts":1,"dur":2}]}' "$pid" >"$tmp/pid.json"
	expect_err "kineto pid $pid (main)" "pid out of range" "$bin" report "$tmp/pid.json"
done
printf '{"traceEvents":[{"ph":"X","cat":"overhead","name":"Activity Buffer Request","pid":-1,"tid":0,"ts":1,"dur":2},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]}' >"$tmp/pidok.json"
"$bin" report "$tmp/pidok.json" >/dev/null 2>"$tmp/err" && ok "pid -1 on an unmapped category is fine" || {
	bad "pid -1 on an unmapped category"
	cat "$tmp/err"
}

# item 6: valid databases are not "corrupt"; damaged ones say what is wrong
head -c 600000 "$ex" >"$tmp/trunc.db"
expect_err "truncated copy says truncated (main)" "is truncated: 600000 of the [0-9]+ bytes" "$bin" report "$tmp/trunc.db"
# the file is named once in the message, not by the command and the reader both
"$bin" report "$tmp/trunc.db" 2>"$tmp/err" >/dev/null
[ "$(grep -o "trunc.db" "$tmp/err" | wc -l)" = 1 ] && ok "the path is named once" ||
	{ bad "the path is named more than once"; cat "$tmp/err"; }
cp "$src/tests/fixtures/zoo/healthy_pipeline.db" "$tmp/w.db"
sqlite3 "$tmp/w.db" "PRAGMA journal_mode=WAL" >/dev/null
timeout 20 "$bin" report "$tmp/w.db" >"$tmp/out" 2>"$tmp/err"
[ $? = 0 ] && [ ! -e "$tmp/w.db-wal" ] && [ ! -e "$tmp/w.db-shm" ] && ok "WAL-mode database read without -wal/-shm files beside it (main)" || bad "WAL read left files"
cp "$ex" "$tmp/j.db"
python3 - "$tmp/j.db" <<'PY'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute('PRAGMA cache_size=2')
c.execute('BEGIN')
c.execute('UPDATE kernels SET dur_ns = dur_ns + 1')
os._exit(0)  # leaves a hot journal
PY
if [ -s "$tmp/j.db-journal" ]; then
	expect_err "hot journal named (main)" "hot journal" "$bin" report "$tmp/j.db"
else
	echo "skip: python's sqlite3 left no hot journal"
fi
cp "$ex" "$tmp/l.db"
python3 - "$tmp/l.db" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute('BEGIN EXCLUSIVE')
open(sys.argv[1] + '.locked', 'w').close()
time.sleep(1.5)
c.execute('ROLLBACK')
PY
for _ in $(seq 50); do [ -e "$tmp/l.db.locked" ] && break; sleep 0.1; done
timeout 20 "$bin" report "$tmp/l.db" >"$tmp/out" 2>"$tmp/err"
[ $? = 0 ] && ok "a database locked by a writer is read once the writer is done (main)" || {
	bad "locked database"
	cat "$tmp/err"
}
wait

# item 2: non-regular inputs: refused or read, never a hang
mkfifo "$tmp/fifo"
expect_err "report FIFO with no writer: no hang (main)" "empty" "$bin" report "$tmp/fifo"
expect_err "report /dev/zero refused (main)" "device" "$bin" report /dev/zero
expect_err "report /dev/urandom refused (main)" "device" "$bin" report /dev/urandom
mkdir "$tmp/nodir"
expect_err "report DIR with no trace in it refused (main)" "holds no trace" "$bin" report "$tmp/nodir"

# item 7: a pipe is read once, sniffed from the same stream
gz=$src/tests/fixtures/pytorch/transformer_step.json.gz
"$bin" report "$gz" >"$tmp/file.txt" 2>&1
timeout 60 "$bin" report <(zcat "$gz") >"$tmp/pipe.txt" 2>&1
sed -i '1d' "$tmp/file.txt" "$tmp/pipe.txt" # the first line names the input
cmp -s "$tmp/file.txt" "$tmp/pipe.txt" && ok "report <(zcat trace.json.gz) = report trace.json.gz (main)" || bad "pipe input"
timeout 60 "$bin" report <(cat "$gz") >"$tmp/pipe2.txt" 2>&1
sed -i '1d' "$tmp/pipe2.txt"
cmp -s "$tmp/file.txt" "$tmp/pipe2.txt" && ok "gzip on a pipe (main)" || bad "gzip pipe input"
expect_err "a database on a pipe says so (main)" "pipe" "$bin" report <(cat "$ex")

# item 8: gzip integrity
zcat "$gz" | gzip -c >"$tmp/g.json.gz"
n=$(stat -c %s "$tmp/g.json.gz")
head -c $((n - 8)) "$tmp/g.json.gz" >"$tmp/cut8.json.gz"
expect_err "gzip cut by its 8-byte trailer (main)" "truncated gzip" "$bin" report "$tmp/cut8.json.gz"
head -c $((n / 2)) "$tmp/g.json.gz" >"$tmp/half.json.gz"
expect_err "gzip cut in half (main)" "truncated gzip" "$bin" report "$tmp/half.json.gz"
{ cat "$tmp/g.json.gz"; echo "trailing garbage"; } >"$tmp/tail.json.gz"
expect_err "garbage after the gzip member (main)" "garbage after the gzip data" "$bin" report "$tmp/tail.json.gz"
python3 - "$tmp/g.json.gz" "$tmp/crc.json.gz" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[-8] ^= 0xff  # the CRC32 of the trailer
open(sys.argv[2], 'wb').write(b)
PY
expect_err "a wrong CRC" "incorrect data check" "$bin" report "$tmp/crc.json.gz"
{ zcat "$gz" | head -c 1000 | gzip -c; zcat "$gz" | tail -c +1001 | gzip -c; } >"$tmp/two.json.gz"
timeout 60 "$bin" report "$tmp/two.json.gz" >"$tmp/two.txt" 2>&1
sed -i '1d' "$tmp/two.txt"
cmp -s "$tmp/file.txt" "$tmp/two.txt" && ok "two gzip members read as one stream" || bad "multi-member gzip"

# item 12: a UTF-8 byte order mark
printf '\xef\xbb\xbf' >"$tmp/bom.json"
cat "$src/tests/fixtures/kineto-synthetic/small.json" >>"$tmp/bom.json"
timeout 20 "$bin" report "$tmp/bom.json" >/dev/null 2>"$tmp/err" && ok "JSON with a UTF-8 BOM (main)" || {
	bad "BOM"
	cat "$tmp/err"
}
gzip -c "$tmp/bom.json" >"$tmp/bom.json.gz"
timeout 20 "$bin" report "$tmp/bom.json.gz" >/dev/null 2>"$tmp/err" && ok "gzip'd JSON with a UTF-8 BOM (main)" || bad "BOM in gzip"

# item 9: invalid UTF-8 in names reaches no JSON output unescaped
cp "$ex" "$tmp/u.db"
sqlite3 "$tmp/u.db" "UPDATE strings SET value = CAST(X'6b5fff5fc0af5fedA0805f' || value AS TEXT) WHERE id IN (SELECT name_id FROM launch_configs)"
timeout 20 "$bin" report --format json "$tmp/u.db" >"$tmp/u.json" 2>"$tmp/err"
timeout 20 "$bin" export "$tmp/u.db" --format perfetto -o "$tmp/u.perfetto.json" 2>>"$tmp/err"
python3 - "$tmp/u.json" "$tmp/u.perfetto.json" <<'PY' && ok "report JSON and Perfetto parse strictly with invalid UTF-8 in a name (main)" || bad "invalid UTF-8 in JSON"
import json, sys
for f in sys.argv[1:]:
    text = open(f, 'rb').read().decode('utf-8')  # strict: raises on invalid UTF-8
    doc = json.loads(text)
    assert '\ufffd' in json.dumps(doc, ensure_ascii=False), f + ': no replacement character'
PY

# item 12: the program writes into record's spool directory (src/record: the
# directory is record's, made for the run; all of it goes)
mkdir "$tmp/rec"
(cd "$tmp/rec" && timeout 30 "$bin" record -o r.db -- sh -c 'echo mine >"$GPUSCOPE_SPOOL_DIR/mine.txt"' >/dev/null 2>"$tmp/err")
[ -f "$tmp/rec/r.db" ] && [ -z "$(ls -d "$tmp"/rec/r.db.spool-* 2>/dev/null)" ] && ok "no spool dir left when the program wrote into it (main)" || {
	bad "spool dir the program wrote into"
	cat "$tmp/err"
}

exit $fail
