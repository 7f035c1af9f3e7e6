#!/usr/bin/env bash
# record-overhead.sh - what `gpuscope record` costs, side by side with
# torch.profiler, in one run on the GPU machine (issue 3, item 7).
#
# Workloads: (i) a loop of tiny launches: .gpu/bin/tiny_kernel_storm (CUDA C,
# 20000 launches; torch.profiler cannot attach to it) and
# workloads/pytorch/small_ops.py (PyTorch tiny-op loop); (ii)
# workloads/pytorch/transformer_step.py (transformer training step).
# Modes: untraced, `gpuscope record`, torch.profiler (PyTorch only).
# Time measured: the workload's own timed loop (its `TIME ... loop_s=` lines,
# after warm-up, CUDA-synchronized), median of REPS samples per cell; the whole
# process wall time is shown beside it (includes start-up and DB finalize).
# Targets (issue 3): record/untraced <= 1.5 on tiny launches, <= 1.03 on the
# transformer step. Also bytes per kernel of the recorded database.
#
# Usage: bench/record-overhead.sh        (from the repo root)
# Env:   REPS=5            samples per cell (C: processes; PyTorch: --reps in one process)
#        ROUNDS=3          PyTorch: interleaved processes per mode (REPS x ROUNDS samples)
#        GPUSCOPE=build/gpuscope  BIN=.gpu/bin  PYTHON=python3
#        WORKDIR=/tmp/record-overhead (databases and logs)
#        SMALL_OPS_STEPS=2000 TRANSFORMER_STEPS=30 HEALTHY_STEPS=10
#        DEADLINE_S=N      start no cell after N s (the table covers what ran)
set -u
REPS=${REPS:-5}
ROUNDS=${ROUNDS:-3}
GPUSCOPE=${GPUSCOPE:-build/gpuscope}
BIN=${BIN:-.gpu/bin}
PYTHON=${PYTHON:-python3}
WORKDIR=${WORKDIR:-/tmp/record-overhead}
SMALL_OPS_STEPS=${SMALL_OPS_STEPS:-2000}
TRANSFORMER_STEPS=${TRANSFORMER_STEPS:-30}
HEALTHY_STEPS=${HEALTHY_STEPS:-10}
T=${TIMEOUT_S:-180}
DEADLINE_S=${DEADLINE_S:-100000} # no new cell after this many seconds
# recorder variants measured beside the default: record_all (GPUSCOPE_API=all:
# every API call gets a record), record_kind (GPUSCOPE_API=kind: the whole
# API kinds enabled, queries switched off; the default before 2026-12-02
# third session), record_work (GPUSCOPE_API=work: only calls
# that enqueue/wait/allocate), record_cb (GPUSCOPE_LAUNCH_CB=1: launch
# counting callbacks), record_guard (GPUSCOPE_GUARD_CUPTI=1: hold CUPTI's
# subscriber slot), record_nopool (GPUSCOPE_BUFPOOL=0: CUPTI zeroes fresh
# buffers in the program's thread), record_nosample (--metrics none: no
# NVML/GPM sampler); the cost breakdown by activity kind (GPUSCOPE_KINDS):
# k_none (CUPTI loaded, nothing enabled), k_none_nosample (the same without
# the NVML/GPM sampler), k_bare (CUPTI loaded through the injection and
# nothing else: no kinds, no NVML/GPM sampler, no host sampling: the floor
# of any CUPTI-based recorder), k_kernel (kernels only), k_api
# (runtime+driver API only), k_nodriver (all but driver API records);
# record_sync (CUPTI's synchronization records on: the default before
# 2026-12-02's fourth session), record_dbg (the default with GPUSCOPE_DEBUG's
# thread counts), record_f100 / record_f20 (flush every 100 / 20 ms),
# record_pinned (GPUSCOPE_CUPTI_PINNED=1), record_cfheur
# (GPUSCOPE_CUPTI_FLUSH_PERIOD_MS=0), record_nohost (--host-sampling off:
# `record` itself samples host stacks at 1 kHz since issue 17, so record
# against record_nohost is what host sampling costs; the in-process cells
# cannot show it, as the sampler runs through both halves of their ABBA:
# bench/host-sampling-cost.sh switches the sampler itself), record_tramp
# (PYTHONPERFSUPPORT=1: CPython 3.12's perf trampolines on as well, record's
# default until 2026-12-03's second session), record_calls (GPUSCOPE_API=calls:
# API records as before 2026-12-06, the driver's stream-ordering calls
# cuEventRecord / cuStreamWaitEvent / cuGraphExec*NodeSet* included),
# record_perf / record_pyread (GPUSCOPE_HOST_MECH: one host sampling mechanism
# alone), record_task (GPUSCOPE_HOST_PERF_SCOPE=task: perf's per-task events,
# record's only kind before per-CPU events of every task became the default
# where allowed), record_late (GPUSCOPE_CAPTURE=off until the script's warm-up
# is done: the script's --capture-after-warmup resumes recording, so XLA's
# compilation, autotuning and CUDA graph instantiation run untraced; flax_small
# only), plain_nocb / record_nocb (XLA_FLAGS=--xla_gpu_enable_command_buffer=:
# XLA without CUDA graphs), plain_noat / record_noat
# (XLA_FLAGS=--xla_gpu_autotune_level=0: no autotuning), record_api (API
# records only, no kernel records) and record_gtrace (the same with CUPTI's
# graph-level records: one per CUDA graph launch instead of one per node);
# VARIANTS= (empty) skips them. STORM=0 leaves tiny_kernel_storm out.
# PYBENCH="small_ops transformer_step" picks the PyTorch workloads;
# TORCHPROF=0 leaves torch.profiler out; CROSS=0 leaves the per-process cells
# out (only the in-process ones below run).
#
# In-process cells (INPROC=1, the default): the machine's process-to-process
# and minute-to-minute noise (+-20%) is larger than the effect measured, so
# the same loop is also timed traced and untraced inside one process:
# `record -- python W.py --inproc` alternates repetitions with recording off
# and on (gpuscope_capture) in ABBA order; the ratio is the median over ABBA
# quads of on-time / off-time. "Off" is CUPTI loaded with its activity kinds
# disabled; what merely loading costs is the k_none variant of the
# per-process cells. INPROC_ROUNDS processes per variant (default 3),
# INPROC_REPS repetitions (default 40) of INPROC_STEPS steps (transformer 10,
# small_ops 500); INPROC_VARIANTS picks which kinds are on in the "on"
# repetitions: default (as shipped), nodriver, kernel (kernels only), api
# (runtime+driver API only), work (GPUSCOPE_API=work), kind (GPUSCOPE_API=kind),
# discard (GPUSCOPE_DISCARD=1: CUPTI collects, gpuscope throws the buffers
# away unread: CUPTI's cost without gpuscope's), pinned
# (GPUSCOPE_CUPTI_PINNED=1: CUPTI's GPU timestamp buffers in pinned host
# memory), cflush100 / cflush1000 / cflush10000
# (GPUSCOPE_CUPTI_FLUSH_PERIOD_MS: CUPTI's worker thread woken every 0.1 / 1 /
# 10 s instead of by its heuristics, the default), cfheur (=0: the
# heuristics, set explicitly), nothread (GPUSCOPE_CUPTI_PER_THREAD=0: one
# activity buffer for all threads), torchprof (torch.profiler in the "on" repetitions, the same ABBA design,
# without record). PYBENCH may also name healthy_train (the zoo's GPU-bound
# transformer step: d_model 1024, 8 layers, batch 64 x 512; HEALTHY_STEPS,
# in-process 3 steps per repetition), beside transformer_step (host-bound);
# INPROC_BENCH (default: PYBENCH) picks the in-process workloads on their own.
VARIANTS=${VARIANTS-record_sync record_nohost}
INPROC=${INPROC:-1}
INPROC_ROUNDS=${INPROC_ROUNDS:-3}
INPROC_REPS=${INPROC_REPS:-40}
INPROC_VARIANTS=${INPROC_VARIANTS-default nodriver kernel api}
mkdir -p "$WORKDIR"

# Every cell runs under `taskset -c $PIN`, the same CPUs for every mode: on
# the H200 machine the same untraced process ran 0.28 s or 0.43 s depending on
# where it landed (bimodal across processes). PIN=auto: the GPU's NUMA-local
# CPUs (sysfs local_cpulist) when they are not all CPUs, else CPUs 2-9 of 16;
# PIN= (empty): no pinning.
PIN=${PIN-auto}
if [ "$PIN" = auto ]; then
	PIN=
	bdf=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader 2>/dev/null | head -1 |
		tr 'A-F' 'a-f' | sed 's/^0000\(....:\)/\1/')
	[ -n "$bdf" ] && [ -r "/sys/bus/pci/devices/$bdf/local_cpulist" ] &&
		PIN=$(cat "/sys/bus/pci/devices/$bdf/local_cpulist")
	all=$(cat /sys/devices/system/cpu/online 2>/dev/null)
	if [ -z "$PIN" ] || [ "$PIN" = "$all" ]; then
		n=$(nproc)
		PIN=
		[ "$n" -ge 12 ] && PIN=2-9
	fi
fi
PINCMD=()
if [ -n "$PIN" ] && command -v taskset >/dev/null; then
	PINCMD=(taskset -c "$PIN")
fi
echo "record-overhead: cells pinned to CPUs '${PIN:-none}'" >&2

now() { date +%s.%N; }

# median of numbers on stdin (one per line); NA if none
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "NA"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "NA" || b == "NA" || b == 0) print "NA"; else printf "%.3f", a / b }'; }

# run_cell TAG MODE CMD...: run CMD (MODE: plain|record|torchprof), append its
# loop_s samples to WORKDIR/TAG.MODE.loop and its wall time to .wall
# the XLA_FLAGS setting (one word) of the *_nocb / *_noat variants, nothing
# for the others
xla_flags() {
	case $1 in
	*_nocb) echo XLA_FLAGS=--xla_gpu_enable_command_buffer= ;;
	*_noat) echo XLA_FLAGS=--xla_gpu_autotune_level=0 ;;
	esac
}
run_cell() {
	local tag=$1 mode=$2
	shift 2
	if [ "$SECONDS" -ge "$DEADLINE_S" ]; then
		[ -n "${DEADLINE_SAID:-}" ] || echo "record-overhead: past DEADLINE_S=$DEADLINE_S s, later cells skipped" >&2
		DEADLINE_SAID=1
		return
	fi
	local log db="$WORKDIR/$tag.db" t0 t1 rc xf
	CELL_RUN=$((CELL_RUN + 1))
	log="$WORKDIR/$tag.$mode.$CELL_RUN.log"
	t0=$(now)
	case $mode in
	plain | torchprof | plain_nocb | plain_noat)
		xf=$(xla_flags "$mode")
		env ${xf:+"$xf"} timeout "$T" "${PINCMD[@]}" "$@" >>"$log" 2>&1 ;;
	*)
		[ "$mode" = record ] || db="$WORKDIR/$tag.$mode.db"
		rm -f "$db"
		local envs=() opts=()
		# variants log their buffer/pool counts; the default stays as shipped
		[ "$mode" = record ] || envs=(GPUSCOPE_DEBUG=1)
		case $mode in
		record_all) envs+=(GPUSCOPE_API=all) ;;
		record_kind) envs+=(GPUSCOPE_API=kind) ;;
		record_work) envs+=(GPUSCOPE_API=work) ;;
		record_cb) envs+=(GPUSCOPE_LAUNCH_CB=1) ;;
		record_guard) envs+=(GPUSCOPE_GUARD_CUPTI=1) ;;
		record_nopool) envs+=(GPUSCOPE_BUFPOOL=0) ;;
		record_nosample) opts=(--metrics none) ;;
		record_nohost) opts=(--host-sampling off) ;;
		record_tramp) envs+=(PYTHONPERFSUPPORT=1) ;;
		record_calls) envs+=(GPUSCOPE_API=calls) ;;
		record_perf) envs+=(GPUSCOPE_HOST_MECH=perf) ;;
		record_pyread) envs+=(GPUSCOPE_HOST_MECH=pyread) ;;
		record_task) envs+=(GPUSCOPE_HOST_PERF_SCOPE=task) ;;
		record_late) envs+=(GPUSCOPE_CAPTURE=off) ;; # the script resumes after its warm-up
		record_nocb | record_noat) envs+=("$(xla_flags "$mode")") ;;
		record_api) envs+=(GPUSCOPE_KINDS=device,context,runtime,driver,marker,uvm) ;;
		record_gtrace) envs+=(GPUSCOPE_KINDS=device,context,runtime,driver,marker,uvm,graph) ;;
		record_dbg) ;; # the default, with GPUSCOPE_DEBUG's counts in the log
		record_f100) envs+=(GPUSCOPE_FLUSH_MS=100) ;;
		record_f20) envs+=(GPUSCOPE_FLUSH_MS=20) ;;
		record_pinned) envs+=(GPUSCOPE_CUPTI_PINNED=1) ;;
		record_cfheur) envs+=(GPUSCOPE_CUPTI_FLUSH_PERIOD_MS=0) ;;
		record_sync) envs+=(GPUSCOPE_KINDS=device,context,kernel,memcpy,memset,runtime,driver,sync,memory,marker) ;;
		k_none) envs+=(GPUSCOPE_KINDS=none) ;;
		k_none_nosample) envs+=(GPUSCOPE_KINDS=none) opts=(--metrics none) ;;
		k_bare) envs+=(GPUSCOPE_KINDS=none) opts=(--metrics none --host-sampling off) ;;
		k_kernel) envs+=(GPUSCOPE_KINDS=device,context,kernel) ;;
		k_api) envs+=(GPUSCOPE_KINDS=device,context,runtime,driver) ;;
		k_nodriver) envs+=(GPUSCOPE_KINDS=device,context,kernel,memcpy,memset,runtime,sync,memory,marker) ;;
		esac
		env "${envs[@]}" timeout "$T" "${PINCMD[@]}" "$GPUSCOPE" record "${opts[@]}" -o "$db" -- "$@" >>"$log" 2>&1
		;;
	esac
	rc=$?
	t1=$(now)
	[ $rc -eq 0 ] || echo "record-overhead: '$tag' ($mode) exited $rc, see $log" >&2
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$WORKDIR/$tag.$mode.wall"
	sed -n 's/^TIME .* loop_s=\([0-9.]*\).*/\1/p' "$log" >>"$WORKDIR/$tag.$mode.loop"
	sed -n "s/^TIME .* loop_s=\([0-9.]*\).*/$ROUND \1/p" "$log" >>"$WORKDIR/$tag.$mode.rloop"
}

# paired TAG MODE: the median over rounds of (MODE's median / plain's median
# in the same round). The rounds interleave the modes, so drift of the
# machine over the run cancels out of each round's ratio.
paired() {
	[ -f "$WORKDIR/$1.$2.rloop" ] && [ -f "$WORKDIR/$1.plain.rloop" ] || { echo NA; return; }
	awk 'function med(s,   n, a, i, j, t) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	FNR == 1 { f++ }
	f == 1 { p[$1] = p[$1] " " $2 }
	f == 2 { m[$1] = m[$1] " " $2 }
	END {
		q = ""
		for (r in m) if (r in p) { x = med(p[r]); if (x > 0) q = q " " med(m[r]) / x }
		if (q == "") print "NA"; else printf "%.3f\n", med(q)
	}' "$WORKDIR/$1.plain.rloop" "$WORKDIR/$1.$2.rloop"
}

rm -f "$WORKDIR"/*.loop "$WORKDIR"/*.rloop "$WORKDIR"/*.wall "$WORKDIR"/*.log "$WORKDIR"/*.db
CELL_RUN=0
ROUND=0

# (i-a) CUDA C tiny launches: one sample per process
if [ "${STORM:-1}" = 0 ]; then
	:
elif [ -x "$BIN/tiny_kernel_storm" ]; then
	for ROUND in $(seq "$REPS"); do
		for mode in plain record $VARIANTS; do
			run_cell tiny_kernel_storm "$mode" "$BIN/tiny_kernel_storm"
		done
	done
else
	echo "record-overhead: '$BIN/tiny_kernel_storm' missing (run workloads/build-zoo.sh)" >&2
fi

# (i-b), (ii) PyTorch: REPS timed repetitions inside one process per mode
# ROUNDS processes per mode, interleaved (plain, record, variants, torchprof;
# then record, variants, torchprof, plain; ...), each timing REPS repetitions: the device's process-to-process
# noise (+-20% measured) then hits every mode alike
# the script of a workload: the PyTorch zoo's, or workloads/real/ for the JAX ones
script_of() {
	case $1 in
	flax_small) echo workloads/real/flax_small.py ;;
	*) echo "workloads/pytorch/$1.py" ;;
	esac
}
is_jax() { [ "$1" = flax_small ]; }
py_cells() {
	local tag=$1 steps=$2 script r
	script=$(script_of "$1")
	local a=(--steps "$steps" --reps "$REPS")
	[ "$tag" = flax_small ] && [ "${FLAX_DEVICE:-cuda}" = cpu ] && a+=(--device cpu)
	local modes=(plain record $VARIANTS) n i m
	# torch.profiler only on PyTorch programs
	[ "${TORCHPROF:-1}" = 0 ] || is_jax "$tag" || modes+=(torchprof)
	n=${#modes[@]}
	for r in $(seq "$ROUNDS"); do
		ROUND=$r
		# the order rotates from round to round: no mode always goes first
		for ((i = 0; i < n; i++)); do
			m=${modes[$(((i + r - 1) % n))]}
			if [ "$m" = torchprof ]; then
				run_cell "$tag" torchprof "$PYTHON" "$script" "${a[@]}" --torch-profiler
			elif [ "$m" = record_late ]; then
				run_cell "$tag" "$m" "$PYTHON" "$script" "${a[@]}" --capture-after-warmup
			else
				run_cell "$tag" "$m" "$PYTHON" "$script" "${a[@]}"
			fi
		done
	done
}
HAVE_TORCH=0
"$PYTHON" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null && HAVE_TORCH=1
HAVE_JAX=0
# FLAX_DEVICE=cpu: the Flax cells on JAX's CPU backend (a machine without a
# GPU: what host sampling costs a JAX process there)
if [ "${FLAX_DEVICE:-cuda}" = cpu ]; then
	JAX_PLATFORMS=cpu "$PYTHON" -c 'import jax, flax, optax' 2>/dev/null && HAVE_JAX=1
else
	"$PYTHON" -c 'import jax, flax, optax; assert jax.default_backend() == "gpu"' 2>/dev/null && HAVE_JAX=1
fi
# JAXBENCH="flax_small": the Flax/optax loop of small steps (issue 35 item 4),
# per-process cells like the PyTorch ones (FLAX_STEPS steps a repetition)
FLAX_STEPS=${FLAX_STEPS:-500}
if [ "$HAVE_JAX" = 1 ] && [ "${CROSS:-1}" != 0 ]; then
	for w in ${JAXBENCH-}; do
		case $w in
		flax_small) py_cells flax_small "$FLAX_STEPS" ;;
		*) echo "record-overhead: unknown JAXBENCH workload '$w'" >&2 ;;
		esac
	done
fi
if [ "$HAVE_TORCH" = 1 ] && [ "${CROSS:-1}" != 0 ]; then
	for w in ${PYBENCH-small_ops transformer_step}; do
		case $w in
		small_ops) py_cells small_ops "$SMALL_OPS_STEPS" ;;
		transformer_step) py_cells transformer_step "$TRANSFORMER_STEPS" ;;
		healthy_train) py_cells healthy_train "$HEALTHY_STEPS" ;;
		*) echo "record-overhead: unknown PYBENCH workload '$w'" >&2 ;;
		esac
	done
elif [ "$HAVE_TORCH" = 0 ]; then
	echo "record-overhead: no CUDA PyTorch under '$PYTHON', PyTorch cells skipped" >&2
fi

# in-process cells: WORKDIR/TAG.inproc.VARIANT holds one line per process:
# "ratio on_median off_median quad_min quad_max"
inproc_cell() {
	local tag=$1 steps=$2 v=$3 log kinds= envs=()
	if [ "$SECONDS" -ge "$DEADLINE_S" ]; then
		echo "record-overhead: past DEADLINE_S=$DEADLINE_S s, in-process cell $tag/$v skipped" >&2
		return
	fi
	case $v in
	default) ;;
	nodriver) kinds=device,context,kernel,memcpy,memset,runtime,memory,marker ;;
	kernel) kinds=device,context,kernel ;;
	api) kinds=device,context,runtime,driver ;;
	work) envs=(GPUSCOPE_API=work) ;;
	torchprof) ;; # torch.profiler in the "on" repetitions, no record
	discard) envs=(GPUSCOPE_DISCARD=1) ;;
	kind) envs=(GPUSCOPE_API=kind) ;;
	pinned) envs=(GPUSCOPE_CUPTI_PINNED=1) ;;
	cflush1000) envs=(GPUSCOPE_CUPTI_FLUSH_PERIOD_MS=1000) ;;
	cflush100) envs=(GPUSCOPE_CUPTI_FLUSH_PERIOD_MS=100) ;;
	cflush10000) envs=(GPUSCOPE_CUPTI_FLUSH_PERIOD_MS=10000) ;;
	cfheur) envs=(GPUSCOPE_CUPTI_FLUSH_PERIOD_MS=0) ;;
	nothread) envs=(GPUSCOPE_CUPTI_PER_THREAD=0) ;;
	*) echo "record-overhead: unknown INPROC_VARIANTS entry '$v'" >&2; return ;;
	esac
	CELL_RUN=$((CELL_RUN + 1))
	log="$WORKDIR/$tag.inproc-$v.$CELL_RUN.log"
	rm -f "$WORKDIR/$tag.inproc.db"
	local a=(--steps "$steps" --reps "$INPROC_REPS") script
	script=$(script_of "$tag")
	if [ "$v" = torchprof ]; then
		timeout "$T" "${PINCMD[@]}" "$PYTHON" "$script" "${a[@]}" \
			--inproc-torch >>"$log" 2>&1
	else
		env ${kinds:+GPUSCOPE_KINDS=$kinds} "${envs[@]}" timeout "$T" "${PINCMD[@]}" \
			"$GPUSCOPE" record -o "$WORKDIR/$tag.inproc.db" -- \
			"$PYTHON" "$script" "${a[@]}" --inproc >>"$log" 2>&1
	fi || echo "record-overhead: in-process cell $tag/$v failed, see $log" >&2
	sed -n 's/^INPROC .* ratio=\([0-9.]*\) on_median=\([0-9.]*\) off_median=\([0-9.]*\) .* quad_min=\([0-9.]*\) quad_max=\([0-9.]*\).*/\1 \2 \3 \4 \5/p' \
		"$log" >>"$WORKDIR/$tag.inproc.$v"
}
rm -f "$WORKDIR"/*.inproc.*
if [ "$INPROC" != 0 ]; then
	for w in ${INPROC_BENCH-${PYBENCH-small_ops transformer_step}}; do
		if is_jax "$w"; then
			[ "$HAVE_JAX" = 1 ] || continue
		elif [ "$HAVE_TORCH" != 1 ]; then
			continue
		fi
		case $w in
		flax_small) st=${INPROC_STEPS:-200} ;;
		small_ops) st=${INPROC_STEPS:-500} ;;
		transformer_step) st=${INPROC_STEPS:-10} ;;
		healthy_train) st=${INPROC_STEPS:-3} ;;
		*) continue ;;
		esac
		# variants interleaved within each round, as the per-process cells,
		# the order rotating from round to round: in the seventh session's
		# two calls, whichever variant ran first in every round came out
		# dearest (1.081 and 1.098 against 1.034-1.073)
		read -r -a iv <<<"$INPROC_VARIANTS"
		for r in $(seq "$INPROC_ROUNDS"); do
			for ((i = 0; i < ${#iv[@]}; i++)); do
				inproc_cell "$w" "$st" "${iv[$(((i + r - 1) % ${#iv[@]}))]}"
			done
		done
	done
fi

# bytes per kernel of a recorded database
bytes_per_kernel() {
	local db=$1 k sz
	[ -f "$db" ] || { echo "NA NA NA"; return; }
	sz=$(stat -c %s "$db")
	k=$("$PYTHON" workloads/count_rows.py "$db" 2>/dev/null | sed -n 's/.*kernels=\([0-9]*\).*/\1/p')
	[ -n "$k" ] || k=NA
	echo "$sz $k $(ratio "$sz" "$k")"
}

echo
echo "record overhead (median of $REPS (C) / $REPS x $ROUNDS (PyTorch); loop = the workload's timed loop, wall = whole process; CPUs ${PIN:-not pinned})"
echo "(rec/untr, prof/untr: ratio of the medians; rec_pr, prof_pr, paired: median over rounds of the ratio within a round)"
printf '%-18s %10s %10s %10s %8s %8s %7s %7s %9s %9s %10s %8s\n' workload untr_loop rec_loop \
	prof_loop rec/untr prof/untr rec_pr prof_pr untr_wall rec_wall db_bytes B/kernel
for tag in tiny_kernel_storm small_ops transformer_step healthy_train flax_small; do
	[ -f "$WORKDIR/$tag.plain.wall" ] || continue
	u=$(median <"$WORKDIR/$tag.plain.loop")
	r=$(median <"$WORKDIR/$tag.record.loop" 2>/dev/null || echo NA)
	p=NA
	[ -f "$WORKDIR/$tag.torchprof.loop" ] && p=$(median <"$WORKDIR/$tag.torchprof.loop")
	uw=$(median <"$WORKDIR/$tag.plain.wall")
	rw=$(median <"$WORKDIR/$tag.record.wall" 2>/dev/null || echo NA)
	read -r sz _ bpk <<<"$(bytes_per_kernel "$WORKDIR/$tag.db")"
	printf '%-18s %10s %10s %10s %8s %8s %7s %7s %9.3f %9s %10s %8s\n' "$tag" "$u" "$r" "$p" \
		"$(ratio "$r" "$u")" "$(ratio "$p" "$u")" "$(paired "$tag" record)" \
		"$(paired "$tag" torchprof)" "$uw" "$rw" "$sz" "$bpk"
done
for tag in tiny_kernel_storm small_ops transformer_step healthy_train flax_small; do
	[ -f "$WORKDIR/$tag.plain.wall" ] || continue
	u=$(median <"$WORKDIR/$tag.plain.loop")
	for mode in $VARIANTS; do
		[ -f "$WORKDIR/$tag.$mode.loop" ] || continue
		v=$(median <"$WORKDIR/$tag.$mode.loop")
		read -r sz _ bpk <<<"$(bytes_per_kernel "$WORKDIR/$tag.$mode.db")"
		printf 'variant %-18s %-15s loop %10s ratio %7s paired %7s db_bytes %9s B/kernel %7s\n' \
			"$tag" "$mode" "$v" "$(ratio "$v" "$u")" "$(paired "$tag" "$mode")" "$sz" "$bpk"
	done
done
# a 95% interval for each ratio, the rounds (processes) resampled: loops of
# one process move together, so their count overstates what is known
echo "ci95 (rec/untr and the variants' ratio of medians, 2.5-97.5th percentiles of 2000 draws of the rounds: bench/ratio-ci.py)"
for tag in tiny_kernel_storm small_ops transformer_step healthy_train flax_small; do
	[ -f "$WORKDIR/$tag.plain.rloop" ] || continue
	for mode in record $VARIANTS; do
		[ -f "$WORKDIR/$tag.$mode.rloop" ] || continue
		read -r cr clo chi cn <<<"$(python3 -S "$(dirname "$0")/ratio-ci.py" \
			"$WORKDIR/$tag.plain.rloop" "$WORKDIR/$tag.$mode.rloop")"
		printf 'ci95 %-18s %-15s ratio %6s  95%% %6s-%-6s rounds %s\n' "$tag" "$mode" \
			"$cr" "${clo:-NA}" "${chi:-NA}" "${cn:-NA}"
	done
done
# spread: min, quartiles and the quartile ratios; on the H200 machine the
# untraced loop itself moves by +-20% between repetitions of one process
quartiles() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "NA NA NA NA"; exit }
		printf "%s %s %s %s\n", v[1], v[int((NR + 3) / 4)], v[int((NR + 1) / 2)], v[int((3 * NR + 3) / 4)] }'
}
echo "spread of the timed loops (s): min q1 median q3 per mode; rec_min = record min / untraced min, rec_q1 likewise"
for tag in tiny_kernel_storm small_ops transformer_step healthy_train flax_small; do
	[ -f "$WORKDIR/$tag.plain.loop" ] || continue
	read -r umin uq1 _ _ <<<"$(quartiles <"$WORKDIR/$tag.plain.loop")"
	line="spread $tag"
	for mode in plain record torchprof; do
		[ -f "$WORKDIR/$tag.$mode.loop" ] || continue
		line="$line $mode $(quartiles <"$WORKDIR/$tag.$mode.loop" | tr ' ' '/')"
	done
	if [ -f "$WORKDIR/$tag.record.loop" ]; then
		read -r rmin rq1 _ _ <<<"$(quartiles <"$WORKDIR/$tag.record.loop")"
		line="$line rec_min $(ratio "$rmin" "$umin") rec_q1 $(ratio "$rq1" "$uq1")"
	fi
	if [ -f "$WORKDIR/$tag.torchprof.loop" ]; then
		read -r pmin pq1 _ _ <<<"$(quartiles <"$WORKDIR/$tag.torchprof.loop")"
		line="$line prof_min $(ratio "$pmin" "$umin") prof_q1 $(ratio "$pq1" "$uq1")"
	fi
	echo "$line"
done
if ls "$WORKDIR"/*.inproc.* >/dev/null 2>&1; then
	echo "in-process (recording on / off in ABBA repetitions of one process; ratio: median over quads; per process in brackets)"
	for tag in tiny_kernel_storm small_ops transformer_step healthy_train flax_small; do
		for v in $INPROC_VARIANTS; do
			f="$WORKDIR/$tag.inproc.$v"
			[ -s "$f" ] || continue
			printf 'inproc %-18s %-9s ratio %s (%s) on %s off %s quads %s\n' "$tag" "$v" \
				"$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f1 "$f" | tr '\n' ' ' | sed 's/ $//')" \
				"$(cut -d' ' -f2 "$f" | median)" "$(cut -d' ' -f3 "$f" | median)" \
				"$(awk '{ printf "%s%s-%s", (NR > 1 ? " " : ""), $4, $5 }' "$f")"
		done
	done
fi
# the Flax row's processes (issue 35 item 4): context switches per step and
# threads (flax_small's CTX lines), and what each recording holds per timed
# step: kernels, API calls, the driver's stream-ordering calls (left out by
# the default GPUSCOPE_API=lean, kept by record_calls), host samples
if [ -f "$WORKDIR/flax_small.plain.wall" ]; then
	echo "flax_small per mode: context switches a step (median over repetitions), threads; per recording: rows a timed step"
	for mode in plain record $VARIANTS; do
		ls "$WORKDIR"/flax_small."$mode".*.log >/dev/null 2>&1 || continue
		cs=$(cat "$WORKDIR"/flax_small."$mode".*.log | awk -v s="$FLAX_STEPS" \
			'/^CTX name=flax_small/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			 print (v["vcsw"] + v["ivcsw"]) / s, v["vcsw"] / s, v["threads"] }' |
			sort -g | awk '{ a[NR] = $0 } END { if (NR) print a[int((NR + 1) / 2)]; else print "NA NA NA" }')
		db="$WORKDIR/flax_small.$mode.db"
		[ "$mode" = record ] && db="$WORKDIR/flax_small.db"
		rows=NA
		[ -f "$db" ] && rows=$("$PYTHON" - "$db" "$((FLAX_STEPS * REPS))" <<'PYEOF' 2>/dev/null
import sqlite3, sys
c = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
n = int(sys.argv[2]) or 1
q = lambda s: c.execute(s).fetchone()[0]
order = q("SELECT count(*) FROM api_calls a JOIN strings s ON s.id = a.name_id WHERE "
          "s.value LIKE 'cuEventRecord%' OR s.value LIKE 'cuStreamWaitEvent%' OR "
          "(s.value LIKE 'cuGraphExec%' AND s.value LIKE '%NodeSet%')")
try:
    hs = q("SELECT count(*) FROM host_samples")
except sqlite3.Error:
    hs = 0
print(f"kernels {q('SELECT count(*) FROM kernels') / n:.1f} api {q('SELECT count(*) FROM api_calls') / n:.1f} "
      f"ordering {order / n:.1f} host_samples {hs}")
PYEOF
)
		read -r c1 c2 th <<<"$cs"
		printf 'flax_small %-14s switches/step %6s (voluntary %s) threads %4s  %s\n' "$mode" "$c1" "$c2" "$th" "${rows:-NA}"
	done
fi
echo "targets: rec/untr <= 1.5 (tiny launches), <= 1.03 (transformer_step), <= 1.10 (flax_small, host-bound); torch.profiler before: 7.9x, 2.6x"
