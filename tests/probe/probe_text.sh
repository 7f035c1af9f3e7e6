#!/usr/bin/env bash
# Control characters from input data never reach the terminal (probe W2):
# kernel and range names of a trace in report, diff and export -o -; the GPU
# name and process name of a monitor log in monitor's table and CSV.
. "$(dirname "$0")/common.bash"
python3 "$gen/hostile.py" esckineto "$tmp/esc.json"
python3 "$gen/hostile.py" esclog "$tmp/esc.jsonl"
noctl() { # noctl FILE WORD: WORD is there, and no ESC, BEL or CR
	grep -aq "$2" "$1" && ! grep -aq $'[\033\007\r]' "$1"
}
run report "$tmp/esc.json"
check W2 "report text: kernel names without ESC/BEL/CR" noctl "$tmp/out" RED
run report -f json "$tmp/esc.json"
check W2 "report json: valid, names escaped" python3 -c "import json,sys; json.load(open('$tmp/out'))"
run diff "$tmp/esc.json" "$tmp/esc.json"
check W2 "diff text: no control characters" noctl "$tmp/out" RED
run monitor --replay "$tmp/esc.jsonl" -f table
check W2 "monitor --replay table: GPU name without ESC/BEL" noctl "$tmp/out" H200
run monitor --replay "$tmp/esc.jsonl" -f csv
check W2 "monitor --replay csv: no control characters" noctl "$tmp/out" ts_ns
# a C1 control (U+009B, CSI) split across writes is caught too
printf 'Xid 79 \xc2\x9b31m' >"$tmp/c1.txt"
run explain - <"$tmp/c1.txt"
check W2 "explain echoes no C1 control" sh -c "! grep -aq \$'\\xc2\\x9b' '$tmp/out'"
finish
