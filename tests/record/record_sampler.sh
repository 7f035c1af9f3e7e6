#!/usr/bin/env bash
# record's sampler and its rate (#21 item 3): the sampler stops the moment
# the program ends (at --sample-hz 0.1 record used to wait for the next
# tick, up to 10 s, ignoring signals meanwhile), SIGTERM is honoured while
# it samples, and --sample-hz takes only finite rates in 0.1..1000.
# The GPU is tests/record/fake_nvml.c (one device), loaded by name.
# usage: record_sampler.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
fake=$(dirname "$bin")/fake-nvml
T=$tmp
ms() { echo $((($(date +%s%N) - $1) / 1000000)); }
[ -f "$fake/libnvidia-ml.so.1" ] || die "no $fake/libnvidia-ml.so.1"

t0=$(date +%s%N)
LD_LIBRARY_PATH=$fake "$bin" record -o "$T/a.db" --sample-hz 0.1 -- true 2>"$T/err"
rc=$? took=$(ms "$t0")
[ $rc = 0 ] || { bad "record at 0.1 Hz: exit $rc"; cat "$T/err"; }
[ "$took" -lt 3000 ] && ok "at 0.1 Hz record ends with the program (${took} ms)" || bad "at 0.1 Hz record took ${took} ms after the program ended"
n=$(sqlite3 "$T/a.db" "select count(*) from samples s join strings n on n.id = s.metric_id where n.value = 'gpu_util' and s.value = 42")
[ "${n:-0}" -ge 1 ] && ok "the sampler ran ($n gpu_util samples)" || bad "no samples from the fake GPU"

LD_LIBRARY_PATH=$fake "$bin" record -o "$T/b.db" --sample-hz 0.1 -- sleep 30 2>/dev/null &
R=$!
sleep 1
t0=$(date +%s%N)
kill -TERM $R
wait $R
rc=$? took=$(ms "$t0")
[ $rc = 143 ] && [ "$took" -lt 4000 ] && ok "SIGTERM while sampling at 0.1 Hz: exit 143 in ${took} ms" || bad "SIGTERM while sampling: exit $rc after ${took} ms"
[ "$(sqlite3 "$T/b.db" 'select count(*) from processes' 2>/dev/null)" -ge 1 ] && ok "SIGTERM: database written" || bad "SIGTERM: no database"
ls "$T" | grep -q spool && bad "spool directory left behind"

# a signal while the GPUs are being opened (a slow nvmlInit): the program
# is not started, nothing is left behind (the spool directory used to stay)
FAKE_NVML_INIT_MS=1500 LD_LIBRARY_PATH=$fake "$bin" record -o "$T/e.db" -- sh -c ": >'$T/started'" 2>"$T/err" &
R=$!
# once record holds SIGINT (bit 2 of SigCgt): before that, a background
# job of a script ignores it
for _ in $(seq 100); do
	c=$(awk '/^SigCgt/ {print $2}' /proc/$R/status 2>/dev/null)
	[ -n "$c" ] && [ $((0x$c & 2)) != 0 ] && break
	sleep 0.01
done
sleep 0.2
kill -INT $R
wait $R
rc=$?
[ $rc = 130 ] && grep -q "interrupted (signal 2) before 'sh' started" "$T/err" && ok "SIGINT while opening the GPUs: exit 130, program not started" || { bad "SIGINT while opening the GPUs: exit $rc"; cat "$T/err"; }
[ -e "$T/started" ] && bad "the program ran after the interrupt"
ls "$T" | grep -q "e.db" && bad "interrupted before the start, yet '$(ls "$T" | grep e.db)' is there"

for hz in nan NaN inf -inf infinity 0 0.05 1000.5 1e9 10hz "" " 10" 0x10; do
	"$bin" record -o "$T/c.db" --sample-hz "$hz" -- true 2>"$T/err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "0.1..1000" "$T/err"; then
		ok "--sample-hz '$hz' refused"
	else
		bad "--sample-hz '$hz': exit $rc"; cat "$T/err"
	fi
done
[ -e "$T/c.db" ] && bad "a refused --sample-hz still recorded"
for hz in 0.1 1000 10 --sample-hz=2.5; do
	case $hz in --*) a=("$hz") ;; *) a=(--sample-hz "$hz") ;; esac
	"$bin" record -o "$T/d.db" --metrics none "${a[@]}" -- true 2>/dev/null && ok "rate $hz accepted" || bad "rate $hz refused"
done
exit $fail
