#!/usr/bin/env bash
# counters/torch-counters-on-gpu.sh - issue 18's rest on the H200, in one call
# (about BUDGET_S seconds, default 60):
#   BUDGET_S=60 bash workloads/counters/torch-counters-on-gpu.sh   (repo root, $OUT set)
# Needs .gpu/build/gpuscope (+ libgpuscope-inject.so, libgpuscope-preload.so)
# built from main, and .gpu/bin/bandwidth_stream + .gpu/bin/signatures
# (workloads/build-zoo.sh); Python 3.12 with torch (python3 on the PATH).
#
# 1. torch.profiler's counter ranges (#18 item 4): prints torch's version and
#    whether its libraries hold kineto's CUPTI range profiler at all (the
#    strings CuptiRangeProfiler / "Init CUPTI range profiler"), then runs
#    workloads/counters/torch_counters.py once per configuration (activities
#    cuda / cpu,cuda / cpu, profiler_measure_per_kernel 1 / 0, Nsight names or
#    kineto's aliases), each in its own process, and counts the
#    cuda_profiler_range events; each trace goes through `gpuscope import`
#    (counters rows, kernels with counters). The smallest trace with ranges is
#    $OUT/torch-counters-fixture.json.gz (the fixture candidate).
# 2. record --metrics pm (#18 item 2), when the carried gpuscope has it:
#    bandwidth_stream and signatures (its tensor_mma kernel) each untraced,
#    under plain record and under record --metrics pm; the pm_* and gpm_*
#    samples side by side (count, mean, max), the status lines, exit codes
#    (a program must exit as it does untraced).
# Two files under $OUT: torch-counters.tar.gz (logs, traces, dbs,
# summary.txt) and the fixture candidate; the table is printed last (part 2
# keeps PM_RESERVE_S=25 s of the budget when the carried gpuscope has it).
# Read-only towards the card: no clock, power, persistence, MIG or reset.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
RES=${RES:-/tmp/gpuscope-tcounters}
G=${GPUSCOPE:-$PWD/.gpu/build/gpuscope}
[ -x "$G" ] || G=$PWD/build/gpuscope
BIN=${BIN:-$PWD/.gpu/bin}
PY=${PYTHON:-python3}
BUDGET=${BUDGET_S:-60}
rm -rf "$RES"
mkdir -p "$OUT" "$RES"
log() { echo "[tcounters +${SECONDS}s] $*" >&2; }
left() { echo $((BUDGET - SECONDS)); }
SUM=$RES/summary.txt
: >"$SUM"

# ---- 1. torch.profiler counter ranges ----
"$PY" - >"$RES/libs.txt" 2>&1 <<'PYEOF'
import glob, os, re, torch
d = os.path.join(os.path.dirname(torch.__file__), "lib")
pats = [b"CuptiRangeProfiler", b"Init CUPTI range profiler", b"cannot be run in combination",
        b"CuptiRBProfilerSession", b"cuptiProfilerInitialize", b"CuptiPMSampling"]
print("torch", torch.__version__, "cuda", torch.version.cuda, "lib", d)
for f in sorted(glob.glob(os.path.join(d, "libtorch*.so*")) + glob.glob(os.path.join(d, "libkineto*"))):
    data = open(f, "rb").read()
    print(os.path.basename(f), " ".join(f"{p.decode()}={data.count(p)}" for p in pats))
for f in glob.glob(os.path.join(os.path.dirname(torch.__file__), "..", "nvidia", "*", "lib", "libnvperf*")):
    print("nvperf", os.path.realpath(f))
PYEOF
log "libs: $(tr '\n' ';' <"$RES/libs.txt" | cut -c1-400)"
CONFIGS=${CONFIGS:-"cuda:1:plain cpu,cuda:1:plain cuda:0:plain cuda:1:kineto cpu:1:plain cpu,cuda:0:plain"}
# part 2's share of the budget, kept when the carried gpuscope has it
HAVE_PM=0
"$G" record --help 2>&1 | grep -Eq -- '--metrics [a-z|]*pm' && HAVE_PM=1
RESERVE=$((HAVE_PM * ${PM_RESERVE_S:-25}))
best="" best_size=0
printf '%-22s %4s %7s %7s %7s %8s %9s %s\n' config rc events kernels ranges launches gs_ctrs range_args >"$RES/torch-table.txt"
for c in $CONFIGS; do
	[ "$(left)" -gt $((12 + RESERVE)) ] || { log "budget: skipping $c and the rest"; echo "skipped $c (budget)" >>"$RES/torch-table.txt"; break; }
	IFS=: read -r acts pk ms <<<"$c"
	n=$(echo "$c" | tr ':,' '__')
	t=$(($(left) - 8 - RESERVE)); [ "$t" -gt 25 ] && t=25
	KINETO_LOG_LEVEL=0 timeout "$t" "$PY" workloads/counters/torch_counters.py \
		"$RES/$n.json.gz" "$acts" "$pk" "$ms" >"$RES/$n.out" 2>&1
	rc=$?
	line=$(grep '^TORCH_COUNTERS' "$RES/$n.out" | tail -1)
	get() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	ranges=$(get ranges)
	ctrs=-
	if [ -s "$RES/$n.json.gz" ]; then
		"$G" import --no-progress -o "$RES/$n.db" "$RES/$n.json.gz" >"$RES/$n.import.log" 2>&1
		ctrs=$("$PY" -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('select count(*) from counters').fetchone()[0], c.execute('select count(distinct correlation) from counters where correlation>0').fetchone()[0], sep='/')" "$RES/$n.db" 2>/dev/null || echo err)
		"$G" report --no-progress "$RES/$n.json.gz" >"$RES/$n.report.txt" 2>&1
		size=$(stat -c %s "$RES/$n.json.gz")
		if [ "${ranges:-0}" -gt 0 ] && { [ -z "$best" ] || [ "$size" -lt "$best_size" ]; }; then
			best=$n best_size=$size
		fi
	fi
	grep -h -i "range profiler\|CuptiRangeProfiler\|combination\|Cupti Profiler\|CUPTI_ERROR\|nvperf\|profiler_range" \
		"$RES/$n.out" | sort | uniq -c | head -6 | sed "s/^/  $n: /" >>"$RES/torch-notes.txt"
	printf '%-22s %4s %7s %7s %7s %8s %9s %s\n' "$c" "$rc" "$(get events)" "$(get kernels)" \
		"${ranges:--}" "$(get launches)" "$ctrs" "$(get range_args | cut -c1-120)" >>"$RES/torch-table.txt"
	log "$c rc=$rc ranges=${ranges:--} counters=$ctrs"
done
[ -n "$best" ] && cp "$RES/$best.json.gz" "$OUT/torch-counters-fixture.json.gz"
{
	echo "== torch.profiler counter ranges ($(grep -m1 '^TORCH_VERSIONS' "$RES"/*.out 2>/dev/null | head -1 | cut -d' ' -f2-))"
	grep -v '^torch ' "$RES/libs.txt" | sed 's/^/  lib /' | cut -c1-200
	cat "$RES/torch-table.txt"
	cat "$RES/torch-notes.txt" 2>/dev/null
	echo "fixture candidate: ${best:-none} (${best_size} bytes)"
} >>"$SUM"

# ---- 2. record --metrics pm ----
if [ "$HAVE_PM" = 1 ]; then
	printf '%-18s %-9s %4s %8s %s\n' program variant rc wall_s "samples: metric n mean max" >"$RES/pm-table.txt"
	for p in bandwidth_stream signatures; do
		[ -x "$BIN/$p" ] || { echo "$p missing" >>"$RES/pm-table.txt"; continue; }
		for v in untraced record pm; do
			[ "$(left)" -gt 8 ] || { echo "$p $v skipped (budget)" >>"$RES/pm-table.txt"; continue; }
			t0=$(date +%s.%N)
			case $v in
			untraced) timeout 60 "$BIN/$p" >"$RES/$p.$v.out" 2>&1 ;;
			record) GPUSCOPE_DEBUG=1 timeout 90 "$G" record --no-progress -o "$RES/$p.$v.db" -- "$BIN/$p" \
				>"$RES/$p.$v.out" 2>"$RES/$p.$v.log" ;;
			pm) GPUSCOPE_DEBUG=1 timeout 90 "$G" record --no-progress --metrics pm -o "$RES/$p.$v.db" -- "$BIN/$p" \
				>"$RES/$p.$v.out" 2>"$RES/$p.$v.log" ;;
			esac
			rc=$?
			w=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}')
			s=-
			if [ -s "$RES/$p.$v.db" ]; then
				s=$("$PY" - "$RES/$p.$v.db" <<'PYEOF' 2>&1 | tr '\n' ';'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
q = ("select s.value, count(*), avg(x.value), max(x.value) from samples x join strings s "
     "on s.id = x.metric_id where s.value like 'pm%' or s.value like 'gpm%' group by s.value")
for name, n, mean, mx in c.execute(q):
    print(f"{name} {n} {mean:.1f} {mx:.1f}")
pm = c.execute("select min(x.ts_ns), max(x.ts_ns) from samples x join strings s on s.id = x.metric_id "
               "where s.value like 'pm%'").fetchone()
k = c.execute("select min(start_ns), max(start_ns + dur_ns) from kernels").fetchone()
if pm[0] is not None and k[0] is not None:  # same clock: PM windows around the kernels
    print(f"pm {(pm[0] - k[0]) / 1e6:.1f}..{(pm[1] - k[0]) / 1e6:.1f} ms of kernels 0..{(k[1] - k[0]) / 1e6:.1f}")
for (v,) in c.execute("select value from strings where value like '%pm sampling%' limit 3"):
    print("status:", v[:160])
PYEOF
)
				"$G" report --no-progress "$RES/$p.$v.db" >"$RES/$p.$v.report.txt" 2>&1
			fi
			printf '%-18s %-9s %4s %8s %s\n' "$p" "$v" "$rc" "$w" "$s" >>"$RES/pm-table.txt"
			log "$p $v rc=$rc ${w}s"
		done
	done
	{ echo "== record --metrics pm"; cat "$RES/pm-table.txt"; } >>"$SUM"
else
	echo "== record --metrics pm: not in this gpuscope ($G)" >>"$SUM"
fi
tar -C "$RES" -czf "$OUT/torch-counters.tar.gz" . 2>/dev/null
cat "$SUM"
