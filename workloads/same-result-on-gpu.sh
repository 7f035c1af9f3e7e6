#!/usr/bin/env bash
# same-result-on-gpu.sh - record must never change what a program computes
# (issue 35, item 1): every CUDA C zoo program, every PyTorch zoo program and
# every program of workloads/real/ runs untraced and under `gpuscope record`
# (its defaults), and workloads/real/same_result.py compares their RESULT and
# WORKLOAD lines (exit codes first). Where they differ, the program runs
# untraced a second time: a program whose two untraced runs differ as much is
# nondeterministic on its own, and the table says so.
#   bash workloads/same-result-on-gpu.sh       (repo root, $OUT set; carry .gpu)
# The untraced and the traced run of a program go side by side (one GPU, two
# processes: this checks results, not times), JAX programs one at a time (XLA
# takes 75% of the card's memory). ONLY="name ..." picks programs (in its order); STEPS (10)
# the timed steps of the Python programs. Writes $OUT/same-result.tar.gz
# (outputs, record logs) and prints the table last. Read-only towards the card.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
G=${GPUSCOPE:-$PWD/.gpu/build/gpuscope}
BIN=${BIN:-$PWD/.gpu/bin}
PY=${PYTHON:-python3}
STEPS=${STEPS:-10}
BUDGET=${BUDGET_S:-480}
W=/tmp/same-result
rm -rf "$W"
mkdir -p "$W" "$OUT"
R=workloads/real
P=workloads/pytorch
S="--steps $STEPS --warmup 2"
# name|kind|command (kind: c = CUDA C, py = Python, jax = one at a time)
PROGS=(
	"tiny_kernel_storm|c|$BIN/tiny_kernel_storm" "graph_storm|c|$BIN/graph_storm"
	"pageable_copies|c|$BIN/pageable_copies" "pinned_copies|c|$BIN/pinned_copies"
	"sync_every_step|c|$BIN/sync_every_step" "small_grid|c|$BIN/small_grid"
	"register_pressure|c|$BIN/register_pressure" "uncoalesced|c|$BIN/uncoalesced"
	"coalesced|c|$BIN/coalesced" "divergent_warps|c|$BIN/divergent_warps"
	"bank_conflicts|c|$BIN/bank_conflicts" "bandwidth_stream|c|$BIN/bandwidth_stream"
	"fma_bound|c|$BIN/fma_bound" "healthy_pipeline|c|$BIN/healthy_pipeline"
	"cublas_gemm|c|$BIN/cublas_gemm" "host_memset_free|c|$BIN/host_memset_free 300"
	"dataloader_starved|py|$PY $P/dataloader_starved.py --steps 20"
	"small_ops|py|$PY $P/small_ops.py --steps 500" "item_every_step|py|$PY $P/item_every_step.py --steps 50"
	"bf16_gemm|py|$PY $P/bf16_gemm.py --steps 5" "healthy_train|py|$PY $P/healthy_train.py --steps 5"
	"transformer_step|py|$PY $P/transformer_step.py --steps 10"
	"hf_llama_train|py|$PY $R/hf_llama_train.py $S" "hf_bert_syncs|py|$PY $R/hf_bert_syncs.py $S"
	"hf_decode|py|$PY $R/hf_decode.py $S" "tv_resnet_loader|py|$PY $R/tv_resnet_loader.py $S"
	"triton_fused|py|$PY $R/triton_fused.py $S" "torch_compile_warmup|py|$PY $R/torch_compile_warmup.py $S"
	"torch_cuda_graphs|py|$PY $R/torch_cuda_graphs.py $S" "torch_empty_cache|py|$PY $R/torch_empty_cache.py $S"
	"torch_h2d_pageable|py|$PY $R/torch_h2d.py $S" "torch_h2d_pinned|py|$PY $R/torch_h2d.py --pinned $S"
	"timm_vit_train|py|$PY $R/timm_vit_train.py $S" "pyg_gcn|py|$PY $R/pyg_gcn.py $S"
	"lightning_mlp|py|$PY $R/lightning_mlp.py --steps 100"
	"cupy_small_ops|py|$PY $R/cupy_small_ops.py $S" "cupy_fft|py|$PY $R/cupy_fft.py $S"
	"numba_roundtrip|py|$PY $R/numba_roundtrip.py $S"
	"jax_train|jax|$PY $R/jax_train.py $S" "jax_roundtrip|jax|$PY $R/jax_roundtrip.py $S"
	"jax_numpy_feed|jax|$PY $R/jax_numpy_feed.py $S" "jax_shapes|jax|$PY $R/jax_shapes.py --steps 40"
	"flax_small|jax|$PY $R/flax_small.py --steps 200"
	"torch_fp32_matmul|py|$PY $R/torch_fp32_matmul.py $S"
	"torch_compile_shapes|py|$PY $R/torch_compile_shapes.py $S"
	"torch_small_copies|py|$PY $R/torch_small_copies.py $S"
	"torch_stft_preproc|py|$PY $R/torch_stft_preproc.py $S"
	"torch_gil_thread|py|$PY $R/torch_gil_thread.py $S"
	"torch_cpu_oversub|py|$PY $R/torch_cpu_oversub.py $S"
	"torch_detect_anomaly|py|$PY $R/torch_detect_anomaly.py $S"
	"torch_cudnn_shapes|py|$PY $R/torch_cudnn_shapes.py $S"
	"cupy_sgemm|py|$PY $R/cupy_sgemm.py $S" "cupy_managed|py|$PY $R/cupy_managed.py $S"
	"cupy_setup_small_grid|py|$PY $R/cupy_setup_small_grid.py $S"
	"hf_eager_attention|py|$PY $R/hf_eager_attention.py $S"
	"torch_ddp_unused|py|$PY $R/torch_ddp_unused.py $S"
)
export PYTHONPATH=$PWD/$R${PYTHONPATH:+:$PYTHONPATH}
table=$W/table.txt
printf '%-22s %5s %5s  %s\n' program untr rec verdict >"$table"

want() {
	[ -z "${ONLY:-}" ] && return 0
	case " $ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}

# with ONLY, the programs run in ONLY's order (the slow ones named last)
order=("${PROGS[@]}")
if [ -n "${ONLY:-}" ]; then
	order=()
	for n in $ONLY; do
		for e in "${PROGS[@]}"; do
			[ "${e%%|*}" = "$n" ] && order+=("$e")
		done
	done
fi
for e in "${order[@]}"; do
	IFS='|' read -r name kind cmd <<<"$e"
	want "$name" || continue
	if [ "$SECONDS" -ge "$BUDGET" ]; then
		printf '%-22s %5s %5s  %s\n' "$name" - - "skipped: past BUDGET_S=$BUDGET s" >>"$table"
		continue
	fi
	read -r -a argv <<<"$cmd"
	if [ "$kind" = c ] && [ ! -x "${argv[0]}" ]; then
		printf '%-22s %5s %5s  %s\n' "$name" - - "not built (workloads/build-zoo.sh)" >>"$table"
		continue
	fi
	echo "[same-result +${SECONDS}s] $name" >&2
	# no run outlasts the budget, so that the table is always written
	rem=$((BUDGET - SECONDS))
	tu=$((rem < 240 ? rem : 240))
	tr=$((rem < 300 ? rem : 300))
	timeout "$tu" "${argv[@]}" >"$W/$name.untraced.out" 2>"$W/$name.untraced.err" &
	pu=$!
	[ "$kind" = jax ] && { wait $pu; ru=$?; }
	[ "$kind" = jax ] && { rem=$((BUDGET - SECONDS)); tr=$((rem < 300 ? (rem > 1 ? rem : 1) : 300)); }
	timeout "$tr" "$G" record --force --no-progress -o "$W/$name.db" -- "${argv[@]}" \
		>"$W/$name.record.out" 2>"$W/$name.record.err"
	rr=$?
	[ "$kind" = jax ] || { wait $pu; ru=$?; }
	rm -f "$W/$name.db"
	if [ "$ru" = 124 ] || [ "$rr" = 124 ]; then
		v="cut at BUDGET_S=$BUDGET s (timeout)"
	elif [ "$ru" != 0 ] || [ "$rr" != 0 ]; then
		v="exit codes differ"
		[ "$ru" = "$rr" ] && v="both failed"
	else
		v=$("$PY" $R/same_result.py "$W/$name.untraced.out" "$W/$name.record.out")
		if [ $? = 1 ]; then
			timeout "$tu" "${argv[@]}" >"$W/$name.untraced2.out" 2>&1
			if "$PY" $R/same_result.py "$W/$name.untraced.out" "$W/$name.untraced2.out" >/dev/null; then
				v="DIFFERENT under record ($v)"
			else
				v="nondeterministic untraced too ($v)"
			fi
		fi
	fi
	printf '%-22s %5s %5s  %s\n' "$name" "$ru" "$rr" "$v" >>"$table"
done
tar czf "$OUT/same-result.tar.gz" -C "$W" . 2>/dev/null
cat "$table"
