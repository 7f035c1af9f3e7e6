#!/usr/bin/env bash
# CLI basics: --help, --version, help CMD, unknown commands, exit codes.
# usage: basics.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
# private files: several checkouts run their tests on one machine at once
T=$tmp
check() { # check DESC EXPECTED_RC CMD...
	local desc=$1 want=$2
	shift 2
	"$@" >$T/out 2>$T/err
	local rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: $desc: exit $rc, want $want"; cat $T/err; fail=1
	else
		echo "ok: $desc"
	fi
}
check "--version" 0 "$bin" --version
grep -q '^gpuscope [0-9]' $T/out || { echo "FAIL: version text"; fail=1; }
check "--help" 0 "$bin" --help
grep -q '^usage: gpuscope' $T/out || { echo "FAIL: help text"; fail=1; }
check "no arguments is a usage error" 2 "$bin"
check "unknown command" 2 "$bin" frobnicate
grep -q "unknown command 'frobnicate'" $T/err || { echo "FAIL: unknown message"; fail=1; }
check "help of unknown command" 2 "$bin" help frobnicate
# every command listed in --help has help text, through both spellings
"$bin" --help | awk '/^commands:/{on=1;next} /^$/{on=0} on && /^  [a-z]/ {print $1}' >$T/cmds
[ -s $T/cmds ] || { echo "FAIL: no commands listed"; fail=1; }
while read -r c; do
	check "help $c" 0 "$bin" help "$c"
	grep -qi "usage" $T/out || { echo "FAIL: help $c has no usage line"; fail=1; }
	check "$c --help" 0 "$bin" "$c" --help
done <$T/cmds
# a command that is not in --help is not dispatched either
for c in record report diff import export doctor monitor serve occupancy explain; do
	if ! grep -qx "$c" $T/cmds; then
		check "absent command $c is unknown" 2 "$bin" "$c"
	fi
done
exit $fail
