#!/usr/bin/env bash
# CLI basics: --help, --version, help CMD, unknown commands, exit codes.
# usage: basics.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
T=$tmp
exits 0 "--version" "$bin" --version
grep -q '^gpuscope [0-9]' $T/out || bad "version text"
exits 0 "--help" "$bin" --help
grep -q '^usage: gpuscope' $T/out || bad "help text"
exits 2 "no arguments is a usage error" "$bin"
exits 2 "unknown command" "$bin" frobnicate
grep -q "unknown command 'frobnicate'" $T/err || bad "unknown message"
exits 2 "help of unknown command" "$bin" help frobnicate
# every command listed in --help has help text, through both spellings
"$bin" --help | awk '/^commands:/{on=1;next} /^$/{on=0} on && /^  [a-z]/ {print $1}' >$T/cmds
[ -s $T/cmds ] || bad "no commands listed"
while read -r c; do
	exits 0 "help $c" "$bin" help "$c"
	grep -qi "usage" $T/out || bad "help $c has no usage line"
	exits 0 "$c --help" "$bin" "$c" --help
done <$T/cmds
# a command that is not in --help is not dispatched either
for c in record report diff import export doctor monitor serve occupancy explain; do
	if ! grep -qx "$c" $T/cmds; then
		exits 2 "absent command $c is unknown" "$bin" "$c"
	fi
done
exit $fail
