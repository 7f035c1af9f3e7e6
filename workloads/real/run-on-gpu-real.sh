#!/usr/bin/env bash
# real/run-on-gpu-real.sh - issue 16's proof on the H200, in one call:
#   bash workloads/real/run-on-gpu-real.sh      (repo root, $OUT set by the device tool)
# Records every program of workloads/real/ (README.md there: what each is and
# the verdict it must get) with `gpuscope record`, and each PyTorch one a
# second time under torch.profiler (--profile: schedule, ProfilerStep#
# ranges, record_shapes; with_stack / profile_memory where the table below
# says), reports both, then the fixed variants (record only, for diff).
# Carried from the build machine: build/gpuscope, build/libgpuscope-inject.so,
# build/libgpuscope-preload.so, and .gpu/bin/cublas_gemm (workloads/build-zoo.sh;
# built there with the machine's nvcc if missing).
# Everything else is the machine's own python3 (torch, transformers,
# torchvision, JAX, CuPy, Triton). No network: HF_HUB_OFFLINE=1.
# Output under $OUT (4 files):
#   real-fixtures.tar.gz  fixtures/: NAME.db, NAME.json.gz, counts.txt, table.txt
#   real-logs.tar.gz      every report (text, JSON), program output, record log, env
#   table.txt, stages.txt the table printed last (loop_s: the program's own
#                         timed loop under record; a fixed variant's against
#                         its original's is the cost of the designed problem);
#                         per-run wall times and file sizes
# BUDGET_S (default 330 s): runs that would start past it are skipped and
# listed; ONLY="name ..." runs just those; PYARGS is appended to every Python
# program's arguments (PYARGS="--device cpu": the dry run on a machine without
# a GPU, which checks the script's own plumbing). Read-only towards the card.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
RES=${RES:-/tmp/gpuscope-real}
G=${GPUSCOPE:-$PWD/build/gpuscope}
BIN=${BIN:-$PWD/.gpu/bin}
PY=${PYTHON:-python3}
BUDGET=${BUDGET_S:-330}
ONLY=${ONLY:-}
PYARGS=${PYARGS:-} # appended to every Python program's arguments (the CPU dry run: --device cpu)
W=workloads/real
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 PYTHONUNBUFFERED=1
export PATH="/usr/local/cuda/bin:$PATH"
rm -rf "$RES"
mkdir -p "$OUT" "$RES/fixtures" "$RES/logs/env"
FX=$RES/fixtures
LG=$RES/logs
: >"$RES/table.txt"
: >"$RES/stages.txt"

# name|kind|expected|program and its arguments|extra arguments of the profiled run
# kind: torch = record + torch.profiler; rec = record only.
# expected: the verdict README.md gives (host_overhead and the named idle
# inside CUDA calls are report v2's; today's report has neither).
RUNS=(
	"hf_llama_train|torch|gpu_busy|$W/hf_llama_train.py|--profile-steps 2 --profile-memory"
	"hf_bert_syncs|torch|sync_stall|$W/hf_bert_syncs.py|--profile-steps 2 --profile-stack"
	"hf_decode|torch|host_overhead|$W/hf_decode.py|--profile-steps 1"
	"tv_resnet_loader|torch|input_pipeline|$W/tv_resnet_loader.py|--profile-steps 2 --profile-memory"
	"jax_train|rec|gpu_busy|$W/jax_train.py|"
	"jax_roundtrip|rec|sync_stall|$W/jax_roundtrip.py|"
	"cupy_small_ops|rec|launch_overhead|$W/cupy_small_ops.py|"
	"triton_fused|torch|memory_bound|$W/triton_fused.py|--profile-steps 2"
	"torch_compile_warmup|torch|gpu_busy|$W/torch_compile_warmup.py|--profile-steps 3"
	"torch_cuda_graphs|torch|gpu_busy|$W/torch_cuda_graphs.py|--profile-steps 5"
	"cublas_gemm|bin|compute_bound|cublas_gemm|"
	"torch_empty_cache|torch|cuda_calls_idle|$W/torch_empty_cache.py|--profile-steps 3 --profile-memory"
	"torch_h2d_pageable|torch|transfer|$W/torch_h2d.py|--profile-steps 3"
	"torch_h2d_pinned|torch|transfer|$W/torch_h2d.py --pinned|--profile-steps 3"
	# the fixed variants, for diff against the run above each (record only)
	"hf_bert_syncs_fixed|rec|gpu_busy|$W/hf_bert_syncs.py --fixed|"
	"tv_resnet_loader_fixed|rec|gpu_busy|$W/tv_resnet_loader.py --fixed|"
	"jax_train_small|rec|gpu_busy|$W/jax_train.py --batch 2048 --width 2048 --steps 200|"
	"cupy_small_ops_fused|rec|launch_overhead|$W/cupy_small_ops.py --fixed|"
	"torch_cuda_graphs_eager|rec|launch_overhead|$W/torch_cuda_graphs.py --eager|"
	"torch_empty_cache_fixed|rec|gpu_busy|$W/torch_empty_cache.py --fixed|"
)

log() { echo "[real +${SECONDS}s] $*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
# lim N: a timeout of N seconds, cut to what is left of the budget (at least 20)
lim() {
	local l=$((BUDGET + 60 - SECONDS))
	[ "$l" -lt 20 ] && l=20
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
# rep JSON: "primary span_s kernels" of a report, NA when it failed
rep() {
	"$PY" - "$1" <<'PYEOF' 2>/dev/null || echo "NA NA NA"
import json, sys
r = json.load(open(sys.argv[1]))
s = r.get("summary", {})
print(r.get("primary") or "none", "%.3f" % (r.get("span_ns", 0) / 1e9), s.get("kernels", "NA"))
PYEOF
}
# report_both IN BASE: text and JSON reports of IN into BASE.report.{txt,json}
report_both() {
	timeout "$(lim 90)" "$G" report "$1" --format json >"$2.report.json" 2>"$2.report.err"
	timeout "$(lim 90)" "$G" report "$1" >"$2.report.txt" 2>&1
}

stage_env() {
	local e=$LG/env
	nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,power.draw,temperature.gpu,utilization.gpu,memory.used,mig.mode.current --format=csv >"$e/nvidia-smi.csv" 2>&1
	nproc >"$e/nproc.txt"
	"$PY" - >"$e/versions.txt" 2>&1 <<'PYEOF'
import importlib, sys
print("python", sys.version.split()[0])
for m in ["torch", "torchvision", "transformers", "triton", "jax", "jaxlib", "optax", "cupy",
          "numpy", "PIL"]:
    try:
        print(m, importlib.import_module(m).__version__)
    except Exception as e:  # a missing library is a finding of the run, not a crash
        print(m, "MISSING", type(e).__name__, e)
import torch
print("cuda", torch.version.cuda, torch.cuda.is_available(), torch.cuda.get_device_name(0))
PYEOF
	cat "$e/versions.txt" >&2
	ls -l "$G" "$(dirname "$G")"/libgpuscope-*.so >"$e/binaries.txt" 2>&1
	"$G" record --help >"$e/record-help.txt" 2>&1
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

# one_run NAME KIND EXPECTED "PROGRAM ARGS" "PROFILE ARGS"
one_run() {
	local name=$1 kind=$2 want=$3 prog=$4 pargs=$5 cmd t0 rc tr tp c wl ok rp rk rs pp pk ps
	if [ "$kind" = bin ]; then
		cmd=("$CUBLAS")
	else
		# shellcheck disable=SC2206 # the program's arguments are words
		cmd=("$PY" $prog $PYARGS)
	fi
	rm -f "$FX/$name.db"
	t0=$(now)
	GPUSCOPE_DEBUG=1 timeout "$(lim 150)" "$G" record -o "$FX/$name.db" -- "${cmd[@]}" \
		>"$LG/$name.record.out" 2>"$LG/$name.record.log"
	rc=$?
	tr=$(elapsed "$t0" "$(now)")
	cap_log "$LG/$name.record.log"
	if [ $rc -ne 0 ]; then
		log "$name: record exited $rc; the end of its output:"
		tail -5 "$LG/$name.record.out" "$LG/$name.record.log" >&2
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
	if [ -f "$FX/$name.db" ]; then
		report_both "$FX/$name.db" "$LG/$name"
		read -r rp rs rk <<<"$(rep "$LG/$name.report.json")"
	fi
	read -r pp ps pk <<<"- - -"
	tp=-
	if [ "$kind" = torch ]; then
		rm -f "$FX/$name.json.gz"
		t0=$(now)
		# shellcheck disable=SC2086 # word lists
		timeout "$(lim 150)" "$PY" $prog $PYARGS --profile "$FX/$name.json.gz" $pargs \
			>"$LG/$name.profile.out" 2>&1 || log "$name: --profile failed"
		tp=$(elapsed "$t0" "$(now)")
		read -r pp ps pk <<<"NA NA NA"
		if [ -f "$FX/$name.json.gz" ]; then
			report_both "$FX/$name.json.gz" "$LG/$name.kineto"
			read -r pp ps pk <<<"$(rep "$LG/$name.kineto.report.json")"
		fi
	fi
	log "$name: record rc=$rc ${tr}s [$c] rows=$ok primary=$rp | profile ${tp}s primary=$pp"
	printf '%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n' "$name" "$(field kernels "$c")" "$rk" "$rs" \
		"$rp" "$pk" "$ps" "$pp" "$want" "$(field loop_s "$(grep '^TIME ' "$LG/$name.record.out" |
			tail -1)")" "$tr/$tp" "$ok" >>"$RES/table.txt"
	echo "$name rc=$rc record_s=$tr profile_s=$tp db_bytes=$(stat -c %s "$FX/$name.db" 2>/dev/null ||
		echo -) trace_bytes=$(stat -c %s "$FX/$name.json.gz" 2>/dev/null || echo -)" >>"$RES/stages.txt"
}

stage_runs() {
	local r name kind want prog pargs
	for r in "${RUNS[@]}"; do
		IFS='|' read -r name kind want prog pargs <<<"$r"
		if [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]]; then
			continue
		fi
		if [ "$SECONDS" -ge "$BUDGET" ]; then
			log "$name skipped: budget of ${BUDGET}s spent"
			echo "$name skipped (budget)" >>"$RES/stages.txt"
			continue
		fi
		one_run "$name" "$kind" "$want" "$prog" "$pargs"
	done
}

stage_pack() {
	local max=$((15 * 1024 * 1024)) big
	cp "$RES/table.txt" "$FX/table.txt"
	tar czf "$OUT/real-fixtures.tar.gz" -C "$RES" fixtures
	while :; do
		tar czf "$OUT/real-logs.tar.gz" -C "$RES" logs stages.txt
		[ "$(stat -c %s "$OUT/real-logs.tar.gz")" -le $max ] && break
		big=$(find "$LG" -type f -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
		[ -n "$big" ] || break
		log "pack: logs over 15 MiB, dropping ${big#"$RES"/}"
		rm -f "$big"
	done
	cp "$RES/stages.txt" "$OUT/stages.txt"
	log "pack: $(du -b "$OUT"/real-*.tar.gz | tr '\n' ' ')"
}

t_start=$SECONDS
stage_env || log "env: gpuscope binaries or torch missing"
stage_build || log "build: cublas_gemm not runnable (its row will fail)"
stage_runs
echo "fixtures $(du -cb "$FX"/*.db "$FX"/*.json.gz 2>/dev/null | tail -1 | cut -f1) bytes," \
	"total ${SECONDS}s" >>"$RES/stages.txt"
stage_pack
{
	echo "program|kernels(db)|kernels(report)|span_s|primary(db)|kernels(trace)|span_s(trace)|primary(trace)|expected|loop_s|wall s rec/prof|rows"
	cat "$RES/table.txt"
} | if command -v column >/dev/null 2>&1; then column -t -s '|'; else sed 's/|/ | /g'; fi >"$OUT/table.txt"
echo
tail -1 "$RES/stages.txt"
cat "$OUT/table.txt"
log "done in $((SECONDS - t_start))s"
