#!/usr/bin/env bash
# CLI basics: --help, --version, help CMD, unknown commands, exit codes.
# usage: basics.sh BUILD/gpuscope SOURCE_DIR
set -u
bin=$1
fail=0
check() { # check DESC EXPECTED_RC CMD...
	local desc=$1 want=$2
	shift 2
	"$@" >/tmp/gs-basics.out 2>/tmp/gs-basics.err
	local rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: $desc: exit $rc, want $want"; cat /tmp/gs-basics.err; fail=1
	else
		echo "ok: $desc"
	fi
}
check "--version" 0 "$bin" --version
grep -q '^gpuscope [0-9]' /tmp/gs-basics.out || { echo "FAIL: version text"; fail=1; }
check "--help" 0 "$bin" --help
grep -q '^usage: gpuscope' /tmp/gs-basics.out || { echo "FAIL: help text"; fail=1; }
check "no arguments is a usage error" 2 "$bin"
check "unknown command" 2 "$bin" frobnicate
grep -q "unknown command 'frobnicate'" /tmp/gs-basics.err || { echo "FAIL: unknown message"; fail=1; }
check "help of unknown command" 2 "$bin" help frobnicate
# every command listed in --help has help text, through both spellings
"$bin" --help | awk '/^commands:/{on=1;next} /^$/{on=0} on && /^  [a-z]/ {print $1}' >/tmp/gs-cmds
[ -s /tmp/gs-cmds ] || { echo "FAIL: no commands listed"; fail=1; }
while read -r c; do
	check "help $c" 0 "$bin" help "$c"
	grep -qi "usage" /tmp/gs-basics.out || { echo "FAIL: help $c has no usage line"; fail=1; }
	check "$c --help" 0 "$bin" "$c" --help
done </tmp/gs-cmds
# a command that is not in --help is not dispatched either
for c in record report diff import export doctor monitor serve occupancy explain; do
	if ! grep -qx "$c" /tmp/gs-cmds; then
		check "absent command $c is unknown" 2 "$bin" "$c"
	fi
done
rm -f /tmp/gs-basics.out /tmp/gs-basics.err /tmp/gs-cmds
exit $fail
