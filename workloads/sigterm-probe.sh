#!/usr/bin/env bash
# sigterm-probe.sh - on the GPU machine: a signal to `gpuscope record`, or
# straight to the program (`direct`: as from scancel, docker stop, a Ctrl-C),
# while the program launches kernels. The database must hold every kernel
# launched before the signal: at least the program's last `launched N` line
# at the moment the signal was sent (workloads/robust/: steady_launches,
# steady.py). A background job of a script ignores SIGINT, so the INT cases
# start record with SIGINT's default action back (sigdfl).
#   bash workloads/sigterm-probe.sh     (repo root; build/gpuscope, .gpu/bin)
# Env: CASES="prog:SIG[:direct] ...", TRIALS=2, PY=python3, OUT (logs under $OUT/sigterm), WAIT_S=2 (work
#      before the signal), DEBUG=1 (GPUSCOPE_DEBUG in the logs)
set -u
G=${GPUSCOPE:-build/gpuscope}
BIN=${BIN:-.gpu/bin}
PY=${PY:-python3}
TRIALS=${TRIALS:-2}
WAIT_S=${WAIT_S:-2}
D=${OUT:-/tmp}/sigterm
mkdir -p "$D"
kernels() {
	local k
	k=$("$PY" workloads/count_rows.py "$1" 2>/dev/null | sed -n 's/^kernels=\([0-9]*\).*/\1/p')
	echo "${k:-NA}"
}
printf '%-22s %-4s %-5s %-5s %9s %9s %9s %s\n' program sig trial exit at_signal last kernels verdict
# SIGINT back to its default action for the program (see above)
sigdfl() { exec "$PY" -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }
for case in ${CASES:-c:TERM c:TERM:direct python:TERM python:TERM:direct python-handler:TERM c:INT:direct c:INT}; do
	IFS=: read -r prog sig how <<<"$case"
	case $prog in
	c) cmd=("$BIN/steady_launches") ;;
	python) cmd=("$PY" workloads/robust/steady.py) ;;
	python-handler) cmd=("$PY" workloads/robust/steady.py handler) ;;
	esac
	for t in $(seq "$TRIALS"); do
		tag=$prog.$sig${how:+.$how}.$t
		rm -f "$D/$tag.db"
		GPUSCOPE_DEBUG=${DEBUG:-1} GPUSCOPE_CRASH_TRACE=1 \
			sigdfl "$G" record -o "$D/$tag.db" -- "${cmd[@]}" >"$D/$tag.out" 2>"$D/$tag.log" &
		pid=$!
		for _ in $(seq 120); do
			grep -q '^launched' "$D/$tag.out" 2>/dev/null && break
			sleep 0.25
		done
		sleep "$WAIT_S"
		at=$(tail -1 "$D/$tag.out" | awk '{ print $2 }')
		target=$pid
		[ "$how" = direct ] && target=$(pgrep -P "$pid" | head -1)
		kill -"$sig" "$target"
		for _ in $(seq 80); do kill -0 $pid 2>/dev/null || break; sleep 0.25; done
		kill -0 $pid 2>/dev/null && { echo "  $tag: still running 20 s after SIG$sig: killed" >&2; pkill -9 -P $pid; }
		wait $pid
		rc=$?
		last=$(tail -1 "$D/$tag.out" | awk '{ print $2 }')
		k=$(kernels "$D/$tag.db")
		v=LOST
		[ "$k" != NA ] && [ -n "$at" ] && [ "$k" -ge "$at" ] && v=complete
		printf '%-22s %-4s %-5s %-5s %9s %9s %9s %s\n' "$prog${how:+ $how}" "$sig" "$t" "$rc" "$at" "$last" "$k" "$v"
		grep -E 'gpuscope-inject: (signal [0-9]*:|crash)|dropped' "$D/$tag.log" | head -4 | sed 's/^/    /'
		grep -A12 'crash, backtrace' "$D/$tag.log" | head -14 | sed 's/^/    /'
		rm -f "$D/$tag.db"
	done
done
