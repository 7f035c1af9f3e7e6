#!/usr/bin/env bash
# Readers against wrong types and damage (probe ids W9 W3 H7): a kineto
# field of the wrong type or out of range for what it fills is an error,
# not a silent 0 or a wrapped number; a damaged database (text in a number
# column, a renamed required column, negative durations) is an error, not a
# confident verdict; --max-events bounds what a small .json.gz can inflate to.
. "$(dirname "$0")/common.bash"

# W9: every wrong-typed field the probe found, each an error that names it
python3 "$gen/hostile.py" wrongtypes "$tmp/wt"
for c in "regs_neg:registers per thread" "dur_str:dur is not a number" "dur_neg:negative dur" \
	"grid_5:grid or block" "grid_frac:grid or block" "smem_neg:shared memory" \
	"base_str:baseTimeNanoseconds" "two_traceevents:two traceEvents"; do
	f=${c%%:*}
	[ -e "$tmp/wt/wt_$f.json" ] && f=wt_$f
	run report "$tmp/wt/$f.json"
	check "W9: $f: exit 1 naming '${c#*:}' (exit $rc)" sh -c "[ $rc = 1 ] && grep -q '${c#*:}' '$tmp/err'"
	gzip -c "$tmp/wt/$f.json" >"$tmp/wt/$f.json.gz"
	run report "$tmp/wt/$f.json.gz"
	check "W9: $f.json.gz (the sequential parser): exit 1 too (exit $rc)" test $rc = 1
done
# the rest of the family (strings where kineto writes names, a fractional
# device) stays readable: no crash, a clear outcome
for f in wt_regs_str wt_stream_str wt_device_float; do
	run report "$tmp/wt/$f.json"
	check "W9: $f: exit 0 or 1, never a crash (exit $rc)" test $rc -le 1
done

# W3: damaged databases
B=$fx/real/cublas_gemm.db
cp "$B" "$tmp/t1.db" && sqlite3 "$tmp/t1.db" "UPDATE kernels SET start_ns='hello', dur_ns='x' WHERE id%2=0"
run report "$tmp/t1.db"
check "W3: text in an integer column: damaged (exit $rc)" sh -c "[ $rc = 1 ] && grep -q 'damaged' '$tmp/err'"
cp "$B" "$tmp/t2.db" && sqlite3 "$tmp/t2.db" "ALTER TABLE kernels RENAME COLUMN start_ns TO start_x"
run report "$tmp/t2.db"
check "W3: a renamed required column: damaged (exit $rc)" sh -c "[ $rc = 1 ] && grep -q 'no column start_ns' '$tmp/err'"
cp "$B" "$tmp/t3.db" && sqlite3 "$tmp/t3.db" "UPDATE kernels SET dur_ns=-dur_ns"
run report "$tmp/t3.db"
check "W3: negative durations: damaged (exit $rc)" sh -c "[ $rc = 1 ] && grep -q 'negative duration' '$tmp/err'"
run diff --fail-on-regression 1 "$B" "$tmp/t3.db"
check "W3: diff against a damaged database fails instead of passing the gate (exit $rc)" test $rc = 1
cp "$B" "$tmp/t4.db" && sqlite3 "$tmp/t4.db" "ALTER TABLE kernels ADD COLUMN extra INTEGER"
run report "$tmp/t4.db"
check "W3: an extra column is still fine (exit $rc)" test $rc = 0

# H7: a 200 KB .json.gz of 480k kernels, refused past --max-events before it is all read
python3 "$gen/hostile.py" gzbomb "$tmp/bomb.json.gz" 60
/usr/bin/time -f "%M" -o "$tmp/rss" "$bin" import --no-progress --max-events 100000 -o "$tmp/bomb.db" "$tmp/bomb.json.gz" 2>"$tmp/err"
rc=$?
check "H7: import --max-events 100000 of 480k events: exit 1, named, nothing written ($(tail -1 "$tmp/rss" 2>/dev/null) KB)" \
	sh -c "[ $rc = 1 ] && grep -q 'more than 100000 events' '$tmp/err' && [ ! -e '$tmp/bomb.db' ]"
run import --no-progress --max-events 1000000 -o "$tmp/bomb.db" "$tmp/bomb.json.gz"
check "H7: under the cap it is read whole (exit $rc)" test $rc = 0
finish
