#!/usr/bin/env bash
# host-sampling-cost.sh - what record's host sampler costs the program
# (issue 17 item 5), measured two ways in one run on the GPU machine:
#
# 1. In-process ABBA (first: the machine's process-to-process noise is
#    +-20%): `record` with GPUSCOPE_HOST_SWITCH=FILE runs W.py --inproc-host
#    V1,V2,..: for each variant one ABBA block of INPROC_REPS repetitions,
#    the host sampler switched by the program through FILE (perf's events
#    disabled, the CPython reader idle) while CUPTI records throughout.
#    Variants (workloads/pytorch/host_switch.py): sampler (record's default:
#    perf events + the CPython reader), perf, pyread, tramp (CPython 3.12's
#    perf trampolines alone), all (sampler + trampolines: record's default
#    before this change). The programs run with PYTHONPERFSUPPORT=1 so that
#    the trampolines exist to be switched; "sampler", "perf" and "pyread"
#    keep them off in both halves. INPROC_ROUNDS processes per workload, the
#    variants' order rotating. Variant `record` switches all of record at
#    once (CUPTI's recording through gpuscope_capture and the sampler): the
#    issue's overhead targets in one process, less what loading CUPTI costs
#    (record-overhead.sh's per-process k_none cells). Ratio: median over ABBA quads of on / off
#    (per process), then the median over processes.
# 2. Per process: bench/record-overhead.sh's cells plain, record and its
#    VARIANTS (default record_nohost = --host-sampling off) with ROUNDS
#    interleaved processes of REPS repetitions each (no torch.profiler, no
#    in-process cells), until the budget.
# Per sample: each database's host_sampling row of the program (samples,
# lost, the launcher's cost_ns; cost_ns / samples).
#
# Usage (repo root):  BUDGET_S=200 bash bench/host-sampling-cost.sh
# Env: GPUSCOPE=.gpu/build/gpuscope BIN=.gpu/bin PYTHON=python3 OUT=dir
#      INPROC_BENCH="transformer_step small_ops" (hostsample_cpu: the CPU
#      loop of bench/hostsample-cpu.py, no GPU; flax_small: the Flax/optax
#      loop of workloads/real, FLAX_DEVICE=cpu without a GPU) INPROC_VARIANTS="sampler perf
#      pyread tramp all", and torchprof: torch.profiler in its own
#      process per round beside them) INPROC_ROUNDS=2 INPROC_REPS=24 (per variant);
#      PYBENCH="small_ops transformer_step" ROUNDS=2 REPS=3
#      VARIANTS=record_nohost (record_tramp: the trampolines on too);
#      CROSS=0 skips part 2. RECORD_ARGS: more `record` options for the
#      in-process runs (e.g. "--host-sampling 250"). Writes OUT/host-sampling-cost.tar.gz (logs,
#      databases' host rows, both tables) and prints the short table last.
set -u
BUDGET_S=${BUDGET_S:-200}
GPUSCOPE=${GPUSCOPE:-.gpu/build/gpuscope}
[ -x "$GPUSCOPE" ] || GPUSCOPE=build/gpuscope
export GPUSCOPE BIN PYTHON
BIN=${BIN:-.gpu/bin}
PYTHON=${PYTHON:-python3}
OUT=${OUT:-/tmp/host-sampling-cost-out}
WORKDIR=${WORKDIR:-/tmp/host-sampling-cost}
INPROC_BENCH=${INPROC_BENCH:-transformer_step small_ops}
INPROC_VARIANTS=${INPROC_VARIANTS:-sampler perf pyread tramp all}
INPROC_ROUNDS=${INPROC_ROUNDS:-2}
INPROC_REPS=${INPROC_REPS:-24}
T=${TIMEOUT_S:-120}
mkdir -p "$OUT" "$WORKDIR/inproc"
rm -f "$WORKDIR"/inproc/*
START=$SECONDS
say() { echo "host-sampling-cost: $*" >&2; }

PIN=${PIN-2-9}
[ "$(nproc)" -ge 12 ] || PIN=
PINCMD=()
[ -n "$PIN" ] && command -v taskset >/dev/null && PINCMD=(taskset -c "$PIN")
say "gpuscope '$GPUSCOPE', python '$PYTHON', CPUs '${PIN:-not pinned}', budget ${BUDGET_S} s"

# host_row DB: "samples lost cost_ns ns_per_sample mechanism" of the
# program's (the busiest) host_sampling row
host_row() {
	"$PYTHON" - "$1" <<'EOF' 2>/dev/null || echo "NA NA NA NA NA"
import sqlite3, sys
c = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
r = c.execute("select h.samples, h.lost, h.cost_ns, coalesce(s.value, '') from host_sampling h "
              "left join strings s on s.id = h.mechanism_id order by h.samples desc limit 1").fetchone()
if not r:
    print("NA NA NA NA NA")
else:
    print(r[0], r[1], r[2], round(r[2] / r[0]) if r[0] else "NA", r[3] or "-")
EOF
}

# 1. in-process
# torchprof_cell W ROUND CMD: one process of W with torch.profiler as the
# switched tracer; its ABBA line joins blocks.txt as variant torchprof
torchprof_cell() {
	local w=$1 r=$2 cmd=$3 log
	log="$WORKDIR/inproc/$w.$r.torchprof.log"
	# shellcheck disable=SC2086 # cmd is words
	timeout "$T" "${PINCMD[@]}" "$PYTHON" $cmd --reps "$INPROC_REPS" --inproc-torch >"$log" 2>&1 ||
		say "in-process torch.profiler $w round $r exited $?, see $log"
	sed -n 's/^INPROC name=\([a-z_]*\) ratio=\([0-9.]*\) on_median=\([0-9.]*\) off_median=\([0-9.]*\) .* quad_min=\([0-9.]*\) quad_max=\([0-9.]*\).*/\1 torchprof \2 \3 \4 \5 \6/p' \
		"$log" >>"$WORKDIR/inproc/blocks.txt"
}
inproc_cmd() {
	local w=$1
	case $w in
	transformer_step) echo "workloads/pytorch/transformer_step.py --steps ${INPROC_STEPS:-10}" ;;
	small_ops) echo "workloads/pytorch/small_ops.py --steps ${INPROC_STEPS:-500}" ;;
	healthy_train) echo "workloads/pytorch/healthy_train.py --steps ${INPROC_STEPS:-3}" ;;
	hostsample_cpu) echo "bench/hostsample-cpu.py --steps ${INPROC_STEPS:-3000}" ;;
	flax_small) echo "workloads/real/flax_small.py --steps ${INPROC_STEPS:-500}${FLAX_DEVICE:+ --device $FLAX_DEVICE}" ;;
	esac
}
# torchprof is not a host_switch variant: a process of its own per round,
# not under record, torch.profiler (CPU+CUDA) on in the "on" repetitions
# (zoo_common's --inproc-torch), beside the record processes in one run
read -r -a all_iv <<<"$INPROC_VARIANTS"
iv=() torchprof=0
for v in "${all_iv[@]}"; do
	if [ "$v" = torchprof ]; then torchprof=1; else iv+=("$v"); fi
done
n_iv=${#iv[@]}
for r in $(seq "$INPROC_ROUNDS"); do
	for w in $INPROC_BENCH; do
		if [ $((SECONDS - START)) -ge "$BUDGET_S" ]; then
			say "past the budget: in-process $w round $r skipped"
			continue
		fi
		cmd=$(inproc_cmd "$w")
		[ -n "$cmd" ] || { say "unknown INPROC_BENCH workload '$w'"; continue; }
		# the order alternates by round: torch.profiler's process first in odd rounds
		if [ "$torchprof" = 1 ] && [ $((r % 2)) = 1 ]; then torchprof_cell "$w" "$r" "$cmd"; fi
		if [ "$n_iv" = 0 ]; then
			if [ "$torchprof" = 1 ] && [ $((r % 2)) = 0 ]; then torchprof_cell "$w" "$r" "$cmd"; fi
			continue
		fi
		list=
		for ((i = 0; i < n_iv; i++)); do
			list="$list${list:+,}${iv[$(((i + r - 1) % n_iv))]}"
		done
		log="$WORKDIR/inproc/$w.$r.log" db="$WORKDIR/inproc/$w.$r.db"
		rm -f "$db"
		# shellcheck disable=SC2086 # cmd and RECORD_ARGS are words
		PYTHONPERFSUPPORT=1 GPUSCOPE_HOST_SWITCH="$WORKDIR/inproc/switch" timeout "$T" \
			"${PINCMD[@]}" "$GPUSCOPE" record ${RECORD_ARGS:-} -o "$db" -- "$PYTHON" $cmd \
			--reps "$INPROC_REPS" --inproc-host "$list" >"$log" 2>&1 ||
			say "in-process $w round $r exited $?, see $log"
		read -r hs hl hc hns hm <<<"$(host_row "$db")"
		# "workload variant ratio on off quad_min quad_max" per ABBA block
		sed -n 's/^INPROC name=\([a-z_]*\):\([a-z]*\) ratio=\([0-9.]*\) on_median=\([0-9.]*\) off_median=\([0-9.]*\) .* quad_min=\([0-9.]*\) quad_max=\([0-9.]*\).*/\1 \2 \3 \4 \5 \6 \7/p' \
			"$log" >>"$WORKDIR/inproc/blocks.txt"
		echo "$w $r $hs $hl $hc $hns $hm $(grep -m1 -o 'trampolines=[a-z]*' "$log")" >>"$WORKDIR/inproc/hostrows.txt"
		"$PYTHON" workloads/count_rows.py "$db" >"$WORKDIR/inproc/$w.$r.rows" 2>&1 || true
		if [ "$torchprof" = 1 ] && [ $((r % 2)) = 0 ]; then torchprof_cell "$w" "$r" "$cmd"; fi
	done
done

median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "NA"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
inproc_table() {
	echo "in-process host sampling (ABBA in one process, CUPTI on throughout; ratio = sampled / not, median over quads per process, then over processes; ${INPROC_REPS} repetitions per variant and process)"
	printf '%-16s %-8s %7s  %-18s %10s %10s  %s\n' workload variant ratio "per process" on_s off_s "quads min-max"
	local f="$WORKDIR/inproc/blocks.txt"
	[ -s "$f" ] || { echo "(no in-process cell ran)"; return; }
	for w in $INPROC_BENCH; do
		for v in "${all_iv[@]}"; do
			grep -q "^$w $v " "$f" || continue
			printf '%-16s %-8s %7s  %-18s %10s %10s  %s\n' "$w" "$v" \
				"$(awk -v w="$w" -v v="$v" '$1 == w && $2 == v { print $3 }' "$f" | median)" \
				"$(awk -v w="$w" -v v="$v" '$1 == w && $2 == v { printf "%s ", $3 }' "$f" | sed 's/ $//')" \
				"$(awk -v w="$w" -v v="$v" '$1 == w && $2 == v { print $4 }' "$f" | median)" \
				"$(awk -v w="$w" -v v="$v" '$1 == w && $2 == v { print $5 }' "$f" | median)" \
				"$(awk -v w="$w" -v v="$v" '$1 == w && $2 == v { printf "%s%s-%s", (n++ ? " " : ""), $6, $7 }' "$f")"
		done
	done
	echo "per-sample cost (the program's host_sampling row of each in-process database; samples of the sampled halves and warm-up)"
	printf '%-16s %5s %9s %6s %12s %9s %-12s %s\n' workload round samples lost cost_ns ns/sample mechanism trampolines
	[ -f "$WORKDIR/inproc/hostrows.txt" ] &&
		awk '{ printf "%-16s %5s %9s %6s %12s %9s %-12s %s\n", $1, $2, $3, $4, $5, $6, $7, $8 }' \
			"$WORKDIR/inproc/hostrows.txt"
}
inproc_table >"$WORKDIR/inproc-table.txt"

# 2. per process (bench/record-overhead.sh: plain, record, VARIANTS)
left=$((BUDGET_S - (SECONDS - START)))
: >"$WORKDIR/cross-table.txt"
if [ "${CROSS:-1}" != 0 ] && [ "$left" -gt 10 ]; then
	say "per-process cells, ${left} s left"
	WORKDIR="$WORKDIR/cross" REPS=${REPS:-3} ROUNDS=${ROUNDS:-2} \
		VARIANTS=${VARIANTS-record_nohost} TORCHPROF=0 INPROC=0 PIN="$PIN" \
		PYBENCH=${PYBENCH-small_ops transformer_step} DEADLINE_S=$((left - 5)) \
		bash bench/record-overhead.sh >"$WORKDIR/cross-table.txt" 2>"$WORKDIR/cross-stderr.txt"
	for db in "$WORKDIR"/cross/*.db; do
		[ -f "$db" ] && echo "$(basename "$db") $(host_row "$db")"
	done >"$WORKDIR/cross-hostrows.txt"
else
	say "per-process cells skipped (CROSS=0 or ${left} s left)"
fi

{
	cat "$WORKDIR/inproc-table.txt"
	echo
	if [ -s "$WORKDIR/cross-table.txt" ]; then
		sed -n '/^record overhead/,/^spread of/p' "$WORKDIR/cross-table.txt" | sed '$d'
		echo "per-sample cost of the per-process databases: db samples lost cost_ns ns/sample mechanism"
		cat "$WORKDIR/cross-hostrows.txt"
	fi
	echo "targets with host sampling on: <= 1.03 GPU-bound, <= 1.10 host-bound (transformer_step), <= 1.5 tiny launches (small_ops, tiny_kernel_storm)"
} >"$WORKDIR/table.txt"
( cd "$WORKDIR" && tar czf "$OUT/host-sampling-cost.tar.gz" --exclude='*.db' . ) 2>/dev/null ||
	say "could not write $OUT/host-sampling-cost.tar.gz"
say "done in $((SECONDS - START)) s; logs in $OUT/host-sampling-cost.tar.gz"
cat "$WORKDIR/table.txt"
