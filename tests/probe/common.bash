# common.bash - sourced by the tests/probe/*.sh regression tests of the
# hostile-input probe (issue 35 item 2): each case is named by its defect id
# in ../shared/probe/reliability-2026-12-05.md and fails on the binary the
# probe ran against. usage of a test: TEST.sh BUILD/gpuscope SOURCE_DIR
# On top of ../lib.sh (bin, src, tmp, ok/bad/check: a case is checked as
# `check "ID: DESC" COMMAND...`), the probe's fixtures and helpers.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fx=$src/tests/fixtures
k=$fx/kineto-synthetic/small.json
gen=$src/tests/probe/gen
# run ARGS...: the binary with a time limit; stdout in $tmp/out, stderr in $tmp/err, status in $rc
run() {
	timeout 60 "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
# noctl FILE WORD: WORD is in FILE, and no ESC, BEL or CR (raw, as a terminal gets them)
noctl() {
	grep -aq "$2" "$1" && ! grep -aq $'[\033\007\r]' "$1"
}
finish() {
	[ $fail = 0 ] && echo "all ok" || echo "some cases failed"
	exit $fail
}
