#!/usr/bin/env bash
# vram CLI: JSON contract (total_bytes, breakdown), text, exit codes (0 fits,
# 3 does not), presets and GPU lists, shape flags, and one clear line with
# a non-zero exit for each kind of bad input (never a hang on a FIFO).
# usage: vram_cli.sh BUILD/gpuscope SOURCE_DIR
set -u
bin=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out errf=$tmp/err
run() { timeout 20 "$bin" vram "$@" >"$out" 2>"$errf"; }
check() { # check DESC WANT_RC
	local rc=$?
	if [ "$rc" != "$2" ]; then
		echo "FAIL: $1: exit $rc, wanted $2"; cat "$errf"; fail=1
	else
		echo "ok: $1"
	fi
}
jq_ok() { python3 -c "import json,sys; d=json.load(open('$out')); sys.exit(0 if ($1) else 1)" ||
	{ echo "FAIL: json: $1"; head -c 600 "$out"; fail=1; }; }

run llama-2-7b --gpu h200 --format json
check "llama-2-7b fits an h200 (json)" 0
jq_ok 'd["schema"] == "gpuscope.vram.v1" and d["model"]["parameters"] == 6738415616'
jq_ok 'all(k in d["breakdown"] for k in ["weights","gradients","optimizer_states","activations","kv_cache","cuda_context","allocator_headroom"])'
jq_ok 'd["total_bytes"] == d["allocated_peak_bytes"] + d["breakdown"]["cuda_context"] + d["breakdown"]["allocator_headroom"]'
jq_ok 'abs(sum(v for k, v in d["breakdown"].items() if k not in ("cuda_context","allocator_headroom")) - d["allocated_peak_bytes"]) <= 16'
jq_ok 'd["breakdown"]["weights"] == 4 * 6738415616 and d["gpu"]["fits"] is True and d["changes"] == []'

run llama-2-7b --gpu "RTX 4090" --batch 4 --format json
check "llama-2-7b on a 4090 does not fit: exit 3" 3
jq_ok 'd["gpu"]["fits"] is False and any(c["cheapest"] and c["fits"] for c in d["changes"])'
jq_ok 'all(c["total_bytes"] > 0 for c in d["changes"])'

run llama-2-7b --gpu rtx4090 --batch 4
check "text on a 4090" 3
grep -q "does not fit" "$out" && grep -q "cheapest" "$out" && grep -q "total (what nvidia-smi" "$out" ||
	{ echo "FAIL: text lacks the verdict or ladder"; cat "$out"; fail=1; }

run qwen2.5-0.5b --mode qlora --gpu "RTX 4060 Laptop" --seq 1024
check "qwen2.5-0.5b qlora on a 4060 laptop" 0

run gpt2 --mode inference --precision bf16 --batch 8 --seq 512 --new-tokens 128 --gpu none --format json
check "gpt2 inference, no gpu" 0
jq_ok 'd["breakdown"]["kv_cache"] > 0 and "gpu" not in d'

run --family llama --layers 32 --hidden 4096 --heads 32 --intermediate 11008 --vocab 32000 --gpu none --format json
check "shape flags" 0
jq_ok 'd["model"]["parameters"] == 6738415616'
run --family gpt2 --layers 12 --hidden 768 --heads 12 --vocab 50257 --params 124M --gpu none --format json
check "--params" 0
jq_ok 'd["model"]["parameters"] == 124000000'

cat >"$tmp/config.json" <<'JSON'
{"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192, "num_attention_heads": 32,
 "num_hidden_layers": 16, "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 128256,
 "tie_word_embeddings": true}
JSON
run "$tmp/config.json" --gpu none --format json
check "config.json" 0
jq_ok 'd["model"]["parameters"] == 1235814400'
run "$tmp" --gpu none --format json
check "folder holding config.json" 0

# a recording's peak device memory beside the estimate: healthy_train.db
# (tests/fixtures/pytorch) holds 2032 device allocations of pid 682 and no
# free, 15036910367 bytes (sqlite3: sum(bytes) where mem_kind = 3)
src=$2
run --family gpt2 --layers 8 --hidden 1024 --heads 8 --vocab 8192 --batch 64 --seq 512 --gpu none \
	--recording "$src/tests/fixtures/pytorch/healthy_train.db" --format json
check "--recording" 0
jq_ok 'd["recording"]["peak_bytes"] == 15036910367 and d["recording"]["pid"] == 682 and d["recording"]["allocations"] == 2032'
jq_ok 'abs(d["recording"]["ratio"] - d["recording"]["estimate_reserved_bytes"] / 15036910367) < 1e-4'

run meta-llama/Llama-2-7b-hf --gpu none --format json
check "a hub id as --list shows it" 0
jq_ok 'd["model"]["name"] == "llama-2-7b"'
run llama-3-8b --gpu none
check "a near miss" 1
grep -q "did you mean llama-3.1-8b" "$errf" || { echo "FAIL: no suggestion"; cat "$errf"; fail=1; }

# issue 39's case: the levers that fit alone, checkpointing left out with why
run llama-2-7b --batch 1 --seq 2048 --gpu "A100 80GB"
check "llama-2-7b on an A100 80GB: exit 3" 3
grep -q -- "--precision bf16 .* fits" "$out" && grep -q -- "--optimizer adamw8bit .* fits" "$out" &&
	grep -q -- "--checkpointing full: no change: the peak is the optimizer step" "$out" &&
	! grep -q -- "^ *[0-9]*\. .*--checkpointing" "$out" ||
	{ echo "FAIL: the ladder of issue 39"; cat "$out"; fail=1; }
run llama-2-7b --gpu "A100 80GB" --format json
jq_ok 'd["peak_phase"] == "optimizer step" and any(c["flags"] == "--optimizer adamw8bit" and c["fits"] for c in d["changes"])'
jq_ok 'all(c["cost"] for c in d["changes"]) and any(x["flags"] == "--checkpointing full" for x in d["no_change"])'
jq_ok '[c["cost_rank"] for c in d["changes"]] == sorted(c["cost_rank"] for c in d["changes"])'

# the fit table: no GPU named (and none on a test machine), or --gpu table
run llama-2-7b --gpu table --format json
check "--gpu table" 0
jq_ok 'len(d["fit_table"]) == 10 and d["fit_table"][0]["name"] == "T4" and not d["fit_table"][0]["bf16"]'
jq_ok 'all(r["source"] for r in d["fit_table"]) and "gpu" not in d'
run llama-2-7b --gpu table
grep -q "no GPU named" "$out" && grep -q "no bf16: fp16 autocast" "$out" ||
	{ echo "FAIL: fit table text"; cat "$out"; fail=1; }

# the optimizers by HF Trainer's names; sharding and offload
run llama-2-7b --optimizer adamw_torch_fused --gpu none --format json
check "--optimizer adamw_torch_fused" 0
jq_ok 'd["job"]["optimizer"] == "adamw-fused" and d["breakdown"]["optimizer_temp"] == 0'
run llama-2-7b --gpus 4 --shard fsdp --gpu h100 --format json
check "--gpus 4 --shard fsdp" 0
jq_ok 'd["job"]["shard"] == "zero3" and d["job"]["gpus"] == 4'
run llama-2-7b --offload optimizer --gpu none --format json
check "--offload optimizer" 0
jq_ok 'd["host_bytes"] == 16 * 6738415616 and d["breakdown"]["optimizer_states"] == 0'

# inference words: no backward in them, the precision named as what runs
run gpt2 --mode inference --batch 8 --seq 512 --gpu none
check "inference words" 0
grep -q "transients (loss, backward" "$out" && { echo "FAIL: training words for an inference"; cat "$out"; fail=1; }
grep -q "precision: bf16 weights" "$out" || { echo "FAIL: precision words"; cat "$out"; fail=1; }

run --list
check "--list" 0
[ "$(grep -c . "$out")" -ge 20 ] || { echo "FAIL: --list is short"; fail=1; }
run --gpu list
check "--gpu list" 0
grep -q "H200" "$out" || { echo "FAIL: --gpu list lacks H200"; fail=1; }

bad() { # bad DESC WANT_RC ARGS...: that exit and exactly one line on stderr
	local desc=$1 want=$2
	shift 2
	run "$@"
	local rc=$?
	if [ $rc != "$want" ] || [ "$(wc -l <"$errf")" != 1 ] || [ -s "$out" ]; then
		echo "FAIL: $desc: exit $rc (wanted $want)"; cat "$errf"; fail=1
	else
		echo "ok: $desc"
	fi
}
printf '{"model_type": "llama", "hidden_' >"$tmp/trunc.json"
mkfifo "$tmp/fifo.json"
truncate -s 5M "$tmp/huge.json"
printf '\x00\x01\x02garbage' >"$tmp/bin.json"
bad "truncated config" 1 "$tmp/trunc.json"
bad "fifo config" 1 "$tmp/fifo.json"
bad "huge config" 1 "$tmp/huge.json"
bad "binary config" 1 "$tmp/bin.json"
bad "device file" 1 /dev/zero
bad "missing file" 1 "$tmp/none.json"
bad "unknown preset" 1 no-such-model
bad "unknown gpu" 2 gpt2 --gpu banana
bad "bad mode" 2 gpt2 --mode train
bad "bad precision" 2 gpt2 --precision int3
bad "bad batch" 2 gpt2 --batch 0
bad "junk number" 2 gpt2 --seq 12abc
bad "bad lora target" 1 llama-2-7b --mode lora --lora-targets c_attn
bad "fp8 full fine-tune" 1 llama-2-7b --precision fp8
bad "no model" 2 --batch 4
bad "shape without heads" 2 --layers 4 --hidden 64
bad "two models" 2 gpt2 llama-2-7b
bad "shard on one GPU" 1 llama-2-7b --shard zero2 --gpu none
bad "unknown optimizer" 2 gpt2 --optimizer adam
bad "offload for inference" 1 gpt2 --mode inference --offload optimizer --gpu none
bad "missing value" 2 gpt2 --batch
bad "recording not a trace" 1 gpt2 --gpu none --recording "$tmp/config.json"
exit $fail
