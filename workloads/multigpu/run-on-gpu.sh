#!/usr/bin/env bash
# multigpu/run-on-gpu.sh - issue 24's one-GPU stand-in for a multi-GPU job:
#   BUDGET_S=90 bash workloads/multigpu/run-on-gpu.sh     (repo root, $OUT set)
# Two ranks of workloads/multigpu/worker.py share the one H200 (GPU matmuls,
# a gloo all_reduce of a 16 MiB gradient on the host each step; rank 1 does
# twice the matmuls, so rank 0 waits in every all_reduce: the straggler).
# Stages (each skipped when the budget is spent; stages.txt lists them):
#   profile  torchrun, 2 ranks under torch.profiler: fixtures/kineto/rank{0,1}.json.gz
#   job      gpuscope record of the whole torchrun job: fixtures/job.db (both
#            workers in one recording; each process's RANK from the environment)
#   ranks    one gpuscope record per rank, both at once (RANK/WORLD_SIZE set
#            here, no torchrun): fixtures/rank{0,1}.db
#   report   gpuscope report of each (text and JSON; export --format perfetto of
#            the ranks): logs/; a failing report does not stop the script
# Last it prints table.txt: per rank and stage the matmuls per step, the
# timed loop, and the gloo:all_reduce time from the profiler traces (summed
# per rank: the straggler's is the short one), then what report said.
# Output: ONE file, $OUT/multigpu.tar.gz (fixtures/, logs/, table.txt,
# stages.txt; a few MiB).
# Carried from the build machine: .gpu/build/{gpuscope,libgpuscope-inject.so,
# libgpuscope-preload.so} (or build/). Python: the machine's python3 (torch).
# DEVICE=cpu: the plumbing test on a machine without a GPU (profile stage
# only, CPU tensors). WORLD (default 2) ranks; SLOW_RANK (1), SLOW_FACTOR (2).
# Read-only towards the card: no clock, power, persistence, MIG or reset commands.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
RES=${RES:-/tmp/gpuscope-multigpu}
G=${GPUSCOPE:-}
if [ -z "$G" ]; then
	G=$PWD/.gpu/build/gpuscope
	[ -x "$G" ] || G=$PWD/build/gpuscope
fi
PY=${PYTHON:-python3}
BUDGET=${BUDGET_S:-90}
DEVICE=${DEVICE:-cuda}
WORLD=${WORLD:-2}
WA=(--device "$DEVICE" --slow-rank "${SLOW_RANK:-1}" --slow-factor "${SLOW_FACTOR:-2}")
W=workloads/multigpu/worker.py
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2 MASTER_ADDR=127.0.0.1
rm -rf "$RES"
mkdir -p "$OUT" "$RES/fixtures/kineto" "$RES/logs"
FX=$RES/fixtures
LG=$RES/logs
: >"$RES/stages.txt"

log() { echo "[multigpu +${SECONDS}s] $*" >&2; }
left() { echo $((BUDGET - SECONDS)); }
lim() {
	local l
	l=$(left)
	[ "$l" -lt 5 ] && l=5
	[ "$l" -lt "$1" ] && echo "$l" || echo "$1"
}
# stage NAME EST_S FUNCTION: runs it when EST_S fits in what is left
stage() {
	local t0=$SECONDS rc
	if [ "$(left)" -lt "$2" ]; then
		echo "$1 skipped (budget: $(left) s left, needs ~$2 s)" >>"$RES/stages.txt"
		log "$1 skipped"
		return
	fi
	log "$1"
	"$3"
	rc=$?
	echo "$1 rc=$rc wall_s=$((SECONDS - t0))" >>"$RES/stages.txt"
}
torchrun_cmd() { echo "$PY -m torch.distributed.run --nproc-per-node $WORLD --master-addr 127.0.0.1 --master-port $1"; }

stage_env() {
	{
		nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,memory.used,mig.mode.current --format=csv 2>&1
		nproc
		"$PY" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "gloo", torch.distributed.is_gloo_available())' 2>&1
		ls -l "$G" "$(dirname "$G")"/libgpuscope-*.so 2>&1
		"$G" --version 2>&1
	} >"$LG/env.txt"
	tail -n 3 "$LG/env.txt" >&2
}

stage_profile() {
	# shellcheck disable=SC2046
	timeout "$(lim 60)" $(torchrun_cmd 29511) $W "${WA[@]}" --profile "$FX/kineto" \
		>"$LG/profile.out" 2>"$LG/profile.err"
}

stage_job() {
	# shellcheck disable=SC2046
	timeout "$(lim 60)" "$G" record -o "$FX/job.db" -- $(torchrun_cmd 29512) $W "${WA[@]}" \
		>"$LG/job.out" 2>"$LG/job.err"
}

stage_ranks() {
	local r pids=()
	for ((r = 0; r < WORLD; r++)); do
		RANK=$r WORLD_SIZE=$WORLD LOCAL_RANK=$r MASTER_PORT=29513 \
			timeout "$(lim 60)" "$G" record -o "$FX/rank$r.db" -- "$PY" $W "${WA[@]}" \
			>"$LG/rank$r.out" 2>"$LG/rank$r.err" &
		pids+=($!)
	done
	local rc=0
	for r in "${pids[@]}"; do wait "$r" || rc=1; done
	return $rc
}

# rep NAME ARGS...: text and JSON reports into logs/NAME.report.{txt,json}
rep() {
	local name=$1
	shift
	timeout "$(lim 60)" "$G" report "$@" >"$LG/$name.report.txt" 2>"$LG/$name.report.err"
	timeout "$(lim 60)" "$G" report "$@" --format json >"$LG/$name.report.json" 2>>"$LG/$name.report.err"
}

stage_report() {
	[ -x "$G" ] || return 1
	ls "$FX"/kineto/*.json.gz >/dev/null 2>&1 && rep kineto "$FX/kineto"
	[ -f "$FX/job.db" ] && rep job "$FX/job.db"
	ls "$FX"/rank*.db >/dev/null 2>&1 && rep ranks "$FX"/rank*.db &&
		timeout "$(lim 30)" "$G" export "$FX"/rank*.db --format perfetto -o "$LG/ranks.perfetto.json" \
			>"$LG/export.out" 2>&1
	return 0
}

table() {
	"$PY" - "$RES" <<'PYEOF'
import glob, gzip, json, os, re, sys
res = sys.argv[1]
print("stage    rank  matmuls  loop_s   (WORKLOAD lines)")
for name in ["profile", "job", "rank0", "rank1", "rank2", "rank3"]:
    f = os.path.join(res, "logs", name + ".out")
    if not os.path.exists(f):
        continue
    for line in open(f, errors="replace"):
        m = re.search(r"WORKLOAD .*rank=(\d+).*matmuls=(\d+) loop_s=([\d.]+)", line)
        if m:
            print(f"{name:8} {m.group(1):>4}  {m.group(2):>7}  {m.group(3):>7}")
print()
print("profiler trace  rank  world  all_reduce_n  all_reduce_ms  gpu_kernel_ms")
for f in sorted(glob.glob(os.path.join(res, "fixtures", "kineto", "*.json.gz"))):
    try:
        d = json.load(gzip.open(f))
    except Exception as e:
        print(os.path.basename(f), "unreadable:", e)
        continue
    di = d.get("distributedInfo", {})
    ev = [e for e in d.get("traceEvents", []) if e.get("ph") == "X"]
    ar = [e for e in ev if e.get("name") == "gloo:all_reduce" and e.get("cat") == "user_annotation"]
    k = [e for e in ev if e.get("cat") == "kernel"]
    print(f"{os.path.basename(f):15} {di.get('rank', '?'):>4}  {di.get('world_size', '?'):>5}  "
          f"{len(ar):>12}  {sum(e['dur'] for e in ar) / 1e3:>13.1f}  {sum(e['dur'] for e in k) / 1e3:>13.1f}")
print()
for name in ["kineto", "job", "ranks"]:
    f = os.path.join(res, "logs", name + ".report.json")
    try:
        r = json.load(open(f))
    except Exception:
        print(f"report {name}: no JSON ({name}.report.err)")
        continue
    ids = [x.get("id") for x in r.get("findings", [])]
    print(f"report {name}: primary={r.get('primary')} findings={','.join(map(str, ids))}")
PYEOF
}

stage env 5 stage_env
stage profile 25 stage_profile
if [ "$DEVICE" != cpu ]; then
	stage job 25 stage_job
	stage ranks 25 stage_ranks
fi
stage report 5 stage_report
table >"$RES/table.txt" 2>&1
du -a "$RES" >"$LG/sizes.txt" 2>&1
tar -C "$RES" -czf "$OUT/multigpu.tar.gz" fixtures logs table.txt stages.txt
cat "$RES/stages.txt"
cat "$RES/table.txt"
