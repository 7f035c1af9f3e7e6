#!/usr/bin/env bash
# gpuscope monitor from the command line: every format from a replayed log
# (MIG instances included), a cut or corrupt log read up to what is
# readable, --log never appending to a file that is not a monitor log, usage
# errors, no GPU here, and the ncurses view in tmux (draws, survives
# resizes, q quits, shows MIG instances).
# usage: monitor_cli.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
log=$src/tests/fixtures/monitor/synthetic-2gpu.jsonl
t=$tmp
cleanup='tmux kill-session -t "gsmon$$" 2>/dev/null'
has() { grep -q -- "$2" "$t/$1" || bad "$1 lacks '$2'"; }
# jsonl_fixed_point DESC LOG: LOG's jsonl, read back, prints itself (out: the jsonl)
jsonl_fixed_point() {
	exits 0 "$1 round-trips" timeout 20 "$bin" monitor --replay "$2" --format jsonl
	cp "$t/out" "$t/again.jsonl"
	exits 0 "$1 of jsonl" timeout 20 "$bin" monitor --replay "$t/again.jsonl" --format jsonl
	cmp -s "$t/out" "$t/again.jsonl" || bad "$1 is not a fixed point"
}

exits 0 "replay as a table" timeout 20 "$bin" monitor --replay "$log" --format table
has out "note: GPU-Util 100% but SM activity 2.5%: a small kernel keeps the GPU 'busy'"
has out "note: DRAM bandwidth at 88% of its peak: memory-bound"
has out "note: 1 XID error(s) since start, the last XID 79: gpuscope explain 79"
has out "process 4242 small_grid: memory 1020 MiB, sm 100%"
[ "$(awk '$1 ~ /^[0-9][0-9]:/ && $2 == 0' "$t/out" | wc -l)" = 40 ] || bad "40 rounds of gpu 0"
exits 0 "--gpu 1 --count 3" timeout 20 "$bin" monitor --replay "$log" --format=table --gpu 1 --count 3
[ "$(awk '$1 ~ /^[0-9][0-9]:/ && $2 == 1' "$t/out" | wc -l)" = 3 ] &&
	[ "$(awk '$1 ~ /^[0-9][0-9]:/ && $2 == 0' "$t/out" | wc -l)" = 0 ] ||
	bad "--gpu 1 --count 3"
exits 0 "csv" timeout 20 "$bin" monitor --replay "$log" --format csv
[ "$(wc -l <"$t/out")" = 81 ] || bad "csv rows"
has out '^ts_ns,gpu,gpu_util,mem_util,sm_clock_mhz'
jsonl_fixed_point jsonl "$log"

# MIG instances from a log (synthetic-mig.jsonl: GPU 0 with two instances)
mig=$src/tests/fixtures/monitor/synthetic-mig.jsonl
exits 0 "MIG log as a table" timeout 20 "$bin" monitor --replay "$mig" --format table
has out "^  MIG 3g.71gb GI 1 MIG-5y0t4e7c-0001-0000-0000-000000000000: memory 1.0/71.0 GiB, SM 96.5%, occupancy 45.0%, DRAM 88.2%"
has out "^  MIG 1g.18gb GI 5 MIG-5y0t4e7c-0005-0000-0000-000000000000: memory 0.0/18.0 GiB, SM 0.0%"
[ "$(grep -c '^  MIG ' "$t/out")" = 80 ] || bad "2 MIG lines in each of 40 rounds"
exits 0 "MIG log as csv" timeout 20 "$bin" monitor --replay "$mig" --format csv
[ "$(wc -l <"$t/out")" = 161 ] || bad "csv rows with MIG"
has out ',clock_event_reasons_decoded,hints,profile,gi,ci,mig_uuid$'
has out ',"1g.18gb",5,0,"MIG-5y0t4e7c-0005-0000-0000-000000000000"$'
[ "$(python3 -c 'import csv,sys; print(len({len(r) for r in csv.reader(open(sys.argv[1]))}))' "$t/out")" = 1 ] ||
	bad "csv rows of unequal width"
jsonl_fixed_point "MIG jsonl" "$mig"
[ "$(grep -c '"mig":\[{"gi":1,"ci":0,"profile":"3g.71gb"' "$t/out")" = 40 ] || bad "MIG in jsonl"

# the H200 recordings (tests/fixtures/monitor/README.md): the seed's contrast in the
# hints, and the log whose writer was SIGKILLed mid-run reads back whole
h200=$src/tests/fixtures/monitor/h200-zoo.jsonl
exits 0 "H200 log as a table" timeout 20 "$bin" monitor --replay "$h200" --format table
has out "note: GPU-Util 100% but SM activity 2.2%: a small kernel keeps the GPU 'busy'"
has out "gpu 0: NVIDIA H200, 00000000:00:06.0, GPU-1bdd772b-3995-67fb-90f1-f2bac40700af, driver 580.159.04 (CUDA 13.0)"
[ "$(awk '$1 ~ /^[0-9][0-9]:/' "$t/out" | wc -l)" = 92 ] || bad "92 H200 rounds"
# the second H200 recording (0.2 s rounds, bandwidth_stream --seconds 3): the
# DRAM roof the first one missed, as the hint a reader sees, in most rounds
# of the bandwidth phase, beside the small-grid half of the contrast
exits 0 "H200 log with the DRAM roof" timeout 20 "$bin" monitor --replay "$src/tests/fixtures/monitor/h200-zoo-dram.jsonl" --format table
[ "$(grep -cE 'note: DRAM bandwidth at (8[0-9]|9[0-9])% of its peak' "$t/out")" -ge 60 ] ||
	bad "the DRAM roof is not in the hints"
[ "$(grep -c "but SM activity" "$t/out")" -ge 20 ] || bad "no small-grid contrast"
exits 0 "SIGKILLed H200 log" timeout 20 "$bin" monitor --replay "$src/tests/fixtures/monitor/h200-sigkilled.jsonl" --format csv
[ ! -s "$t/err" ] && [ "$(wc -l <"$t/out")" = 99 ] || bad "SIGKILLed log: $(cat "$t/err")"

# a log cut by a crash, and one with garbage in it: the readable part is used
head -c -200 "$log" >"$t/cut.jsonl"
exits 0 "cut log" timeout 20 "$bin" monitor --replay "$t/cut.jsonl" --format table
has err "1 of 83 lines unreadable and skipped (first: line 83; the last line is cut)"
{ head -n 10 "$log"; printf '\x00\x00\xff garbage\n'; tail -n +11 "$log"; } >"$t/bad.jsonl"
exits 0 "garbage line" timeout 20 "$bin" monitor --replay "$t/bad.jsonl" --format csv
has err "1 of 84 lines unreadable and skipped (first: line 11)"
head -c 100000 /dev/urandom >"$t/random"
exits 1 "random bytes" timeout 20 "$bin" monitor --replay "$t/random"
has err "is not a gpuscope monitor log"
exits 1 "a directory" timeout 20 "$bin" monitor --replay "$t"
mkfifo "$t/fifo"
exits 1 "a FIFO (no hang)" timeout 20 "$bin" monitor --replay "$t/fifo"
exits 1 "/dev/zero" timeout 20 "$bin" monitor --replay /dev/zero
exits 1 "missing file" timeout 20 "$bin" monitor --replay "$t/nope"

# --log appends only to a monitor log
echo "precious" >"$t/notes.txt"
exits 1 "--log onto a text file" timeout 20 "$bin" monitor --log "$t/notes.txt" --count 1 --format table
[ "$(cat "$t/notes.txt")" = precious ] || bad "text file changed"
exits 1 "--log onto a FIFO (no hang)" timeout 20 "$bin" monitor --log "$t/fifo" --count 1 --format table
exits 2 "--log with --replay" timeout 20 "$bin" monitor --log "$t/x" --replay "$log"
exits 2 "bad interval" timeout 20 "$bin" monitor --interval 0 --count 1
exits 2 "bad interval nan" timeout 20 "$bin" monitor --interval nan --count 1
exits 2 "bad format" timeout 20 "$bin" monitor --format html
exits 1 "--gpu past the last" timeout 20 "$bin" monitor --replay "$log" --gpu 5 --format table
has err "no gpu 5 (2 gpu(s))"
if ! [ -e /proc/driver/nvidia/version ]; then
	exits 1 "live without a driver: one line" timeout 20 "$bin" monitor --count 1 --format table
	[ "$(wc -l <"$t/err")" = 1 ] && has err "libnvidia-ml.so.1"
fi

# the ncurses view in a real terminal
if command -v tmux >/dev/null; then
	s="gsmon$$"
	tmux new-session -d -s "$s" -x 160 -y 50 \
		"TERM=xterm LANG=C.UTF-8 $bin monitor --replay $mig --replay-speed 50; echo rc=\$? >$t/tui.rc; sleep 30"
	sleep 2
	tmux capture-pane -p -t "$s" >"$t/screen"
	has screen "gpuscope monitor (replay)"
	has screen "SM activity"
	has screen "! DRAM bandwidth at 88% of its peak" # the last round: the bandwidth phase
	has screen "PID      GPU     MEMORY"
	has screen "   MIG 3g.71gb GI 1 MIG-5y0t4e7c-0001-0000-0000-000000000000: memory 1.0/71.0 GiB"
	for size in "40 10" "200 60" "10 3" "120 40"; do
		tmux resize-window -t "$s" -x "${size% *}" -y "${size#* }"
		sleep 0.3
	done
	tmux send-keys -t "$s" q
	sleep 1
	[ "$(cat "$t/tui.rc" 2>/dev/null)" = "rc=0" ] || bad "tui did not quit with q cleanly"
	tmux kill-session -t "$s" 2>/dev/null
	ok "ncurses view"
else
	bad "tmux missing (scripts/install-deps.sh installs it)"
fi
[ $fail = 0 ] && echo "monitor_cli: all passed"
exit $fail
