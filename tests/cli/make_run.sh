#!/usr/bin/env bash
# `make run` (#21 item 14): the build is quiet (a few lines, the log in
# BUILD/build.log) and the report's verdict is the last thing on screen
# (it used to be 188 lines of make output first, the verdict 103 lines up).
# Runs on the build directory under test, which is up to date, so make
# rebuilds nothing and keeps that directory's configuration.
# usage: make_run.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
build=$(cd "$(dirname "$bin")" && pwd)
T=$tmp
# not the jobserver of the make that runs the tests
unset MAKEFLAGS MFLAGS MAKELEVEL
export GPUSCOPE_DOCTOR_NO_PYTHON=1
make -C "$src" --no-print-directory run BUILD="$build" >"$T/out" 2>&1
rc=$?
[ $rc = 0 ] && ok "make run exits 0" || { bad "make run: exit $rc"; tail -20 "$T/out"; }
# before the doctor: only the build's one line
pre=$(awk '/^== gpuscope doctor/{exit} {n++} END{print n+0}' "$T/out")
[ "$pre" -le 2 ] && ok "build output is $pre line(s)" || { bad "$pre lines of build output"; head -5 "$T/out"; }
grep -q "^== building gpuscope (log: .*build.log)" "$T/out" && [ -s "$build/build.log" ] && ok "the build log is kept" || bad "no build log"
# the verdict at the end: the last lines hold the VERDICT block of the report
tail -n 8 "$T/out" >"$T/end"
grep -q "^VERDICT" "$T/end" && grep -q "launch_overhead (critical" "$T/end" && grep -q "fix first:" "$T/end" &&
	ok "the verdict is on screen at the end" || { bad "the verdict is not at the end:"; cat "$T/end"; }
# and it is the report's own verdict (the same lines as in the report)
sed -n '/^VERDICT/,/^$/p' "$T/out" | head -n 20 >"$T/v1"
"$bin" report "$src/examples/tiny-kernel-storm.db" | sed -n '/^VERDICT/,/^$/p' >"$T/v2"
cmp -s <(head -n "$(wc -l <"$T/v2")" "$T/v1") "$T/v2" && ok "the same verdict as report's" || bad "verdict differs"
exit $fail
