#!/usr/bin/env bash
# Hostile and damaged input to the trace readers (issue #21 items 2, 5-9,
# 12): each case says what is wrong in one line and exits 1 (or reads the
# input right), never crashes, hangs, or reports nonsense. Each case marked
# (main) failed on the main of 2026-12-03 (6dd5c16).
# usage: bad_input.sh BUILD/gpuscope SOURCE_DIR
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok: $1"; }
bad() {
	echo "FAIL: $1"
	fail=1
}
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
expect_err "db time near INT64_MAX" "out of range" "$bin" report "$tmp/t5.db"
cp "$ex" "$tmp/t5b.db"
sqlite3 "$tmp/t5b.db" "UPDATE kernels SET dur_ns=9223372036854775807 WHERE id=2"
expect_err "db duration near INT64_MAX" "out of range" "$bin" report "$tmp/t5b.db"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":5000000000000000,"dur":2}]}' >"$tmp/t5.json"
expect_err "kineto ts beyond 2^62 ns" "out of range" "$bin" report "$tmp/t5.json"

# item 12: kineto pids out of range (docs/import-export.md: errors)
for pid in 1e20 -7 4294967296; do
	printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":%s,"tid":7,"ts":1,"dur":2}]}' "$pid" >"$tmp/pid.json"
	expect_err "kineto pid $pid" "pid out of range" "$bin" report "$tmp/pid.json"
done
printf '{"traceEvents":[{"ph":"X","cat":"overhead","name":"Activity Buffer Request","pid":-1,"tid":0,"ts":1,"dur":2},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]}' >"$tmp/pidok.json"
"$bin" report "$tmp/pidok.json" >/dev/null 2>"$tmp/err" && ok "pid -1 on an unmapped category is fine" || {
	bad "pid -1 on an unmapped category"
	cat "$tmp/err"
}

exit $fail
