#!/usr/bin/env bash
# A 256-rank job's report through per-rank summaries (issue 38 item 4):
# bench/gen-job.py writes each rank's torch.profiler trace (seeded; rank 5
# slow, rank 3's communication exposed; ~50 MB each), `report --summary`
# maps it to RANK.gss (JOBS at a time with xargs -P) and the trace is
# deleted (ranks 0-7 kept), so the job never needs 256 x 50 MB of disk.
# Then: the first 8 ranks' job report from their traces (in memory) and
# from their summaries name the same straggler, exposed rank and RANKS
# figures; the 256 summaries' reduce is timed (median wall and peak RSS of
# REPS runs); and the summary's size against collectives and kernels.
# usage: bench/job-256.sh [BUILD_DIR] [REPS]   (default build, 5)
# Environment: RANKS (256), KERNELS (4000 a step), STEPS (30), JOBS (the
# cores), TMPDIR. The summaries are kept in $TMPDIR/gs-bench-job/.
set -u
build=${1:-build}
reps=${2:-5}
ranks=${RANKS:-256}
kernels=${KERNELS:-4000}
steps=${STEPS:-30}
jobs=${JOBS:-$(nproc)}
src=$(cd "$(dirname "$0")/.." && pwd)
gs=$build/gpuscope
[ -x "$gs" ] || gs=$src/$build/gpuscope
[ -x "$gs" ] || { echo "job-256: no gpuscope at $build/gpuscope (build first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "job-256: GNU time is needed: apt-get install time" >&2; exit 1; }
case $reps in '' | *[!0-9]* | 0) echo "job-256: REPS must be a positive integer" >&2; exit 2 ;; esac
dir=${TMPDIR:-/tmp}/gs-bench-job/r$ranks-k$kernels-s$steps
mkdir -p "$dir/traces" "$dir/gss"
gen() { python3 "$src/bench/gen-job.py" "$dir/traces" --ranks "$ranks" --kernels "$kernels" --steps "$steps" "$@"; }
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# map: JOBS ranks at a time, generated, summarised, deleted (but 0-7)
t0=$(date +%s.%N)
trace_mb=0
for ((a = 0; a < ranks; a += jobs)); do
	b=$((a + jobs - 1 < ranks - 1 ? a + jobs - 1 : ranks - 1))
	todo=""
	for ((r = a; r <= b; r++)); do [ -s "$dir/gss/rank$r.gss" ] || todo="$todo $r"; done
	[ -z "$todo" ] && continue
	gen --only "$a-$b" || exit 1
	[ "$trace_mb" = 0 ] && trace_mb=$(du -m "$dir/traces/rank$a.json" | cut -f1)
	echo $todo | tr ' ' '\n' | xargs -P "$jobs" -I{} "$gs" report --summary --no-progress \
		-o "$dir/gss/rank{}.gss" "$dir/traces/rank{}.json" 2>"$dir/.maperr" || { cat "$dir/.maperr" >&2; exit 1; }
	for r in $todo; do [ "$r" -ge 8 ] && rm -f "$dir/traces/rank$r.json"; done
done
for f in "$dir"/traces/rank*.json; do # left by an interrupted run
	r=${f##*/rank}
	r=${r%.json}
	[ "$r" -ge 8 ] && rm -f "$f"
done
t1=$(date +%s.%N)
n=$(ls "$dir/gss" | wc -l)
echo "job-256: $n summaries of $ranks ranks (~${trace_mb} MB traces), map step $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s here ($jobs at a time, generation included)"

# the first 8 ranks both ways
mkdir -p "$dir/first8"
for r in 0 1 2 3 4 5 6 7; do cp "$dir/gss/rank$r.gss" "$dir/first8/"; done
: >"$dir/.mem"
for ((i = 0; i < reps; i++)); do
	/usr/bin/time -f "%e %M" -o "$dir/.t" "$gs" report "$dir/traces" --format json --no-progress >"$dir/raw8.json" 2>/dev/null || exit 1
	cat "$dir/.t" >>"$dir/.mem"
done
"$gs" report "$dir/first8" --format json >"$dir/sum8.json" || exit 1
python3 - "$dir/raw8.json" "$dir/sum8.json" <<'PY' || exit 1
import json, sys
raw, summ = (json.load(open(p)) for p in sys.argv[1:])
def ev(r, i):
    m = [f for f in r["findings"] if f["id"] == i]
    return m[0]["evidence"] if m else None
for i, k in (("straggler", "straggler_rank"), ("comm_exposed", "rank")):
    a, b = ev(raw, i), ev(summ, i)
    print("  first 8 ranks, %-12s traces: rank %s, summaries: rank %s, evidence %s" %
          (i, a and a[k], b and b[k], "equal" if a == b else "DIFFERENT"))
print("  first 8 ranks, RANKS section (per-rank comm, exposed, wait, compute): %s" %
      ("equal" if raw["ranks"] == summ["ranks"] else "DIFFERENT"))
PY
echo "  report on the 8 traces (in memory): $(cut -d' ' -f1 "$dir/.mem" | med) s, $(($(cut -d' ' -f2 "$dir/.mem" | med) / 1024)) MiB (median of $reps)"

# the reduce of all summaries
: >"$dir/.red"
for ((i = 0; i < reps; i++)); do
	/usr/bin/time -f "%e %M" -o "$dir/.t" "$gs" report "$dir/gss" --format json >"$dir/job.json" 2>/dev/null || exit 1
	cat "$dir/.t" >>"$dir/.red"
done
python3 - "$dir/job.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def ev(i):
    m = [f for f in r["findings"] if f["id"] == i]
    return m[0]["evidence"] if m else {}
s, c = ev("straggler"), ev("comm_exposed")
print("  %d ranks from summaries: straggler rank %s (others wait %.1f%%), most exposed rank %s "
      "(%.1f%% of the run; the mean rank %.1f%%), %d collectives matched" %
      (r["ranks"]["ranks"], s.get("straggler_rank"), s.get("wait_pct", 0), c.get("rank"),
       c.get("rank_exposed_pct", 0), c.get("exposed_pct", 0), r["ranks"]["collectives_matched"]))
PY
w=$(cut -d' ' -f1 "$dir/.red" | med)
m=$(($(cut -d' ' -f2 "$dir/.red" | med) / 1024))
echo "  reduce of $n summaries: $w s (target < 5 s), $m MiB (target < 512 MiB); median of $reps"
echo "  summaries: $(du -sk "$dir/gss" | cut -f1) KiB in all, $(($(cat "$dir"/gss/*.gss | wc -c) / n)) bytes a rank"

# the summary's size against collectives and kernels (one rank, rank 0)
g="$dir/grow"
mkdir -p "$g"
size() { # STEPS KERNELS: rank 0's summary bytes
	python3 "$src/bench/gen-job.py" "$g" --ranks "$ranks" --only 0-0 --steps "$1" --kernels "$2" &&
		"$gs" report --summary --no-progress -o "$g/s.gss" "$g/rank0.json" 2>/dev/null &&
		stat -c %s "$g/s.gss"
	rm -f "$g/rank0.json"
}
s1=$(size 15 1000)
s2=$(size 30 1000)
s3=$(size 15 4000)
echo "  summary size: $s1 B (15 collectives, 15k kernels), $s2 B (30, 30k), $s3 B (15, 60k):" \
	"$(((s2 - s1) / 15)) B per collective, $(((s3 - s1) * 1000 / 45000)) B per 1000 kernels"
rm -rf "$g"
