#!/usr/bin/env bash
# The job report from per-rank summaries (issue 38 item 3): each rank's
# trace mapped to RANK.gss by `report --summary` (in parallel with xargs -P,
# as a cluster's array job would), the summaries reduced by `report DIR`;
# the RANKS section, the straggler and comm_exposed (every evidence figure)
# and each rank's findings equal those of `report` on the raw traces, for
# NCCL ranks (rank 1 slow), gloo ranks of several machines (one pid, one
# device each: numbered as the merge numbers them), a balanced job and a
# job with short kernels; bad summaries get one line and a non-zero exit.
# usage: summary_report.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"

# map every rank of DIR to DIR.gss/rankN.gss, two at a time
map() {
	mkdir -p "$1.gss"
	(cd "$1" && ls) | sed 's/\.json$//' |
		xargs -P 2 -I{} "$bin" report --summary --no-progress -o "$1.gss/{}.gss" "$1/{}.json" 2>"$tmp/map.err" ||
		{ cat "$tmp/map.err"; return 1; }
}

# same NAME DIR: the job from summaries against the job from traces
same() {
	local name=$1 dir=$2
	map "$dir" || { bad "$name: map"; return; }
	"$bin" report "$dir" --format json >"$tmp/raw.json" || { bad "$name: report traces"; return; }
	"$bin" report "$dir.gss" --format json >"$tmp/sum.json" || { bad "$name: report summaries"; return; }
	if python3 - "$tmp/raw.json" "$tmp/sum.json" <<'PY'; then ok "$name: summaries give the traces' job report"; else bad "$name"; fi
import json, sys
raw, summ = (json.load(open(p)) for p in sys.argv[1:])
bad = []
if raw.get("ranks") != summ.get("ranks"):
    bad.append(("ranks", raw.get("ranks"), summ.get("ranks")))
def job(r, i):
    m = [f for f in r["findings"] if f["id"] == i]
    return m[0] if m else None
for i in ("straggler", "comm_exposed"):
    if job(raw, i) != job(summ, i):
        bad.append((i, job(raw, i), job(summ, i)))
def rank_findings(r):
    return sorted((f["id"], f.get("device"), f["severity"], round(f["impact_pct"], 9), f["title"],
                   json.dumps(f["evidence"], sort_keys=True), tuple(f["actions"]))
                  for f in r["findings"] if f["id"] not in ("straggler", "comm_exposed"))
if rank_findings(raw) != rank_findings(summ):
    bad.append(("rank findings", rank_findings(raw), rank_findings(summ)))
if raw["primary"] != summ["primary"]:
    bad.append(("primary", raw["primary"], summ["primary"]))
if raw["span_ns"] != summ["span_ns"]:
    bad.append(("span", raw["span_ns"], summ["span_ns"]))
if len(summ["rank_summaries"]["per_summary"]) != len(raw["ranks"]["per_rank"] if raw.get("ranks") else summ["rank_summaries"]["per_summary"]):
    bad.append(("rows", summ["rank_summaries"]))
for b in bad:
    print("  ", json.dumps(b)[:600])
sys.exit(1 if bad else 0)
PY
}

gen() { python3 "$src/tests/analyze/gen_ranks.py" "$@" >/dev/null; }
gen "$tmp/nccl" --ranks 4
same "NCCL, 4 ranks, rank 1 slow" "$tmp/nccl"
python3 - "$tmp/sum.json" <<'PY' && ok "the straggler is rank 1, named from summaries" || bad "straggler from summaries"
import json, sys
r = json.load(open(sys.argv[1]))
s = [f for f in r["findings"] if f["id"] == "straggler"][0]["evidence"]
assert s["straggler_rank"] == 1 and s["others_wait_ms"] == 50 and s["last_to_arrive"] == 5, s
assert r["ranks"]["straggler_rank"] == 1
PY
gen "$tmp/gloo" --backend gloo --same-pid --same-device --ranks 3 --slow-rank 2
same "gloo, one pid and device on every machine" "$tmp/gloo"
gen "$tmp/even" --slow-factor 1
same "balanced ranks: no straggler" "$tmp/even"
gen "$tmp/short" --ranks 3 --kernels 300 --steps 8
same "short kernels between the collectives" "$tmp/short"

# the summary does not grow with kernels: 300 kernels a step, 8 steps
a=$(stat -c %s "$tmp/nccl.gss/rank0.gss")
b=$(stat -c %s "$tmp/short.gss/rank0.gss")
[ "$b" -lt $((a + 2048)) ] && ok "summary size: $a bytes at 10 kernels, $b at 2408" || bad "summary grows with kernels: $a -> $b"

# files named one by one, in another order: the same job
"$bin" report "$tmp/nccl.gss/rank3.gss" "$tmp/nccl.gss/rank1.gss" "$tmp/nccl.gss/rank0.gss" \
	"$tmp/nccl.gss/rank2.gss" --format json >"$tmp/files.json" &&
	python3 -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); sys.exit(a["ranks"] != b["ranks"])' \
		"$tmp/files.json" "$tmp/sum.json" 2>/dev/null
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["ranks"]["straggler_rank"] != 1)' "$tmp/files.json" &&
	ok "summaries as FILEs in any order" || bad "summaries as FILEs"
"$bin" report "$tmp/nccl.gss" | grep -q '^RANKS' && ok "text has RANKS" || bad "text RANKS"
"$bin" report "$tmp/nccl.gss" --format html | grep -q 'rank_summaries\|RANK SUMMARIES' && ok "html" || bad "html"

# same_job A.json B.json: the same ranks and findings (ties in any order)
same_job() {
	python3 -c 'import json,sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
k = lambda r: sorted(json.dumps(f, sort_keys=True) for f in r["findings"])
sys.exit(a["ranks"] != b["ranks"] or k(a) != k(b))' "$@"
}
# the map step as clusters run it: the Slurm array script (deploy/slurm) and
# the Indexed Job's command (deploy/kubernetes), one task per rank
seq 0 3 | xargs -P 2 -I{} env SLURM_ARRAY_TASK_ID={} GPUSCOPE="$bin" \
	bash "$src/deploy/slurm/summaries.sbatch" "$tmp/nccl" "$tmp/slurm" 2>/dev/null
"$bin" report "$tmp/slurm" --format json >"$tmp/slurm.json" 2>/dev/null &&
	same_job "$tmp/slurm.json" "$tmp/files.json" && ok "Slurm array script: the same job" || bad "Slurm array script"
mkdir -p "$tmp/data/summaries" "$tmp/bin" && ln -s "$tmp/nccl" "$tmp/data/traces" && ln -s "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$tmp/bin/gpuscope"
cmd=$(python3 -c 'import sys,yaml; j=yaml.safe_load(open(sys.argv[1])); print(" ".join(j["spec"]["template"]["spec"]["containers"][0]["args"]))' \
	"$src/deploy/kubernetes/summaries-job.yaml" | sed "s|/data|$tmp/data|g")
seq 0 3 | xargs -P 2 -I{} env JOB_COMPLETION_INDEX={} PATH="$tmp/bin:$PATH" sh -c "$cmd" 2>/dev/null
"$bin" report "$tmp/data/summaries" --format json >"$tmp/k8s.json" 2>/dev/null &&
	same_job "$tmp/k8s.json" "$tmp/files.json" && ok "Kubernetes Indexed Job's command: the same job" || bad "Kubernetes Indexed Job's command"

# a rank with many findings (its block repeated): the job rules' findings
# grow the list past its room, the primary must follow it (ASan build)
mkdir -p "$tmp/many"
cp "$tmp/nccl.gss"/rank[123].gss "$tmp/many/"
python3 - "$tmp/nccl.gss/rank0.gss" "$tmp/many/rank0.gss" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
i = next(k for k, l in enumerate(lines) if l.startswith("finding"))
j = next(k for k, l in enumerate(lines) if l.startswith("primary"))
open(sys.argv[2], "w").write("\n".join(lines[:i] + lines[i:j] * 61 + lines[j:]))
PY
"$bin" report "$tmp/many" --format json >"$tmp/many.json" 2>"$tmp/many.err" &&
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (r["primary"] == "host_overhead" and len(r["findings"]) == 66))' "$tmp/many.json" &&
	ok "a rank with 61 findings (64 in the job, the list full when the job rules add theirs): the primary stays right" || { bad "many findings"; cat "$tmp/many.err"; }

# bad input: one line, non-zero, nothing on stdout, no file left behind
refused() { # refused DESC WANT ARGS...
	local desc=$1 want=$2
	shift 2
	if "$bin" report "$@" >"$tmp/out" 2>"$tmp/err"; then
		bad "$desc: exit 0"
	elif [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q -- "$want" "$tmp/err" || [ -s "$tmp/out" ]; then
		bad "$desc:"; cat "$tmp/err"
	else ok "$desc"; fi
}
head -c 700 "$tmp/nccl.gss/rank1.gss" >"$tmp/cut.gss"
refused "a truncated summary" "cut.gss" "$tmp/nccl.gss/rank0.gss" "$tmp/cut.gss"
sed '1s/\t1$/\t9/' "$tmp/nccl.gss/rank1.gss" >"$tmp/v9.gss"
refused "a summary of another version" "another version" "$tmp/nccl.gss/rank0.gss" "$tmp/v9.gss"
sed 's/^rank\t1\t5001/rank\tx\t5001/' "$tmp/nccl.gss/rank1.gss" >"$tmp/junk.gss"
refused "a malformed line" "junk.gss' line" "$tmp/nccl.gss/rank0.gss" "$tmp/junk.gss"
refused "a trace among summaries" "not a gpuscope summary" "$tmp/nccl.gss/rank0.gss" "$tmp/nccl/rank1.json"
refused "--whole on summaries" "apply where the summaries are written" --whole "$tmp/nccl.gss"
refused "--summary without -o" "needs -o" --summary "$tmp/nccl/rank0.json"
refused "--summary of two traces" "needs -o" --summary -o "$tmp/x.gss" "$tmp/nccl/rank0.json" "$tmp/nccl/rank1.json"
refused "--summary into a missing directory" "cannot write" --summary -o "$tmp/nope/x.gss" "$tmp/nccl/rank0.json"
if [ -e "$tmp/nope" ] || ls "$tmp"/*.tmp >/dev/null 2>&1; then bad "a directory or a .tmp left behind"; else ok "no half-written summary"; fi
exit $fail
