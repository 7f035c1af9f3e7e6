#!/usr/bin/env bash
# Control characters from input data never reach the terminal (probe W2):
# kernel and range names of a trace in report, diff and export -o -; the GPU
# name and process name of a monitor log in monitor's table and CSV.
. "$(dirname "$0")/common.bash"
python3 "$gen/hostile.py" esckineto "$tmp/esc.json"
python3 "$gen/hostile.py" esclog "$tmp/esc.jsonl"
run report "$tmp/esc.json"
check "W2: report text: kernel names without ESC/BEL/CR" noctl "$tmp/out" RED
run report -f json "$tmp/esc.json"
check "W2: report json: valid, names escaped" python3 -c "import json,sys; json.load(open('$tmp/out'))"
run diff "$tmp/esc.json" "$tmp/esc.json"
check "W2: diff text: no control characters" noctl "$tmp/out" RED
run monitor --replay "$tmp/esc.jsonl" -f table
check "W2: monitor --replay table: GPU name without ESC/BEL" noctl "$tmp/out" H200
run monitor --replay "$tmp/esc.jsonl" -f csv
check "W2: monitor --replay csv: no control characters" noctl "$tmp/out" ts_ns
# a C1 control (U+009B, CSI, two bytes in UTF-8) in a kernel name
python3 - "$k" "$tmp/c1.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for e in t["traceEvents"]:
    if e.get("cat") == "kernel":
        e["name"] = "gemm\u009b31mCSI"
json.dump(t, open(sys.argv[2], "w"))
PY
run report "$tmp/c1.json"
check "W2: report text: a C1 control in a name is not printed" \
	bash -c "grep -aq CSI '$tmp/out' && ! grep -aq \$'\\xc2\\x9b' '$tmp/out'"
finish
