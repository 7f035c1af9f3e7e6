#!/usr/bin/env bash
# run-session-h200.sh - every H200 stage this session's issues need, in one
# device call of at most 10 minutes (the device time is shared):
#   bash workloads/run-session-h200.sh       (repo root; carry .gpu and .whl)
# Binaries built here and carried: .gpu/build/{gpuscope,libgpuscope-inject.so,
# libgpuscope-preload.so,bench_hostsample_probe}, .gpu/bin (workloads/build-zoo.sh).
# Each stage runs under its own budget and timeout and writes one tar.gz
# under $OUT; a stage that fails is logged and the next one runs. The
# stages' own tables are printed last.
# Read-only towards the card: no clock, power, persistence, MIG or reset commands.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export GPUSCOPE=$PWD/.gpu/build/gpuscope BIN=$PWD/.gpu/bin PATH="/usr/local/cuda/bin:$PATH"
LOG=$OUT/session.log
: >"$LOG"
tables=/tmp/session-tables.txt
: >"$tables"
SKIP=${SESSION_SKIP:-}
# SESSION_STAGES picks the stages (default: the first session's set); the
# budgets below are each stage's share of one 10-minute call. The tracked
# tree is ~65 MB: run scripts/device-slim.sh on before a call (carry .gpu,
# ~5.5 MB stripped, without the bench binaries) and off after it. Done on an
# H100 (2026-12-06 and -07, closing notes): sameresult for all 56 programs,
# servecost, jaxcost (record's variants per process and CUPTI's kinds in one
# process), the real stage's contention, attention and DDP programs; on
# 2026-12-07 (H100) workloads/flax-cost-on-gpu.sh with FC_SCOPES=cpu (Flax per
# process, 9 rounds, and the sampler's cost in one process), the uvm stage (the
# counters recorded since record waits for CUPTI) and torch_optim_loop; later
# that day workloads/periodic-and-flax-on-gpu.sh (torch_ckpt_every, the uvm
# stage with the counters polled for, the Flax variants per process: capture
# after XLA's warm-up, no command buffers, graph-level records); the third
# session of 2026-12-07 (H200): workloads/speed-and-flax-on-gpu.sh (Flax, 18
# rounds of the two modes: 1.232; the speed stage needs transformer_step.json.gz
# carried when device-slim is on), bench/speed-on-gpu.sh on 2 and 8 CPUs with
# HTA, workloads/padding-on-gpu.sh (hf_bert_padded and the speed A/B against
# 408aed6). Still owed:
#   what costs the Flax loop ~10% per process beyond CUPTI's records and the
#     reader (workloads/README.md, Flax, fifth run), and in one process with
#     perf's task scope (FC_SCOPES=task)
#   hf_bert_padded with pad_to_multiple_of (not written yet), and the speed
#     targets once the analysis is split further (bench/README-report-speed.md 19)
# A jaxrace stage (jax_shapes) wants STEPS2=6 to fit.
STAGES=${SESSION_STAGES:-counters monitor zoo real hostsample vram}
want() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }

# stage NAME SECONDS CMD...: runs CMD with BUDGET_S=SECONDS under a hard
# timeout of SECONDS+10, keeps the last 25 lines of its output for the end
stage() {
	local name=$1 secs=$2 t0 rc
	shift 2
	case " $SKIP " in *" $name "*) echo "== $name skipped" >>"$tables"; return ;; esac
	t0=$SECONDS
	echo "[session +${SECONDS}s] $name (budget ${secs}s)" | tee -a "$LOG" >&2
	BUDGET_S=$secs timeout $((secs + 10)) "$@" >"/tmp/stage-$name.out" 2>&1
	rc=$?
	echo "[session +${SECONDS}s] $name rc=$rc in $((SECONDS - t0))s" | tee -a "$LOG" >&2
	{
		echo "== $name rc=$rc $((SECONDS - t0))s"
		tail -"${TAIL_LINES:-25}" "/tmp/stage-$name.out"
	} >>"$tables"
	cat "/tmp/stage-$name.out" >>"$LOG"
}

if [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
	python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
		--target /tmp/site .whl/*.whl >>"$LOG" 2>&1 && export PYTHONPATH=/tmp/site
fi

# CPU-only benches pinned to two cores of their own, beside the GPU stages
# (report's speed on an idle 2-core machine, #25; SPEED_CPUS2 a second set:
# bench/speed-on-gpu.sh), started first so that it runs beside all of them
want speed && [ -f bench/speed-on-gpu.sh ] &&
	(stage speed "${SPEED_S:-240}" env SPEED_CPUS="${SPEED_CPUS:-14,15}" bash bench/speed-on-gpu.sh) &
# issue 17's record crash cases (hf_decode, torchrun ranks, torch capture)
# with gpuscope's crash report, the NVTX names torch writes, hf_decode's report
want crash && stage crash "${CRASH_S:-120}" env REPS="${CRASH_REPS:-2}" bash workloads/crash/hunt-on-gpu.sh
# record --metrics pm (issue 18): PM windows of the zoo's signatures and a matmul loop
want pm && [ -f workloads/pm-on-gpu.sh ] && stage pm "${PM_S:-150}" bash workloads/pm-on-gpu.sh
# serve's CPU and RSS with the real NVML (issue 19), beside the next stage when
# SERVECOST_BG=1 (its PyTorch tenant then shares the GPU with that stage's runs)
if want servecost; then
	sc=${SERVECOST_SCRIPT:-workloads/serve-cost-on-gpu.sh}
	if [ "${SERVECOST_BG:-0}" = 1 ]; then
		(GPUSCOPE=${SERVECOST_GPUSCOPE:-$GPUSCOPE} stage servecost "${SERVECOST_S:-170}" bash "$sc") &
	else
		GPUSCOPE=${SERVECOST_GPUSCOPE:-$GPUSCOPE} stage servecost "${SERVECOST_S:-170}" bash "$sc"
	fi
fi
# issue 35 item 1: the JAX failure's decisive runs (round 2: XLA's pinned
# memset race, the host-free guard, autotune level 3, the C repro's modes),
# then every program untraced and recorded, results compared
want jaxrace && stage jaxrace "${JAXRACE_S:-330}" env JAXPROBE_ROUND=2 bash workloads/jax-record-probe.sh
want sameresult && stage sameresult "${SAMERESULT_S:-240}" env ONLY="${SAMERESULT_ONLY:-}" \
	bash workloads/same-result-on-gpu.sh
# docs/causes.md row 19: bandwidth_stream (301 kernels of ~100 us) with
# CUDA_LAUNCH_BLOCKING=1 and without; report's blocking_launches warning
want launchblock && stage launchblock "${LAUNCHBLOCK_S:-40}" bash -c '
	W=/tmp/launchblock; rm -rf "$W"; mkdir -p "$W"
	CUDA_LAUNCH_BLOCKING=1 timeout 30 "$GPUSCOPE" record --force --no-progress -o "$W/blocking.db" \
		-- "$BIN/bandwidth_stream" >"$W/blocking.out" 2>&1
	timeout 30 "$GPUSCOPE" record --force --no-progress -o "$W/async.db" \
		-- "$BIN/bandwidth_stream" >"$W/async.out" 2>&1
	for n in blocking async; do
		"$GPUSCOPE" report "$W/$n.db" >"$W/$n.txt" 2>&1
		"$GPUSCOPE" report --format json "$W/$n.db" >"$W/$n.json" 2>&1
		echo "== $n: $(grep -c blocking_launches "$W/$n.json") blocking_launches; meta:" \
			"$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select group_concat(value) from meta where key = ?\", (\"cuda_launch_blocking\",)).fetchone()[0])" "$W/$n.db" 2>&1)"
		grep -i -A2 "launches of" "$W/$n.txt" | head -4
	done
	tar czf "$OUT/launchblock.tar.gz" -C "$W" .'
# issue 39: the optimizers' states and step temporaries (AdamW foreach and
# fused, bitsandbytes 8-bit and paged, Adafactor, SGD); carry .whl (fetch-bnb.sh)
# issue 36 item 3: unified memory recorded (managed_faults, cupy_managed) and
# the uvm kind's cost on a program without managed memory
want uvm && stage uvm "${UVM_S:-70}" bash workloads/uvm-on-gpu.sh
want vramoptim && stage vramoptim "${VRAMOPTIM_S:-200}" bash workloads/vram/run-optim-on-gpu.sh
want counters && stage counters 75 env MODES=launch bash workloads/counters/run-on-gpu.sh
want monitor && [ -f workloads/monitor-on-gpu.sh ] && stage monitor 55 bash workloads/monitor-on-gpu.sh
want zoo && stage zoo 55 env SKIP="occupancy pytorch conflict robust capture procs bench" \
	bash workloads/run-on-gpu.sh
# the zoo's exact counts and the process trees, with record's defaults
# (host sampling on): issue 17's "counts stay exact"
want zoo_procs && stage zoo_procs 70 env SKIP="occupancy pytorch conflict robust capture bench" \
	bash workloads/run-on-gpu.sh
# REAL_ONLY="name ..." (run-on-gpu-real.sh's ONLY) picks programs
want real && [ -f workloads/real/run-on-gpu-real.sh ] &&
	stage real "${REAL_S:-175}" env ONLY="${REAL_ONLY:-}" PACK_MAX_MIB="${REAL_PACK_MIB:-90}" \
		bash workloads/real/run-on-gpu-real.sh
# host samples make the recordings larger: what comes back is at most
# 16 MiB a file, so the archive travels in 15 MiB parts (cat real.tar.gz.* | tar xz)
if [ -f "$OUT/real.tar.gz" ] && [ "$(stat -c %s "$OUT/real.tar.gz")" -gt $((15 * 1024 * 1024)) ]; then
	split -b 15M -d "$OUT/real.tar.gz" "$OUT/real.tar.gz." && rm -f "$OUT/real.tar.gz"
fi
# record's overhead beside torch.profiler (issue 17 item 5): the GPU-bound
# step, the host-bound step and the tiny-launch loops, host sampling on
# (record) and off (record_nohost); torch.profiler in and across processes
want overhead && stage overhead "${OVERHEAD_S:-130}" bash -c '
	mkdir -p "$OUT/overhead-tmp"
	DEADLINE_S=$((BUDGET_S - 25)) TIMEOUT_S=60 REPS=${OV_REPS:-3} ROUNDS=${OV_ROUNDS:-1} \
		PYBENCH="${OV_PYBENCH:-small_ops transformer_step healthy_train}" VARIANTS="${OV_VARIANTS:-record_nohost}" \
		TORCHPROF=${OV_TORCHPROF:-1} \
		INPROC=${OV_INPROC:-1} INPROC_ROUNDS=1 INPROC_REPS=20 INPROC_VARIANTS="default torchprof" \
		GPUSCOPE=$GPUSCOPE BIN=$BIN WORKDIR=/tmp/record-overhead \
		bash bench/record-overhead.sh >"$OUT/overhead-tmp/record-overhead.txt" 2>&1
	rc=$?
	tail -40 "$OUT/overhead-tmp/record-overhead.txt"
	tar czf "$OUT/overhead.tar.gz" -C "$OUT/overhead-tmp" . && rm -rf "$OUT/overhead-tmp"
	exit $rc'
# issue 35 item 4: record's cost on the Flax/optax loop of small steps
# (workloads/real/flax_small.py), medians of JC_ROUNDS interleaved processes
# per mode, JC_REPS repetitions of JC_STEPS steps each: untraced, record's
# default (API records without the driver's stream-ordering calls:
# GPUSCOPE_API=lean), record_calls (GPUSCOPE_API=calls: the API selection
# before), record_nohost (--host-sampling off); JC_VARIANTS adds record_perf /
# record_pyread (one host sampling mechanism alone), JC_PYBENCH the PyTorch
# rows (transformer_step, small_ops) after the Flax ones while the budget
# lasts. The variants run with GPUSCOPE_DEBUG=1: their logs hold each
# thread's context switches and CPU time at exit. JC_INPROC=1 adds the
# in-process ABBA cells of JC_INPROC_VARIANTS (default kernel api: which
# CUPTI kinds cost what, CUPTI loaded in both halves). About 4 minutes.
want jaxcost && stage jaxcost "${JAXCOST_S:-240}" bash -c '
	W=/tmp/jaxcost
	mkdir -p "$OUT/jaxcost-tmp"
	DEADLINE_S=$((BUDGET_S - 45)) TIMEOUT_S=${JC_TIMEOUT_S:-90} REPS=${JC_REPS:-5} \
		ROUNDS=${JC_ROUNDS:-4} FLAX_STEPS=${JC_STEPS:-500} JAXBENCH=flax_small STORM=0 \
		PYBENCH="${JC_PYBENCH-}" VARIANTS="${JC_VARIANTS:-record_calls record_nohost}" \
		TORCHPROF=0 INPROC=${JC_INPROC:-0} INPROC_BENCH=flax_small \
		INPROC_VARIANTS="${JC_INPROC_VARIANTS:-default kernel api}" \
		INPROC_ROUNDS=${JC_INPROC_ROUNDS:-2} INPROC_REPS=${JC_INPROC_REPS:-24} \
		GPUSCOPE=$GPUSCOPE BIN=$BIN WORKDIR=$W \
		bash bench/record-overhead.sh >"$OUT/jaxcost-tmp/record-overhead.txt" 2>&1
	rc=$?
	tail -30 "$OUT/jaxcost-tmp/record-overhead.txt"
	cp "$W"/*.log "$W"/*.loop "$W"/*.rloop "$W"/*.wall "$OUT/jaxcost-tmp/" 2>/dev/null
	# one recording of the default, when small enough to come back
	[ -f "$W/flax_small.db" ] && [ "$(stat -c %s "$W/flax_small.db")" -lt $((12 << 20)) ] &&
		cp "$W/flax_small.db" "$OUT/jaxcost-tmp/"
	tar czf "$OUT/jaxcost.tar.gz" -C "$OUT/jaxcost-tmp" . && rm -rf "$OUT/jaxcost-tmp"
	exit $rc'
# the process trees alone (fork+exec, spawn, DataLoader workers, MPS-less
# multi-process): record's counts per process
want procs && stage procs "${PROCS_S:-60}" env \
	SKIP="occupancy zoo pytorch conflict robust capture bench" bash workloads/run-on-gpu.sh
want capture && [ -f workloads/capture-on-gpu.sh ] &&
	stage capture "${CAPTURE_S:-60}" bash workloads/capture-on-gpu.sh
want torchcounters && [ -f workloads/counters/torch-counters-on-gpu.sh ] &&
	stage torchcounters "${TORCHCOUNTERS_S:-60}" bash workloads/counters/torch-counters-on-gpu.sh
want multigpu && [ -f workloads/multigpu/run-on-gpu.sh ] &&
	stage multigpu "${MULTIGPU_S:-80}" bash workloads/multigpu/run-on-gpu.sh
want hostcost && [ -f "${HOSTCOST_SCRIPT:-bench/host-sampling-cost.sh}" ] &&
	stage hostcost "${HOSTCOST_S:-120}" bash "${HOSTCOST_SCRIPT:-bench/host-sampling-cost.sh}"
# vram's training runs and the host-sampling probe (CPU-side, tiny
# kernels) side by side: the probe measures host costs, vram memory peaks
want hostsample && (stage hostsample 60 bash workloads/hostsample-probe.sh) &
want vram && stage vram "${VRAM_S:-140}" bash workloads/vram/run-on-gpu.sh
wait
cat "$tables"
ls -la "$OUT" >&2
