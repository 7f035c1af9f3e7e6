#!/usr/bin/env bash
# uvm-on-gpu.sh - unified memory under record (issue 36 item 3), in about a
# minute of one device call (repo root, $OUT set; carry .gpu: a gpuscope build
# in .gpu/build, the zoo in .gpu/bin from workloads/build-zoo.sh):
#   bash workloads/uvm-on-gpu.sh
# Records .gpu/bin/managed_faults with and without --prefetch, and
# workloads/real/cupy_managed.py with and without --fixed; prints for each the
# uvm rows by kind and flags, meta uvm_counters, report's primary and whether
# unified_memory fired; and the cost of the uvm kind on a program without
# managed memory (tiny_kernel_storm, default kinds vs the same without uvm,
# 3 processes each); before them, workloads/robust/uvm_probe.cu in its four
# modes (does the platform give the counters without gpuscope?) and the
# library's debug line saying which CUPTI call refused them. Writes $OUT/uvm.tar.gz (the databases' reports, logs,
# the two managed_faults databases). Read-only towards the card.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
G=${GPUSCOPE:-$PWD/.gpu/build/gpuscope}
BIN=${BIN:-$PWD/.gpu/bin}
PY=${PYTHON:-python3}
W=/tmp/uvm
rm -rf "$W"
mkdir -p "$W" "$OUT"
rec() { # NAME CMD...
	local n=$1
	shift
	timeout 120 "$G" record --force --no-progress -o "$W/$n.db" -- "$@" >"$W/$n.out" 2>"$W/$n.err"
	echo "rc=$?" >>"$W/$n.err"
	"$G" report --format json "$W/$n.db" >"$W/$n.json" 2>>"$W/$n.err"
	"$G" report "$W/$n.db" >"$W/$n.txt" 2>>"$W/$n.err"
	"$PY" - "$W/$n.db" "$W/$n.json" "$n" <<'PY'
import json, sqlite3, sys
db, js, name = sys.argv[1:4]
try:
    c = sqlite3.connect(db)
    rows = c.execute("select kind, flags, count(*), sum(value) from uvm group by 1, 2").fetchall()
    meta = c.execute("select value from meta where key = 'uvm_counters'").fetchall()
except Exception as e:
    rows, meta = [], [("error: %s" % e,)]
try:
    r = json.load(open(js))
    prim = (r.get("primary") or {}).get("id") if isinstance(r.get("primary"), dict) else r.get("primary")
    ids = [f.get("id") for f in r.get("findings", [])]
except Exception as e:
    prim, ids = "error: %s" % e, []
print("%-22s uvm_counters=%s rows=%s primary=%s unified_memory=%s findings=%s" % (
    name, meta[0][0] if meta else "-", rows, prim, "unified_memory" in ids, ",".join(map(str, ids))))
PY
}
export PYTHONPATH=$PWD/workloads/real${PYTHONPATH:+:$PYTHONPATH}
{
	# the platform's answer without gpuscope: NVIDIA's sample order and three
	# others (workloads/robust/uvm_probe.cu); exit 0 = records came
	if [ -x "$BIN/uvm_probe" ]; then
		for m in after-init after-context before-init thread; do
			timeout 60 "$BIN/uvm_probe" "$m" >"$W/probe-$m.txt" 2>&1
			echo "probe $m rc=$? $(grep -E '^(main|thread)|^records' "$W/probe-$m.txt" | sed 's/^[^:]*: //' | tr '\n' ';')"
		done
	fi
	# which call refused them under record (the library's debug log)
	GPUSCOPE_DEBUG=1 timeout 120 "$G" record --force --no-progress -o "$W/mf_debug.db" -- \
		"$BIN/managed_faults" >/dev/null 2>"$W/mf_debug.err"
	echo "record debug: $(grep -i 'unified-memory' "$W/mf_debug.err" | head -3 | tr '\n' ';')"
	rm -f "$W"/mf_debug.db*
	rec managed_faults "$BIN/managed_faults"
	rec managed_faults_pf "$BIN/managed_faults" --prefetch
	rec cupy_managed "$PY" workloads/real/cupy_managed.py --steps 10 --warmup 2
	rec cupy_managed_fixed "$PY" workloads/real/cupy_managed.py --fixed --steps 10 --warmup 2
	# the uvm kind's cost with no managed memory: process wall seconds
	for i in 1 2 3; do
		for v in default nouvm; do
			k=()
			[ $v = nouvm ] && k=(env GPUSCOPE_KINDS=device,context,kernel,memcpy,memset,runtime,driver,memory,marker)
			t0=$(date +%s.%N)
			"${k[@]}" "$G" record --force --no-progress -o "$W/storm.db" -- "$BIN/tiny_kernel_storm" >/dev/null 2>&1
			echo "storm $v $(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.2f", a - b }')"
		done
	done
} | tee "$W/table.txt"
rm -f "$W"/storm.db* "$W"/cupy_managed*.db*
tar czf "$OUT/uvm.tar.gz" -C "$W" . 2>/dev/null
