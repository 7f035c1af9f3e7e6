#!/usr/bin/env bash
# The shell tests share tests/lib.sh (scripts/shell-tests.sh): the real
# tests/ keeps to it, and small trees that each break one rule (a test that
# does not source lib.sh, directly or through its directory's library; one
# that defines ok/bad/check/die/exits/fail itself; one that sets its own
# EXIT trap) are reported, rule by rule, while a legal tree passes.
# usage: shell_tests.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
checker=$src/scripts/shell-tests.sh
if bash "$checker" "$src/tests" >"$tmp/out"; then
	ok "tests/ keeps to lib.sh"
else
	bad "tests/ breaks lib.sh's rules:"
	cat "$tmp/out"
fi
# a tree with tests/lib.sh and one test in x/
tree() {
	rm -rf "$tmp/t" && mkdir -p "$tmp/t/x" "$tmp/t/fuzz"
	cp "$src/tests/lib.sh" "$tmp/t/lib.sh"
	printf '#!/bin/sh\n# the fuzz runner, allowlisted\nexit 0\n' >"$tmp/t/fuzz/run.sh"
}
lib='. "$(dirname "$0")/../lib.sh"\n'
# plant RULE FILE TEXT, or plant RULE FILE FILE1 TEXT1 FILE2 TEXT2...: a
# tree with FILE (or FILE1, FILE2...) holding TEXT; the checker must report
# RULE at FILE
plant() {
	local rule=$1 at=$2
	tree
	shift 2
	[ $# = 1 ] && set -- "$at" "$1"
	while [ $# -ge 2 ]; do
		printf '%b' "$2" >"$tmp/t/$1"
		shift 2
	done
	if bash "$checker" "$tmp/t" >"$tmp/out"; then
		bad "$rule in $at not reported"
	elif grep -q "^$at:[0-9]*: $rule:" "$tmp/out"; then
		ok "$rule in $at reported"
	else
		bad "$rule in $at: wrong report"
		cat "$tmp/out"
	fi
}
plant lib x/t.sh '#!/usr/bin/env bash\nset -u\nbin=$1\nexit 0\n'
plant own x/t.sh "$lib"'bad() { echo "FAIL: $1"; fail=1; }\nexit $fail\n'
plant own x/t.sh "$lib"'ok () {\n\techo "ok: $1"\n}\nexit $fail\n'
plant own x/t.sh "$lib"'check() { "$@"; }\nexit $fail\n'
plant own x/t.sh "$lib"'fail() { echo "FAIL: $*"; exit 1; }\nexit $fail\n'
plant own x/t.sh "$lib"'die() { exit 2; }\nexit $fail\n'
plant own x/t.sh "$lib"'function exits {\n\t:\n}\nexit $fail\n'
plant trap x/t.sh "$lib"'t=$(mktemp -d)\ntrap '"'"'rm -rf "$t"'"'"' EXIT\nexit $fail\n'
# through the directory's library: one that does not source lib.sh, one that redefines check
plant lib x/t.sh x/t.sh '. "$(dirname "$0")/common.bash"\nexit $fail\n' x/common.bash 'fail=0\n'
plant own x/common.bash x/t.sh '. "$(dirname "$0")/common.bash"\nexit $fail\n' \
	x/common.bash '. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"\ncheck() { :; }\n'
# and what is not a breach: lib.sh sourced directly or through a library,
# helpers of other names, cleanup= for a server, a TERM trap in a child's script
tree
printf '%b' "$lib"'has() { grep -q "$2" "$1" || bad "no $2"; }\ncleanup='"'"'kill $pid'"'"'\necho "trap '"'"'exit 143'"'"' TERM" >"$tmp/child.sh"\nexit $fail\n' >"$tmp/t/x/a.sh"
printf '%b' '. "$(dirname "$0")/common.bash"\ncheck "W1: case" true\nexit $fail\n' >"$tmp/t/x/b.sh"
printf '%b' '. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"\nrun() { "$bin" "$@"; }\n' >"$tmp/t/x/common.bash"
if bash "$checker" "$tmp/t" >"$tmp/out"; then ok "lib.sh sourced, directly or by a library, other helpers, cleanup=: pass"; else
	bad "a legal tree refused"
	cat "$tmp/out"
fi
exit $fail
