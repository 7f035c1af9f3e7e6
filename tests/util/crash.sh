#!/usr/bin/env bash
# gpuscope's own crash report (src/util/crash.h): a SIGSEGV or SIGABRT in
# gpuscope prints the signal, the thread and one line per frame (module +
# offset, what addr2line takes), and the process still ends by that signal
# (exit 128 + signal), so scripts see what they saw before.
# GPUSCOPE_CRASH_REPORT=0 turns it off.
# usage: crash.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
# a long-running gpuscope: record waiting for its program
run_and_signal() { # SIG ENV... -> rc in $rc, stderr in $tmp/err
	local sig=$1
	shift
	env "$@" "$bin" record --host-sampling off --metrics none -o "$tmp/r.db" -- sleep 30 \
		2>"$tmp/err" &
	local pid=$!
	# wait until record has started its program (the child exists)
	for _ in $(seq 100); do
		pgrep -P "$pid" >/dev/null 2>&1 && break
		sleep 0.05
	done
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	pkill -P "$pid" 2>/dev/null
	pkill -f "sleep 30" 2>/dev/null
	rm -rf "$tmp"/r.db.spool-*
}
for sig in SEGV ABRT; do
	run_and_signal $sig GPUSCOPE_CRASH_REPORT=1
	want=$((128 + $(kill -l $sig)))
	[ "$rc" = "$want" ] || bad "SIG$sig: exit $rc, want $want"
	grep -q "^gpuscope: internal error: SIG$sig" "$tmp/err" ||
		{ bad "SIG$sig: no report line"; cat "$tmp/err"; }
	grep -q "thread [0-9]* of process [0-9]*; this is a bug in gpuscope" "$tmp/err" ||
		bad "SIG$sig: the report does not name thread and process"
	# frames: at least one in gpuscope itself, as module+offset
	grep -qE "^gpuscope:   #[0-9]+ gpuscope\+0x[0-9a-f]+" "$tmp/err" ||
		{ bad "SIG$sig: no frame in the gpuscope binary"; cat "$tmp/err"; }
done
# (a sanitizer build has its own SIGSEGV handler: off for this run)
run_and_signal SEGV GPUSCOPE_CRASH_REPORT=0 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
[ "$rc" = 139 ] || bad "CRASH_REPORT=0: exit $rc, want 139"
if grep -q "internal error" "$tmp/err"; then
	bad "CRASH_REPORT=0 still reports"
fi
[ $fail = 0 ] && ok "crash report on SIGSEGV and SIGABRT, exit status kept, off with the knob"
exit $fail
