#!/usr/bin/env bash
# workloads/pm-on-gpu.sh's plumbing on the CPU, so that the single H200 run
# does not fail on a typo: the zoo programs are stood in for by scripts that
# print their WORKLOAD line (no CUDA here: no kernel, no PM window). Checks:
# every run records and gets its row, PyTorch is skipped or run, the two
# files come back under $OUT/pm, a short budget skips the later runs and
# says so; and the summary, on the zoo's bandwidth_stream recording with PM
# windows added (88% DRAM from 50 ms before its first kernel to 50 ms after
# its last), reads the kernels against the program's count, each metric's
# mean and mean while busy, and where the windows lie.
# usage: pm_on_gpu.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
command -v python3 >/dev/null || {
	echo "skip: no python3"
	exit 0
}

mkdir -p "$tmp/bin"
for p in bandwidth_stream fma_bound small_grid; do
	printf '#!/bin/sh\necho "WORKLOAD name=%s kernels=7 memcpy=1 memset=0 sync=1"\n' "$p" \
		>"$tmp/bin/$p"
	chmod +x "$tmp/bin/$p"
done

OUT=$tmp/out GPUSCOPE=$bin BIN=$tmp/bin bash "$src/workloads/pm-on-gpu.sh" >"$tmp/full.txt" 2>&1 ||
	bad "the script failed: $(tail -3 "$tmp/full.txt")"
[ -s "$tmp/out/pm/table.txt" ] || bad "no table.txt"
[ -s "$tmp/out/pm/runs.tar.gz" ] || bad "no runs.tar.gz"
[ "$(find "$tmp/out/pm" -type f | wc -l)" = 2 ] || bad "not two files under \$OUT/pm"
for r in bw fma small bw_nogpm bw_100us; do
	grep -Eq "^$r +0 +[0-9.]+ +0/7 +0 " "$tmp/out/pm/table.txt" || bad "no row for $r"
done
grep -Eq '^torch ' "$tmp/out/pm/table.txt" || bad "no row for torch"
tar -tzf "$tmp/out/pm/runs.tar.gz" | grep -q 'bw_nogpm.db' || bad "bw_nogpm.db not kept"
tail -1 "$tmp/full.txt" | grep -q . || bad "nothing printed last"

OUT=$tmp/out2 GPUSCOPE=$bin BIN=$tmp/bin BUDGET_S=12 bash "$src/workloads/pm-on-gpu.sh" \
	>"$tmp/short.txt" 2>&1
grep -q 'skipped (budget)' "$tmp/out2/pm/table.txt" || bad "a short budget skipped nothing"

# the summary on a recording with PM windows
w=$tmp/summ
mkdir -p "$w"
cp "$src/tests/fixtures/zoo/bandwidth_stream.db" "$w/bw.db"
python3 - "$w/bw.db" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
k0, k1 = c.execute("select min(start_ns), max(start_ns + dur_ns) from kernels").fetchone()
sid = c.execute("select max(id) from strings").fetchone()[0]
names = ["pm_sm_active", "pm_dram_throughput", "pm_gr_active", "PM sampling: a status"]
for i, n in enumerate(names):
    c.execute("insert into strings(id, value) values(?, ?)", (sid + 1 + i, n))
t = k0 - 50000000
while t < k1 + 50000000:
    for i, v in enumerate((95.0, 88.0, 99.0)):
        c.execute("insert into samples(ts_ns, device, metric_id, value) values(?, 0, ?, ?)",
                  (t, sid + 1 + i, v))
    t += 1000000
c.commit()
EOF
echo "WORKLOAD name=bandwidth_stream kernels=301 memcpy=1 memset=0 sync=1" >"$w/bw.out"
echo "gpuscope-inject: pm sampling +5 ms: device 0 (GH100): started: 5 of 5 metrics" >"$w/bw.log"
"$bin" report --format json "$w/bw.db" >"$w/bw.json" || bad "report --format json failed"
# shellcheck disable=SC2016 # the script's own text, not an expansion
sed -n '/^cat >"$W\/summ.py"/,/^PYEOF$/p' "$src/workloads/pm-on-gpu.sh" | sed '1d;$d' >"$w/summ.py"
: >"$w/notes.txt"
row=$(python3 "$w/summ.py" bw 0 1.5 "$w" 2>&1)
echo "$row" | grep -Eq '^bw +0 +1.5 +301/301 +[0-9]+ +9[0-9]% +95.0/95.0 +- +88.0/88.0 +- +99.0/99.0 \| ' ||
	bad "summary row: $row"
grep -q 'PM windows -50.0\.\.' "$w/notes.txt" || bad "where the windows lie: $(cat "$w/notes.txt")"
grep -q 'status: PM sampling: a status' "$w/notes.txt" || bad "the status line"
grep -q 'log: pm sampling +5 ms: device 0 (GH100): started' "$w/notes.txt" || bad "the log line"

[ $fail = 0 ] && ok "pm-on-gpu.sh records every run, skips on budget, summarises a PM recording"
exit $fail
