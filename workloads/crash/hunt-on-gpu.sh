#!/usr/bin/env bash
# crash/hunt-on-gpu.sh - issue 17's open defect on the H200: `gpuscope record`
# exited 139 after three PyTorch programs (hf_decode, torchrun ranks,
# --capture-range cudaProfilerApi on torch) had printed their last line.
#   BUDGET_S=300 bash workloads/crash/hunt-on-gpu.sh   (repo root, $OUT set)
# Each case runs under record REPS times (default 3); gpuscope's own crash
# report (src/util/crash.h: signal, thread, module+offset frames) lands in
# the case's stderr log, and whether the launcher or the program died shows
# in it. A case that crashed is then run with one part of record off at a
# time (VARIANTS) to see which part it needs. Also records the capture
# program whole and dumps its NVTX ranges (name, domain, pid, tid), for the
# nvtx:capture_me case that kept 0 of 50 kernels.
# Carried: build/{gpuscope,libgpuscope-inject.so,libgpuscope-preload.so}.
# Output: $OUT/crash-hunt.tar.gz (logs), a table last on stdout.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
G=${GPUSCOPE:-$PWD/build/gpuscope}
PY=${PYTHON:-python3}
BUDGET=${BUDGET_S:-300}
REPS=${REPS:-3}
W=/tmp/crash-hunt
rm -rf "$W"
mkdir -p "$W" "$OUT"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1 GPUSCOPE_CRASH_REPORT=1
left() { echo $((BUDGET - SECONDS)); }
rows=()
crashed=()

# one NAME TAG ENV... -- CMD...: one recorded run; a row: rc, who crashed, kernels
one() {
	local name=$1 tag=$2 envs=() rc who k
	shift 2
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	local base=$W/$name.$tag
	[ "$(left)" -lt 20 ] && { rows+=("$name|$tag|skipped (budget)||"); return; }
	local t0=$SECONDS
	env "${envs[@]}" timeout 120 "$G" record -o "$base.db" "$@" >"$base.out" 2>"$base.err"
	rc=$?
	who=-
	grep -q "internal error" "$base.err" && who=launcher
	[ "$rc" -ge 128 ] && [ "$who" = - ] && who=program?
	k=NA
	[ -f "$base.db" ] && k=$("$PY" workloads/count_rows.py "$base.db" 2>/dev/null | sed -n 's/.*kernels=\([0-9]*\).*/\1/p')
	rows+=("$name|$tag|rc=$rc $((SECONDS - t0))s|$who|${k:-NA}")
	[ "$rc" -ge 128 ] && crashed+=("$name")
	ls -d "$base".db.spool-* >/dev/null 2>&1 && echo "spool left: $(ls -d "$base".db.spool-*)" >>"$base.err"
	return 0
}

case_cmd() { # NAME -> the command line of the case
	case $1 in
	hf_decode) echo "$PY workloads/real/hf_decode.py" ;;
	t_profiler) echo "--capture-range cudaProfilerApi -- $PY workloads/pytorch/capture_ranges.py" ;;
	torchrun) echo "$PY -m torch.distributed.run --standalone --nproc_per_node=2 workloads/procs/multiproc.py rank" ;;
	esac
}
run_case() { # NAME TAG ENV... (record's extra flags in RFLAGS)
	local name=$1 tag=$2
	shift 2
	local cmd
	cmd=$(case_cmd "$name")
	# shellcheck disable=SC2086 # the command line is split on purpose
	case $cmd in
	--capture-range*) one "$name" "$tag" "$@" -- ${RFLAGS:-} ${cmd} ;;
	*) one "$name" "$tag" "$@" -- ${RFLAGS:-} -- ${cmd} ;;
	esac
}

for r in $(seq "$REPS"); do
	for c in ${CASES:-hf_decode t_profiler torchrun}; do
		run_case "$c" "r$r" GPUSCOPE_X=1
	done
done
# the NVTX names torch writes (nvtx:capture_me kept 0 of 50)
one nvtx_names whole GPUSCOPE_X=1 -- --host-sampling off -- "$PY" workloads/pytorch/capture_ranges.py
"$PY" - "$W/nvtx_names.whole.db" >"$W/nvtx_names.txt" 2>&1 <<'PYEOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
tabs = [r[0] for r in c.execute("select name from sqlite_master where type='table'")]
print("tables:", tabs)
for t in tabs:
    if "range" in t or "marker" in t or "nvtx" in t:
        cols = [r[1] for r in c.execute(f"pragma table_info({t})")]
        print(t, cols)
        for row in c.execute(f"select * from {t} limit 12"):
            print("  ", row)
if "ranges" in tabs:
    q = ("select r.kind, n.value, d.value, r.pid, r.tid, r.depth, count(*) from ranges r "
         "left join strings n on n.id = r.name_id left join strings d on d.id = r.domain_id "
         "group by 1, 2, 3, 4, 5, 6 order by 7 desc limit 20")
    for row in c.execute(q):
        print("range kind/name/domain/pid/tid/depth/count:", row)
if "strings" in tabs:
    for row in c.execute("select * from strings where value like '%capture%' limit 10"):
        print("string", row)
PYEOF
# variants of each case that crashed: which part of record it needs
for name in $(printf '%s\n' "${crashed[@]}" | sort -u); do
	[ "$name" = nvtx_names ] && continue
	for v in ${VARIANTS:-nohost pyread_only perf_only nobatch nonvml}; do
		case $v in
		nohost) RFLAGS="--host-sampling off" run_case "$name" "$v" GPUSCOPE_X=1 ;;
		pyread_only) run_case "$name" "$v" GPUSCOPE_HOST_MECH=pyread ;;
		perf_only) run_case "$name" "$v" GPUSCOPE_HOST_MECH=perf ;;
		nobatch) run_case "$name" "$v" GPUSCOPE_PYREAD_BATCH=0 ;;
		nonvml) RFLAGS="--metrics none" run_case "$name" "$v" GPUSCOPE_X=1 ;;
		esac
	done
done
{
	echo "record runs (rc; who crashed: launcher = gpuscope's crash report in stderr)"
	printf '%-12s %-12s %-14s %-10s %s\n' case run result crashed kernels
	for r in "${rows[@]}"; do
		IFS='|' read -r a b c d e <<<"$r"
		printf '%-12s %-12s %-14s %-10s %s\n' "$a" "$b" "$c" "$d" "$e"
	done
	echo "crash reports:"
	grep -h -A12 "internal error" "$W"/*.err 2>/dev/null | head -60
	echo "nvtx names:"
	head -30 "$W/nvtx_names.txt"
} >"$W/table.txt"
# one hf_decode recording with host samples, for the fixture (xz), and its report
for f in "$W"/hf_decode.r*.db; do
	[ -f "$f" ] || continue
	timeout 60 "$G" report "$f" >"$W/hf_decode.report.txt" 2>&1
	timeout 60 "$G" report --format json "$f" >"$W/hf_decode.report.json" 2>&1
	{
		echo "hf_decode report:"
		sed -n '/^VERDICT/,/^$/p' "$W/hf_decode.report.txt"
		sed -n '/^HOST WHILE THE GPU WAITED/,/^$/p' "$W/hf_decode.report.txt" | head -30
	} >>"$W/table.txt"
	"$PY" -c 'import lzma,shutil,sys; shutil.copyfileobj(open(sys.argv[1],"rb"), lzma.open(sys.argv[2],"wb",preset=6))' "$f" "$OUT/hf_decode.db.xz" && break
done
rm -f "$W"/*.db
tar -czf "$OUT/crash-hunt.tar.gz" -C "$W" . 2>/dev/null
cat "$W/table.txt"
