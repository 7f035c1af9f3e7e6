#!/usr/bin/env bash
# pm-on-gpu.sh - record --metrics pm (CUPTI PM sampling, issue 18) on the H200,
# in one device call of at most BUDGET_S seconds (default 170):
#   bash workloads/pm-on-gpu.sh          (repo root; $OUT set by the device tool)
# Builds nothing. Needs, carried from the build machine: build/gpuscope,
# build/libgpuscope-inject.so, build/libgpuscope-preload.so (or the same
# under .gpu/build/) and .gpu/bin/ (workloads/build-zoo.sh); python3 (its
# sqlite3 module; torch for the PyTorch run, skipped without it).
# Runs, each under `gpuscope record --metrics pm` with GPUSCOPE_DEBUG=1 (the
# PM sampling thread logs every CUPTI step, its first passes and the first
# window against each clock), the most telling first:
#   bw        bandwidth_stream --seconds 2   DRAM throughput high (~80-90%)
#   fma       fma_bound                      SM active, warps active high
#   small     small_grid                     SM active low (4 of 132 SMs)
#   bw_nogpm  bandwidth_stream --seconds 2 with NVML/GPM off (--metrics none
#             and GPUSCOPE_METRICS=pm): does GPM in the launcher disturb PM
#             sampling, or PM sampling GPM?
#   bw_100us  bandwidth_stream --seconds 2 at GPUSCOPE_PM_INTERVAL_US=100
#             (10x the windows: the buffer sizes, the decode passes)
#   torch     a 2 s fp16 matmul loop in PyTorch: the tensor pipe
# Then, per run, `gpuscope report --format json` and the database: pm_* and
# gpm_* samples per metric (mean / mean of the windows the GPU was busy for
# at least half of, report's "while busy"), how many PM windows lie inside
# the process's span (the same clock as the timeline), kernels recorded
# against the program's own count (PM sampling must not silence the
# activity records), the PM status lines and the key lines of the log.
# $OUT/pm/ gets two files: runs.tar.gz (databases, reports, stdout, stderr
# logs) and table.txt, which is printed last. Read-only towards the card.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
G=${GPUSCOPE:-$PWD/build/gpuscope}
[ -x "$G" ] || G=$PWD/.gpu/build/gpuscope
BIN=${BIN:-$PWD/.gpu/bin}
PY=${PYTHON:-python3}
BUDGET=${BUDGET_S:-170}
W=$(mktemp -d /tmp/gs-pm-gpu.XXXXXX)
mkdir -p "$OUT/pm"
: >"$W/rows.txt"
: >"$W/notes.txt"
left() { echo $((BUDGET - SECONDS)); }
say() { echo "[pm-on-gpu +${SECONDS}s] $*" | tee -a "$W/run.log" >&2; }

finish() {
	tar -C "$W" -czf "$OUT/pm/runs.tar.gz" . 2>/dev/null
	{
		echo "== record --metrics pm on $(nvidia-smi --query-gpu=name,driver_version \
			--format=csv,noheader 2>/dev/null | head -1) ($G)"
		echo "cells: mean/while-busy of each metric's windows, % ('-': none busy);" \
			"kern: kernels recorded/the program's own; in: PM windows inside the process"
		printf '%-9s %3s %5s %11s %6s %4s %9s %9s %9s %9s %9s | %9s %9s\n' run rc wall_s kern \
			pm_n in pm_sm pm_warps pm_dram pm_tensor pm_gr gpm_sm gpm_dram
		cat "$W/rows.txt"
		echo "expected: bw pm_dram ~80-90 while busy; fma pm_sm, pm_warps high; small" \
			"pm_sm ~3 (4 of 132 SMs); torch pm_tensor > 0; bw_nogpm like bw"
		cat "$W/notes.txt"
	} >"$OUT/pm/table.txt"
	cat "$OUT/pm/table.txt"
}

if [ ! -x "$G" ] || ! "$G" record --help 2>&1 | grep -Eq -- '--metrics [a-z|]*pm'; then
	echo "pm-on-gpu: no gpuscope with record --metrics pm at $G" | tee "$W/notes.txt"
	finish
	exit 1
fi

# the summary of one run: a row (rows.txt) and its notes (notes.txt)
cat >"$W/summ.py" <<'PYEOF'
import json, os, re, sqlite3, sys
name, rc, wall, w = sys.argv[1:5]
db, js, out, log = (os.path.join(w, name + e) for e in (".db", ".json", ".out", ".log"))
row, notes = {}, []
try:
    rep = json.load(open(js)).get("samples", {})
except Exception:
    rep = {}
def cell(m, stats):
    n, mean = stats.get(m, (0, None))
    if not n:
        return "-"
    busy = rep.get(m, {}).get("mean_busy")
    return f"{mean:.1f}/{busy:.1f}" if busy is not None else f"{mean:.1f}/-"
stats, kern, pm_n, inside = {}, "-", 0, "-"
if os.path.exists(db):
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    q = ("select s.value, count(*), avg(x.value) from samples x join strings s on s.id = x.metric_id"
         " where s.value like 'pm%' or s.value like 'gpm%' group by s.value")
    stats = {m: (n, mean) for m, n, mean in c.execute(q)}
    got = c.execute("select count(*) from kernels").fetchone()[0]
    want = re.findall(r"WORKLOAD .*\bkernels=(\d+)", open(out).read()) if os.path.exists(out) else []
    kern = f"{got}/{want[-1] if want else '?'}"
    pm_n = sum(n for m, (n, _) in stats.items() if m.startswith("pm_"))
    base = c.execute("select value from meta where key = 'base_ns'").fetchone()
    base = int(base[0]) if base else 0  # samples are stored relative to it, processes not
    span = c.execute("select min(start_ns) - ?, max(end_ns) - ? from processes",
                     (base, base)).fetchone()
    pm = "select x.ts_ns from samples x join strings s on s.id = x.metric_id where s.value = 'pm_gr_active'"
    ts = [t for (t,) in c.execute(pm)] or [t for (t,) in c.execute(pm.replace("pm_gr_active", "pm_sm_active"))]
    if ts and span[0] is not None:
        n_in = sum(span[0] <= t <= span[1] for t in ts)
        inside = f"{100 * n_in // len(ts)}%"
        k = c.execute("select min(start_ns), max(start_ns + dur_ns) from kernels").fetchone()
        if k[0] is not None:
            notes.append(f"  PM windows {(min(ts) - k[0]) / 1e6:.1f}..{(max(ts) - k[0]) / 1e6:.1f} ms"
                         f" of the kernels' 0..{(k[1] - k[0]) / 1e6:.1f} ms")
    for (v,) in c.execute("select value from strings where value like '%PM sampling%'"
                          " or value like '%pm sampling%' limit 6"):
        notes.append("  status: " + v[:300])
else:
    notes.append("  no database")
keys = ("driver:", "cuDeviceGetCount", "primary context", "DeviceSupported", "started:",
        "first window", "first values", "pass 1:", "overflow", "off:", "failed", "done:",
        "after stop", "Disable", "crash", "rror")
if os.path.exists(log):
    lines = [l.rstrip() for l in open(log, errors="replace")]
    pmlines = [l for l in lines if "pm sampling" in l and any(k in l for k in keys)]
    for l in pmlines[:14]:
        notes.append("  log: " + re.sub(r"^gpuscope-inject: ", "", l)[:260])
    if not pmlines:
        notes.extend("  stderr: " + l[:200] for l in lines[-4:])
m = ["pm_sm_active", "pm_warps_active", "pm_dram_throughput", "pm_tensor_active", "pm_gr_active",
     "gpm_sm_util", "gpm_dram_bw_util"]
cells = [cell(x, stats) for x in m]
print(f"{name:<9} {rc:>3} {wall:>5} {kern:>11} {pm_n:>6} {inside:>4} " +
      " ".join(f"{x:>9}" for x in cells[:5]) + " | " + " ".join(f"{x:>9}" for x in cells[5:]))
with open(os.path.join(w, "notes.txt"), "a") as f:
    f.write(f"-- {name}\n" + "\n".join(notes) + "\n")
PYEOF

# rec NAME EST_S METRICS [VAR=VALUE...] -- CMD...: CMD under record into $W/NAME.db
rec() {
	local name=$1 est=$2 metrics=$3
	shift 3
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		envs+=("$1")
		shift
	done
	shift
	if [ "$(left)" -lt $((est + 8)) ]; then
		say "$name: skipped (budget: $(left) s left, it needs about $est)"
		echo "$name skipped (budget)" >>"$W/rows.txt"
		return
	fi
	say "$name: record --metrics $metrics ${envs[*]} -- $*"
	local t0 rc wall lim=$((est * 3 + 20))
	[ "$lim" -gt $(($(left) - 5)) ] && lim=$(($(left) - 5)) # a hang stays inside the budget
	t0=$(date +%s.%N)
	env "${envs[@]}" GPUSCOPE_DEBUG=1 GPUSCOPE_CRASH_TRACE=1 timeout "$lim" "$G" record --no-progress \
		--metrics "$metrics" -o "$W/$name.db" -- "$@" >"$W/$name.out" 2>"$W/$name.log"
	rc=$?
	wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
	[ -s "$W/$name.db" ] && timeout 60 "$G" report --format json "$W/$name.db" \
		>"$W/$name.json" 2>>"$W/$name.log"
	"$PY" "$W/summ.py" "$name" "$rc" "$wall" "$W" >>"$W/rows.txt" 2>>"$W/run.log" ||
		echo "$name $rc $wall (no summary: see run.log)" >>"$W/rows.txt"
	say "$name: rc=$rc ${wall}s"
}

rec bw 8 pm -- "$BIN/bandwidth_stream" --seconds 2
rec fma 6 pm -- "$BIN/fma_bound"
rec small 6 pm -- "$BIN/small_grid"
rec bw_nogpm 8 none GPUSCOPE_METRICS=pm -- "$BIN/bandwidth_stream" --seconds 2
rec bw_100us 8 pm GPUSCOPE_PM_INTERVAL_US=100 -- "$BIN/bandwidth_stream" --seconds 2
if timeout 30 "$PY" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	rec torch 25 pm -- "$PY" -c '
import time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.half)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.half)
torch.cuda.synchronize()
t, n = time.time(), 0
while time.time() - t < 2:
    c = a @ b
    n += 1
    if n % 20 == 0:
        torch.cuda.synchronize()
torch.cuda.synchronize()
print(f"matmuls={n} tflops={2 * 8192**3 * n / (time.time() - t) / 1e12:.0f}")
'
else
	say "torch: skipped (no torch with CUDA in $PY)"
	echo "torch skipped (no torch)" >>"$W/rows.txt"
fi
finish
