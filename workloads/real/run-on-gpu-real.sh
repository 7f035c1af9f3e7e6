#!/usr/bin/env bash
# real/run-on-gpu-real.sh - issue 16's proof on the H200, in one call:
#   BUDGET_S=180 bash workloads/real/run-on-gpu-real.sh    (repo root, $OUT set)
# Records every program of workloads/real/ (README.md there: what each is and
# the verdict it must get) with `gpuscope record`, and each PyTorch one a
# second time under torch.profiler (--profile: schedule, ProfilerStep#
# ranges, record_shapes; with_stack / profile_memory where RUNS says), and
# takes report's JSON of both; then, while the budget lasts, the fixed
# variants (record only, for diff). Text reports are left to the build
# machine: they come from the fixtures.
# Carried from the build machine: .gpu/build/{gpuscope,libgpuscope-inject.so,
# libgpuscope-preload.so} (or build/), .gpu/bin/cublas_gemm
# (workloads/build-zoo.sh; built there with the machine's nvcc if missing).
# Everything else is the machine's own python3 (torch, transformers,
# torchvision, JAX, CuPy, Triton). No network: HF_HUB_OFFLINE=1.
# Output: ONE file, $OUT/real.tar.gz (< 15 MiB): fixtures/ (NAME.db,
# NAME.json.gz, counts.txt), logs/ (report JSON, program output, record logs,
# library versions), table.txt (printed last; loop_s: the program's own timed
# loop under record; a fixed variant's against its original's is the cost of
# the designed problem), stages.txt (per run: wall times, file sizes).
# BUDGET_S (default 180 s): a run starts only when its estimated time (RUNS)
# fits in what is left, and every process is stopped at the budget's end;
# skipped runs are listed. ONLY="name ..." runs just those; PYARGS is appended
# to every Python program's arguments (PYARGS="--device cpu": the dry run on a
# machine without a GPU, which checks the script's own plumbing).
# Read-only towards the card: no clock, power, persistence, MIG or reset commands.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
RES=${RES:-/tmp/gpuscope-real}
G=${GPUSCOPE:-}
if [ -z "$G" ]; then
	G=$PWD/.gpu/build/gpuscope
	[ -x "$G" ] || G=$PWD/build/gpuscope
fi
BIN=${BIN:-$PWD/.gpu/bin}
PY=${PYTHON:-python3}
BUDGET=${BUDGET_S:-180}
ONLY=${ONLY:-}
PYARGS=${PYARGS:-}
W=workloads/real
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 PYTHONUNBUFFERED=1
export PATH="/usr/local/cuda/bin:$PATH"
rm -rf "$RES"
mkdir -p "$OUT" "$RES/fixtures" "$RES/logs/env"
FX=$RES/fixtures
LG=$RES/logs
: >"$RES/table.txt"
: >"$RES/stages.txt"

# name|kind|expected|est_s|program and its arguments|extra arguments of the profiled run
# kind: torch = record + torch.profiler; rec = record only; bin = the CUDA C program.
# est_s: estimated H200 seconds of both runs (imports and CUDA start included).
# expected: the verdict README.md gives (host_overhead and the named idle
# inside CUDA calls, cuda_calls_idle, are report v2's; today's report has neither).
RUNS=(
	"hf_llama_train|torch|gpu_busy|14|$W/hf_llama_train.py|--profile-steps 2 --profile-memory"
	"hf_bert_syncs|torch|sync_stall|14|$W/hf_bert_syncs.py|--profile-steps 2 --profile-stack"
	"hf_decode|torch|host_overhead|12|$W/hf_decode.py|--profile-steps 1"
	"tv_resnet_loader|torch|input_pipeline|14|$W/tv_resnet_loader.py|--profile-steps 2 --profile-memory"
	"jax_train|rec|gpu_busy|9|$W/jax_train.py|"
	"jax_roundtrip|rec|sync_stall|8|$W/jax_roundtrip.py|"
	"cupy_small_ops|rec|launch_overhead|5|$W/cupy_small_ops.py|"
	"triton_fused|torch|memory_bound|12|$W/triton_fused.py|--profile-steps 2"
	"torch_compile_warmup|torch|gpu_busy|35|$W/torch_compile_warmup.py|--profile-steps 3"
	"torch_cuda_graphs|torch|gpu_busy|9|$W/torch_cuda_graphs.py|--profile-steps 5"
	"cublas_gemm|bin|compute_bound|4|cublas_gemm|"
	"torch_empty_cache|torch|cuda_calls_idle|9|$W/torch_empty_cache.py|--profile-steps 3 --profile-memory"
	"torch_h2d_pageable|torch|transfer|9|$W/torch_h2d.py|--profile-steps 3"
	"torch_h2d_pinned|torch|transfer|9|$W/torch_h2d.py --pinned|--profile-steps 3"
	# the second set (2026-12-04): libraries the first did not cover
	"timm_vit_train|torch|gpu_busy|14|$W/timm_vit_train.py|--profile-steps 3"
	"jax_numpy_feed|rec|input_pipeline|10|$W/jax_numpy_feed.py|"
	"numba_roundtrip|rec|transfer|8|$W/numba_roundtrip.py|"
	"pyg_gcn|torch|explore|12|$W/pyg_gcn.py|--profile-steps 3"
	"lightning_mlp|rec|host_overhead|14|$W/lightning_mlp.py|"
	"cupy_fft|rec|gpu_busy|8|$W/cupy_fft.py|"
	# the third set (2026-12-05): JAX under XLA's autotuner, Flax (issue 35)
	"jax_shapes|rec|explore|20|$W/jax_shapes.py --steps 12|"
	"flax_small|rec|explore|10|$W/flax_small.py|"
	# the fourth set (issue 36): report v3's causes; "explore" where the finding is not built yet
	"torch_fp32_matmul|torch|compute_bound|12|$W/torch_fp32_matmul.py|--profile-steps 3"
	"torch_compile_shapes|torch|recompilation|45|$W/torch_compile_shapes.py|--profile-steps 3"
	"torch_small_copies|torch|transfer|10|$W/torch_small_copies.py|--profile-steps 3"
	"torch_stft_preproc|torch|input_pipeline|10|$W/torch_stft_preproc.py|--profile-steps 3"
	"torch_gil_thread|torch|host_contention|10|$W/torch_gil_thread.py|--profile-steps 5"
	"torch_cpu_oversub|torch|host_contention|10|$W/torch_cpu_oversub.py|--profile-steps 5"
	"torch_detect_anomaly|torch|explore|10|$W/torch_detect_anomaly.py|--profile-steps 3"
	"torch_cudnn_shapes|torch|recompilation|15|$W/torch_cudnn_shapes.py|--profile-steps 6"
	"cupy_sgemm|rec|compute_bound|8|$W/cupy_sgemm.py|"
	"cupy_setup_small_grid|rec|small_grid|8|$W/cupy_setup_small_grid.py|"
	"cupy_managed|rec|explore|8|$W/cupy_managed.py|"
	# the fifth set (issue 36, docs/causes.md row 34): attention without a fused kernel
	"hf_eager_attention|torch|explore|12|$W/hf_eager_attention.py|--profile-steps 2"
	"torch_ddp_unused|torch|explore|12|$W/torch_ddp_unused.py|--profile-steps 5"
	# the sixth set (issue 36, docs/causes.md row 9): the optimizer's per-parameter loop
	"torch_optim_loop|torch|launch_overhead|12|$W/torch_optim_loop.py|--profile-steps 3"
	"torch_ckpt_every|torch|host_overhead|30|$W/torch_ckpt_every.py|--profile-steps 160"
	# the seventh set (issue 36, docs/causes.md row 33): texts padded to max_length, and the
	# fixed variant under torch.profiler too (its batches' lengths change: no padding finding)
	"hf_bert_padded|torch|explore|16|$W/hf_bert_padded.py|--profile-steps 4"
	"hf_bert_padded_fixed|torch|explore|16|$W/hf_bert_padded.py --fixed|--profile-steps 4"
	# padding's first action: per batch, rounded up to a multiple of 64 (two shapes for cuDNN)
	"hf_bert_padded_m64|torch|explore|16|$W/hf_bert_padded.py --fixed --pad-multiple 64|--profile-steps 4"
	# the batch's torch.stack on the host, under torch.profiler too (with Python stacks)
	"torch_small_copies_fixed|torch|input_pipeline|8|$W/torch_small_copies.py --fixed|--profile-steps 3 --profile-stack"
	# docs/causes.md row 21: deterministic algorithms fill every torch.empty (and the fix)
	"torch_deterministic|torch|explore|14|$W/torch_deterministic.py|--profile-steps 3"
	"torch_deterministic_fixed|torch|explore|14|$W/torch_deterministic.py --fixed|--profile-steps 3"
	# the fixed variants, for diff against the run above each (record only)
	"hf_bert_syncs_fixed|rec|gpu_busy|7|$W/hf_bert_syncs.py --fixed|"
	"torch_cuda_graphs_eager|rec|launch_overhead|5|$W/torch_cuda_graphs.py --eager|"
	"cupy_small_ops_fused|rec|launch_overhead|4|$W/cupy_small_ops.py --fixed|"
	"torch_empty_cache_fixed|rec|gpu_busy|5|$W/torch_empty_cache.py --fixed|"
	"jax_train_small|rec|gpu_busy|8|$W/jax_train.py --batch 2048 --width 2048 --steps 200|"
	"tv_resnet_loader_fixed|rec|gpu_busy|7|$W/tv_resnet_loader.py --fixed|"
	"torch_fp32_matmul_fixed|rec|gpu_busy|8|$W/torch_fp32_matmul.py --fixed|"
	"torch_compile_shapes_fixed|rec|gpu_busy|25|$W/torch_compile_shapes.py --fixed|"
	"torch_stft_preproc_fixed|rec|gpu_busy|6|$W/torch_stft_preproc.py --fixed|"
	"torch_gil_thread_fixed|rec|explore|6|$W/torch_gil_thread.py --fixed|"
	"torch_cpu_oversub_fixed|rec|explore|6|$W/torch_cpu_oversub.py --fixed|"
	"torch_detect_anomaly_fixed|rec|explore|6|$W/torch_detect_anomaly.py --fixed|"
	"torch_cudnn_shapes_fixed|rec|explore|8|$W/torch_cudnn_shapes.py --fixed|"
	"cupy_sgemm_fixed|rec|gpu_busy|6|$W/cupy_sgemm.py --fixed|"
	"cupy_setup_small_grid_fixed|rec|gpu_busy|6|$W/cupy_setup_small_grid.py --fixed|"
	"cupy_managed_fixed|rec|explore|6|$W/cupy_managed.py --fixed|"
	"hf_eager_attention_fixed|rec|explore|8|$W/hf_eager_attention.py --fixed|"
	"torch_ddp_unused_fixed|rec|explore|8|$W/torch_ddp_unused.py --fixed|"
	"torch_optim_loop_fixed|rec|explore|6|$W/torch_optim_loop.py --fixed|"
	"torch_ckpt_every_fixed|rec|explore|12|$W/torch_ckpt_every.py --fixed|"
)

log() { echo "[real +${SECONDS}s] $*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
left() { echo $((BUDGET - SECONDS)); }
# lim N: a timeout of N seconds, cut to what is left of the budget (at least 5)
lim() {
	local l
	l=$(left)
	[ "$l" -lt 5 ] && l=5
	[ "$l" -lt "$1" ] && echo "$l" || echo "$1"
}
# cap_log FILE: head + tail past 1 MiB
cap_log() {
	[ -f "$1" ] && [ "$(stat -c %s "$1")" -gt 1048576 ] || return 0
	{ head -n 2000 "$1"; echo "... [cut: $(wc -l <"$1") lines] ..."; tail -n 2000 "$1"; } >"$1.cut"
	mv "$1.cut" "$1"
}
# counts DB: kernels=.. copies=.. memsets=.. api_calls=.. syncs=.. ranges=.. dropped=..
counts() {
	[ -f "$1" ] && "$PY" workloads/count_rows.py "$1" 2>/dev/null || echo "kernels=NA"
}
field() { local v; v=$(sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"); echo "${v:-NA}"; }
# report_json IN BASE: report's JSON of IN into BASE.report.json; prints
# "primary span_s kernels" from it (NA when report failed)
report_json() {
	timeout "$(lim 60)" "$G" report "$1" --format json >"$2.report.json" 2>"$2.report.err"
	"$PY" - "$2.report.json" <<'PYEOF' 2>/dev/null || echo "NA NA NA"
import json, sys
r = json.load(open(sys.argv[1]))
s = r.get("summary", {})
print(r.get("primary") or "none", "%.3f" % (r.get("span_ns", 0) / 1e9), s.get("kernels", "NA"))
PYEOF
}

stage_env() {
	local e=$LG/env
	nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,power.draw,temperature.gpu,utilization.gpu,memory.used,mig.mode.current --format=csv >"$e/nvidia-smi.csv" 2>&1
	nproc >"$e/nproc.txt"
	# versions from the installed metadata: importing every library would cost seconds
	"$PY" - >"$e/versions.txt" 2>&1 <<'PYEOF'
import sys
from importlib import metadata
print("python", sys.version.split()[0])
for m in ["torch", "torchvision", "transformers", "triton", "jax", "jaxlib", "jax-cuda13-plugin",
          "optax", "cupy-cuda13x", "numpy", "pillow", "timm", "numba", "numba-cuda",
          "torch-geometric", "lightning"]:
    try:
        print(m, metadata.version(m))
    except metadata.PackageNotFoundError:
        print(m, "MISSING")
PYEOF
	ls -l "$G" "$(dirname "$G")"/libgpuscope-*.so >"$e/binaries.txt" 2>&1
	"$G" --version >>"$e/binaries.txt" 2>&1
	tr '\n' ' ' <"$e/versions.txt" >&2
	echo >&2
	[ -x "$G" ] && [ -f "$(dirname "$G")/libgpuscope-inject.so" ]
}

stage_build() {
	CUBLAS=$BIN/cublas_gemm
	if [ ! -x "$CUBLAS" ]; then
		CUBLAS=$RES/bin/cublas_gemm
		log "no carried $BIN/cublas_gemm: building it here"
		mkdir -p "$RES/bin"
		nvcc -O2 -arch=sm_90 -lineinfo -o "$CUBLAS" $W/cublas_gemm.cu -lcublas \
			>"$LG/env/build.log" 2>&1 || return 1
	fi
	# cuBLAS from the toolkit, else from the wheels PyTorch uses
	if ldd "$CUBLAS" | grep -q 'libcublas.*not found'; then
		local d
		d=$("$PY" -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13", "lib"))' 2>/dev/null)
		export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		log "libcublas from $d"
	fi
	ldd "$CUBLAS" >"$LG/env/cublas_gemm.ldd" 2>&1
	! grep -q 'not found' "$LG/env/cublas_gemm.ldd"
}

# one_run NAME KIND EXPECTED EST "PROGRAM ARGS" "PROFILE ARGS"
one_run() {
	local name=$1 kind=$2 want=$3 est=$4 prog=$5 pargs=$6 cmd t0 rc tr tp c wl ok rp rk rs pp pk ps
	if [ "$kind" = bin ]; then
		cmd=("$CUBLAS")
	else
		# shellcheck disable=SC2206 # the program's arguments are words
		cmd=("$PY" $prog $PYARGS)
	fi
	rm -f "$FX/$name.db"
	t0=$(now)
	timeout "$(lim $((2 * est + 20)))" "$G" record -o "$FX/$name.db" -- "${cmd[@]}" \
		>"$LG/$name.record.out" 2>"$LG/$name.record.log"
	rc=$?
	tr=$(elapsed "$t0" "$(now)")
	cap_log "$LG/$name.record.log"
	if [ $rc -ne 0 ]; then
		log "$name: record exited $rc; the end of its output:"
		tail -n 4 "$LG/$name.record.out" "$LG/$name.record.log" >&2
	fi
	c=$(counts "$FX/$name.db")
	echo "$name $c" >>"$FX/counts.txt"
	# programs that print their own kernels/memcpy (CUDA C, CuPy): compare
	wl=$(grep '^WORKLOAD ' "$LG/$name.record.out" | tail -1)
	ok=-
	if [ "$(field kernels "$wl")" != NA ]; then
		ok=NO
		[ "$(field kernels "$wl")" = "$(field kernels "$c")" ] &&
			[ "$(field memcpy "$wl")" = "$(field copies "$c")" ] && ok=yes
	fi
	read -r rp rs rk <<<"NA NA NA"
	[ -f "$FX/$name.db" ] && read -r rp rs rk <<<"$(report_json "$FX/$name.db" "$LG/$name")"
	read -r pp ps pk <<<"- - -"
	tp=-
	if [ "$kind" = torch ] && [ "$(left)" -ge $((est / 3 + 3)) ]; then
		rm -f "$FX/$name.json.gz"
		t0=$(now)
		# shellcheck disable=SC2086 # word lists
		timeout "$(lim $((2 * est + 20)))" "$PY" $prog $PYARGS --profile "$FX/$name.json.gz" \
			$pargs >"$LG/$name.profile.out" 2>&1 || log "$name: --profile failed"
		tp=$(elapsed "$t0" "$(now)")
		read -r pp ps pk <<<"NA NA NA"
		[ -f "$FX/$name.json.gz" ] &&
			read -r pp ps pk <<<"$(report_json "$FX/$name.json.gz" "$LG/$name.kineto")"
	elif [ "$kind" = torch ]; then
		log "$name: no time left for its torch.profiler run"
	fi
	log "$name: record rc=$rc ${tr}s [$c] rows=$ok primary=$rp | profile ${tp}s primary=$pp"
	printf '%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n' "$name" "$(field kernels "$c")" "$rk" "$rs" \
		"$rp" "$pk" "$ps" "$pp" "$want" "$(field loop_s "$(grep '^TIME ' "$LG/$name.record.out" |
			tail -1)")" "$tr/$tp" "$ok" >>"$RES/table.txt"
	echo "$name rc=$rc record_s=$tr profile_s=$tp est_s=$est db_bytes=$(stat -c %s \
		"$FX/$name.db" 2>/dev/null || echo -) trace_bytes=$(stat -c %s "$FX/$name.json.gz" \
		2>/dev/null || echo -)" >>"$RES/stages.txt"
}

stage_runs() {
	local r name kind want est prog pargs
	for r in "${RUNS[@]}"; do
		IFS='|' read -r name kind want est prog pargs <<<"$r"
		if [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]]; then
			continue
		fi
		if [ "$(left)" -lt "$est" ]; then
			log "$name skipped: ${est}s estimated, $(left)s left"
			echo "$name skipped (budget: ${est}s estimated, $(left)s left)" >>"$RES/stages.txt"
			continue
		fi
		one_run "$name" "$kind" "$want" "$est" "$prog" "$pargs"
	done
}

# the table, fixtures and logs in one tar.gz; logs give way first past
# PACK_MAX_MIB (default 15; a caller that splits the file may raise it)
stage_pack() {
	local max=$((${PACK_MAX_MIB:-15} * 1024 * 1024)) big
	{
		echo "program|kernels(db)|kernels(report)|span_s|primary(db)|kernels(trace)|span_s(trace)|primary(trace)|expected|loop_s|wall s rec/prof|rows"
		cat "$RES/table.txt"
	} | if command -v column >/dev/null 2>&1; then column -t -s '|'; else sed 's/|/ | /g'; fi \
		>"$RES/table.out"
	mv "$RES/table.out" "$RES/table.txt"
	while :; do
		tar czf "$OUT/real.tar.gz" -C "$RES" fixtures logs table.txt stages.txt
		[ "$(stat -c %s "$OUT/real.tar.gz")" -le $max ] && break
		big=$(find "$LG" -type f -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
		[ -n "$big" ] || break
		log "pack: over 15 MiB, dropping ${big#"$RES"/}"
		rm -f "$big"
	done
	log "pack: $OUT/real.tar.gz $(stat -c %s "$OUT/real.tar.gz") bytes"
}

stage_env || log "env: gpuscope binaries missing"
stage_build || log "build: cublas_gemm not runnable (its row will fail)"
stage_runs
echo "fixtures $(du -cb "$FX"/*.db "$FX"/*.json.gz 2>/dev/null | tail -1 | cut -f1) bytes," \
	"total ${SECONDS}s of a ${BUDGET}s budget" >>"$RES/stages.txt"
stage_pack
echo
grep -E 'skipped|total' "$RES/stages.txt"
cat "$RES/table.txt"
