#!/usr/bin/env bash
# report over the ranks of one job (issue 24): several torch.profiler traces
# (tests/analyze/gen_ranks.py: rank 1's gemm takes twice as long, so rank 0
# waits 10 ms in each of 5 all-reduces), as a directory and as files in any
# order; NCCL kernels and gloo host collectives; ranks of several machines
# (the same pid, the same device number); a balanced job has no straggler;
# bad input gets one line and a non-zero exit; two real H200 profiler traces
# read as two ranks (no communication: no RANKS section, per-device findings).
# usage: ranks_report.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
gen() { python3 "$src/tests/analyze/gen_ranks.py" "$@"; }
holds() { # holds DESC JSON PYTHON-EXPR (r: the report's JSON, f(id): its finding)
	if python3 - "$2" "$3" <<'PY'; then ok "$1"; else bad "$1"; fi
import json, sys
r = json.load(open(sys.argv[1]))
def f(i):
    m = [x for x in r.get("findings", []) if x["id"] == i]
    return m[0] if m else None
def ev(i, k):
    return f(i)["evidence"][k]
ok = eval(sys.argv[2])
if not ok:
    print("  ", json.dumps(r.get("ranks"))[:400], [x["id"] for x in r.get("findings", [])])
sys.exit(0 if ok else 1)
PY
}

gen "$tmp/nccl"
"$bin" report "$tmp/nccl" --format json >"$tmp/nccl.json" || die "report DIR"
holds "NCCL: rank 1 is the straggler, rank 0 waits 5 x 10 ms" "$tmp/nccl.json" \
	'ev("straggler","straggler_rank") == 1 and ev("straggler","last_to_arrive") == 5 and ev("straggler","others_wait_ms") == 50 and abs(ev("straggler","wait_pct") - 100*50/182) < 0.01'
holds "NCCL: per rank comm, exposed, wait" "$tmp/nccl.json" \
	'[(x["rank"], x["comm_ns"], x["exposed_ns"], x["wait_ns"], x["compute_ns"]) for x in r["ranks"]["per_rank"]] == [(0, 60000000, 60000000, 50000000, 50000000), (1, 10000000, 10000000, 0, 100000000)]'
holds "NCCL: comm_exposed is the mean rank's (35 ms of 182), names rank 0" "$tmp/nccl.json" \
	'abs(ev("comm_exposed","exposed_pct") - 100*35/182) < 0.01 and ev("comm_exposed","rank") == 0 and ev("comm_exposed","backend") == "NCCL"'
holds "NCCL: NCCL advice, not gloo's" "$tmp/nccl.json" \
	'any("bucket_cap_mb" in a for a in f("comm_exposed")["actions"]) and not any("gloo" in a for a in f("comm_exposed")["actions"])'
# the same files named in reverse order: ranks still by distributedInfo.rank
"$bin" report "$tmp/nccl/rank1.json" "$tmp/nccl/rank0.json" --format json >"$tmp/rev.json"
holds "FILE... in reverse order gives the same ranks" "$tmp/rev.json" \
	'[x["rank"] for x in r["ranks"]["per_rank"]] == [0, 1] and r["ranks"]["per_rank"][0]["pid"] == 5000 and ev("straggler","straggler_rank") == 1'

gen "$tmp/gloo" --backend gloo --same-pid --same-device --ranks 3 --slow-rank 2
"$bin" report "$tmp/gloo" --format json >"$tmp/gloo.json" || die "report gloo"
holds "gloo, one pid and device on every machine: 3 ranks apart, rank 2 straggles" "$tmp/gloo.json" \
	'len(set(x["pid"] for x in r["ranks"]["per_rank"])) == 3 and sorted(x["device"] for x in r["ranks"]["per_rank"]) == [0, 1, 2] and ev("straggler","straggler_rank") == 2 and ev("straggler","others_wait_ms") == 50'
holds "gloo: host collectives, gloo advice" "$tmp/gloo.json" \
	'ev("comm_exposed","backend") == "host (gloo/MPI)" and any("nccl" in a for a in f("comm_exposed")["actions"]) and r["ranks"]["per_rank"][0]["wait_ns"] == 50000000'

gen "$tmp/even" --slow-factor 1
"$bin" report "$tmp/even" --format json >"$tmp/even.json"
holds "balanced ranks: no straggler" "$tmp/even.json" \
	'f("straggler") is None and r["ranks"]["straggler_rank"] is None and all(x["wait_ns"] == 0 for x in r["ranks"]["per_rank"])'
"$bin" report "$tmp/nccl/rank0.json" --format json >"$tmp/one.json"
holds "one rank's file alone: its communication, no cross-rank finding" "$tmp/one.json" \
	'r["ranks"]["ranks"] == 1 and r["ranks"]["per_rank"][0]["comm_ns"] == 60000000 and f("straggler") is None and f("comm_exposed") is None'
"$bin" report "$tmp/nccl" | grep -q '^RANKS' && ok "text has RANKS" || bad "text RANKS"

# Perfetto: one process per rank, named and ordered by rank
"$bin" export "$tmp/nccl/rank1.json" "$tmp/nccl/rank0.json" --format perfetto -o "$tmp/p.json" --no-progress 2>/dev/null &&
	python3 - "$tmp/p.json" <<'PY' && ok "perfetto: a process per rank" || bad "perfetto ranks"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name"}
order = {e["pid"]: e["args"]["sort_index"] for e in ev if e.get("name") == "process_sort_index"}
assert names[5000] == "rank 0 (process 5000)" and names[5001] == "rank 1 (process 5001)", names
assert order[5000] == 0 and order[5001] == 1, order
PY

# bad input: one line, non-zero
mkdir "$tmp/empty"
refused() { # refused DESC WANT ARGS...
	local desc=$1 want=$2
	shift 2
	if "$bin" report "$@" >"$tmp/out" 2>"$tmp/err"; then
		bad "$desc: exit 0"
	elif [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q -- "$want" "$tmp/err" || [ -s "$tmp/out" ]; then
		bad "$desc:"; cat "$tmp/err"
	else ok "$desc"; fi
}
refused "a directory with no trace" "holds no trace" "$tmp/empty"
refused "a missing file among several" "nope.json" "$tmp/nccl/rank0.json" "$tmp/nope.json"
head -c 300 "$tmp/nccl/rank1.json" >"$tmp/cut.json"
refused "a truncated file among several" "cut.json" "$tmp/nccl/rank0.json" "$tmp/cut.json"

# two real H200 torch.profiler traces (tests/fixtures/real) as two ranks:
# recorded 75 s apart, they are refused as such (analyze/job.c one_job);
# moved onto one window (the second's times shifted to start with the
# first's), two devices each diagnosed on its own
fx=$src/tests/fixtures/real
refused "two traces that do not overlap in time" "do not overlap in time" "$fx/torch_h2d_pinned.json.gz" "$fx/triton_fused.json.gz"
python3 - "$fx" "$tmp" <<'PY'
import gzip, json, sys
fx, tmp = sys.argv[1:]
a = json.load(gzip.open(fx + "/torch_h2d_pinned.json.gz"))
b = json.load(gzip.open(fx + "/triton_fused.json.gz"))
t0 = lambda d: min(float(e["ts"]) for e in d["traceEvents"] if "ts" in e)
shift = t0(a) - t0(b)
for e in b["traceEvents"]:
    if "ts" in e:
        e["ts"] = float(e["ts"]) + shift
json.dump(a, open(tmp + "/real-a.json", "w"))
json.dump(b, open(tmp + "/real-b.json", "w"))
# a later profiling cycle of the same process (tensorboard_trace_handler's
# next file): the same trace 5 s on
for e in a["traceEvents"]:
    if "ts" in e:
        e["ts"] = float(e["ts"]) + 5e6
json.dump(a, open(tmp + "/real-a-next.json", "w"))
PY
"$bin" report "$tmp/real-a.json" "$tmp/real-b.json" --format json >"$tmp/real.json" ||
	bad "two real traces"
holds "two real traces: two devices diagnosed, no communication" "$tmp/real.json" \
	'"ranks" not in r and len(r["per_device"]) == 2 and all(x.get("device") is not None for x in r["findings"])'
refused "two profiling cycles of one process" "two profiles of one process (pid" "$tmp/real-a.json" "$tmp/real-a-next.json"
exit $fail
