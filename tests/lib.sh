# lib.sh - what the shell tests share (git's test-lib.sh in small), sourced
# first: `. "$(dirname "$0")/../lib.sh"`. A test is run by ctest as
# `bash TEST.sh BUILD/gpuscope SOURCE_DIR` (CMakeLists.txt).
#
# Sets bin (the gpuscope binary), src (the source tree), build (the build
# directory), fail=0 and tmp, a fresh directory removed at exit (with
# whatever `cleanup` holds run first: a server to stop). Gives:
#   ok DESC           prints "ok: DESC"
#   bad DESC          prints "FAIL: DESC" and marks the test failed
#   check DESC CMD... ok when CMD exits 0, else bad
# and the test ends with `exit $fail`.
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
