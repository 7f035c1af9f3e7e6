# lib.sh - what the shell tests share (git's test-lib.sh in small), sourced
# first: `. "$(dirname "$0")/../lib.sh"`. A test is run by ctest as
# `bash TEST.sh BUILD/gpuscope SOURCE_DIR` (CMakeLists.txt).
#
# Sets bin (the gpuscope binary), src (the source tree), build (the build
# directory), fail=0 and tmp, a fresh directory removed at exit (with
# whatever `cleanup` holds run first: a server to stop; a test sets no EXIT
# trap of its own). Gives:
#   ok DESC           prints "ok: DESC"
#   bad DESC          prints "FAIL: DESC" and marks the test failed
#   check DESC CMD... ok when CMD exits 0, else bad
#   die DESC          prints "FAIL: DESC" and ends the test now (exit 1): for
#                     a step the rest needs (an input to make, a report the
#                     next lines read)
#   exits RC DESC CMD...
#                     runs CMD with its stdout in $tmp/out and its stderr in
#                     $tmp/err; ok when it exits RC, else bad with the exit
#                     and the head of $tmp/err (returns 0 when ok)
# and the test ends with `exit $fail`. A test defines none of these itself
# (tests/layout/shell_tests.sh, scripts/shell-tests.sh).
# shellcheck shell=bash disable=SC2034 # the variables are the tests'
bin=${1:?usage: TEST.sh BUILD/gpuscope SOURCE_DIR}
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
build=$(dirname "$bin")
fail=0
cleanup=:
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gs-test.XXXXXX") || { echo "FAIL: mktemp"; exit 1; }
trap 'eval "$cleanup"; rm -rf "$tmp"' EXIT
ok() { echo "ok: $*"; }
bad() {
	echo "FAIL: $*"
	fail=1
}
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else bad "$desc"; fi
}
die() {
	echo "FAIL: $*"
	exit 1
}
exits() {
	local want=$1 desc=$2 rc
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$want" ]; then
		ok "$desc"
	else
		bad "$desc: exit $rc, want $want"
		head -5 "$tmp/err"
		return 1
	fi
}
