#!/usr/bin/env bash
# monitor --replay and report on the probe's odd but valid inputs (ids W10
# W14 M6): byte counters exact in CSV, impossible negative values unknown,
# a byte order mark before a monitor log, whitespace before a trace.
. "$(dirname "$0")/common.bash"
zoo=$fx/monitor/h200-zoo.jsonl

# W10: mem_total_bytes 150754820096 reads back exactly
run monitor --replay "$zoo" -f csv
col=$(head -1 "$tmp/out" | tr ',' '\n' | grep -nx mem_total_bytes | cut -d: -f1)
check "W10: monitor CSV writes byte counters exactly" test "$(sed -n 2p "$tmp/out" | cut -d, -f"$col")" = 150754820096

# W14: every value -1 is unknown ('?'), never shown
python3 - "$zoo" "$tmp/neg.jsonl" <<'PY'
import json, sys
out = []
for l in open(sys.argv[1]).read().splitlines():
    d = json.loads(l)
    if d.get("t") == "s":
        d["v"] = {k: -1 for k in d["v"]}
    out.append(json.dumps(d))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
run monitor --replay "$tmp/neg.jsonl" -f table
check "W14: monitor --replay shows no negative utilization, clock or PCIe value" sh -c "[ $rc = 0 ] && ! sed -n '3,\$p' '$tmp/out' | grep -qE '(^| |/|g|x)-1'"
run monitor --replay "$tmp/neg.jsonl" -f csv
check "W14: monitor CSV leaves negative values empty" sh -c "! grep -q ',-1' '$tmp/out'"

# M6: a UTF-8 byte order mark before a monitor log; 100 spaces before a trace
{
	printf '\xef\xbb\xbf'
	cat "$zoo"
} >"$tmp/bom.jsonl"
run monitor --replay "$tmp/bom.jsonl" -f table
check "M6: monitor --replay reads a log that starts with a BOM" test $rc = 0
{
	printf '%.0s ' $(seq 100)
	cat "$k"
} >"$tmp/ws.json"
run report "$tmp/ws.json"
check "M6: report reads JSON after 100 bytes of whitespace" test $rc = 0
finish
