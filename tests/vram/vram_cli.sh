#!/usr/bin/env bash
# vram CLI: JSON contract (total_bytes, breakdown), text, exit codes (0 fits,
# 3 does not), presets and GPU lists, shape flags, and one clear line with
# a non-zero exit for each kind of bad input (never a hang on a FIFO).
# usage: vram_cli.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
out=$tmp/out errf=$tmp/err
run() { timeout 20 "$bin" vram "$@" >"$out" 2>"$errf"; }
jq_ok() { python3 -c "import json,sys; d=json.load(open('$out')); sys.exit(0 if ($1) else 1)" ||
	{ bad "json: $1"; head -c 600 "$out"; }; }

exits 0 "llama-2-7b fits an h200 (json)" run llama-2-7b --gpu h200 --format json
jq_ok 'd["schema"] == "gpuscope.vram.v1" and d["model"]["parameters"] == 6738415616'
jq_ok 'all(k in d["breakdown"] for k in ["weights","gradients","optimizer_states","activations","kv_cache","cuda_context","allocator_headroom"])'
jq_ok 'd["total_bytes"] == d["allocated_peak_bytes"] + d["breakdown"]["cuda_context"] + d["breakdown"]["allocator_headroom"]'
jq_ok 'abs(sum(v for k, v in d["breakdown"].items() if k not in ("cuda_context","allocator_headroom")) - d["allocated_peak_bytes"]) <= 16'
jq_ok 'd["breakdown"]["weights"] == 4 * 6738415616 and d["gpu"]["fits"] is True and d["changes"] == []'

exits 3 "llama-2-7b on a 4090 does not fit: exit 3" run llama-2-7b --gpu "RTX 4090" --batch 4 --format json
jq_ok 'd["gpu"]["fits"] is False and any(c["cheapest"] and c["fits"] for c in d["changes"])'
jq_ok 'all(c["total_bytes"] > 0 for c in d["changes"])'

exits 3 "text on a 4090" run llama-2-7b --gpu rtx4090 --batch 4
grep -q "does not fit" "$out" && grep -q "cheapest" "$out" && grep -q "total (what nvidia-smi" "$out" ||
	{ bad "text lacks the verdict or ladder"; cat "$out"; }

exits 0 "qwen2.5-0.5b qlora on a 4060 laptop" run qwen2.5-0.5b --mode qlora --gpu "RTX 4060 Laptop" --seq 1024

exits 0 "gpt2 inference, no gpu" run gpt2 --mode inference --precision bf16 --batch 8 --seq 512 --new-tokens 128 --gpu none --format json
jq_ok 'd["breakdown"]["kv_cache"] > 0 and "gpu" not in d'

exits 0 "shape flags" run --family llama --layers 32 --hidden 4096 --heads 32 --intermediate 11008 --vocab 32000 --gpu none --format json
jq_ok 'd["model"]["parameters"] == 6738415616'
exits 0 "--params" run --family gpt2 --layers 12 --hidden 768 --heads 12 --vocab 50257 --params 124M --gpu none --format json
jq_ok 'd["model"]["parameters"] == 124000000'

cat >"$tmp/config.json" <<'JSON'
{"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192, "num_attention_heads": 32,
 "num_hidden_layers": 16, "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 128256,
 "tie_word_embeddings": true}
JSON
exits 0 "config.json" run "$tmp/config.json" --gpu none --format json
jq_ok 'd["model"]["parameters"] == 1235814400'
exits 0 "folder holding config.json" run "$tmp" --gpu none --format json

# a recording's peak device memory beside the estimate: healthy_train.db
# (tests/fixtures/pytorch) holds 2032 device allocations of pid 682 and no
# free, 15036910367 bytes (sqlite3: sum(bytes) where mem_kind = 3)
exits 0 "--recording" run --family gpt2 --layers 8 --hidden 1024 --heads 8 --vocab 8192 --batch 64 --seq 512 --gpu none \
	--recording "$src/tests/fixtures/pytorch/healthy_train.db" --format json
jq_ok 'd["recording"]["peak_bytes"] == 15036910367 and d["recording"]["pid"] == 682 and d["recording"]["allocations"] == 2032'
jq_ok 'abs(d["recording"]["ratio"] - d["recording"]["estimate_reserved_bytes"] / 15036910367) < 1e-4'

exits 0 "a hub id as --list shows it" run meta-llama/Llama-2-7b-hf --gpu none --format json
jq_ok 'd["model"]["name"] == "llama-2-7b"'
exits 1 "a near miss" run llama-3-8b --gpu none
grep -q "did you mean llama-3.1-8b" "$errf" || { bad "no suggestion"; cat "$errf"; }

# issue 39's case: the levers that fit alone, checkpointing left out with why
exits 3 "llama-2-7b on an A100 80GB: exit 3" run llama-2-7b --batch 1 --seq 2048 --gpu "A100 80GB"
grep -q -- "--precision bf16 .* fits" "$out" && grep -q -- "--optimizer adamw8bit .* fits" "$out" &&
	grep -q -- "--checkpointing full: no change: the peak is the optimizer step" "$out" &&
	! grep -q -- "^ *[0-9]*\. .*--checkpointing" "$out" ||
	{ bad "the ladder of issue 39"; cat "$out"; }
run llama-2-7b --gpu "A100 80GB" --format json
jq_ok 'd["peak_phase"] == "optimizer step" and any(c["flags"] == "--optimizer adamw8bit" and c["fits"] for c in d["changes"])'
jq_ok 'all(c["cost"] for c in d["changes"]) and any(x["flags"] == "--checkpointing full" for x in d["no_change"])'
jq_ok '[c["cost_rank"] for c in d["changes"]] == sorted(c["cost_rank"] for c in d["changes"])'

# the fit table: no GPU named (and none on a test machine), or --gpu table
exits 0 "--gpu table" run llama-2-7b --gpu table --format json
jq_ok 'len(d["fit_table"]) == 10 and d["fit_table"][0]["name"] == "T4" and not d["fit_table"][0]["bf16"]'
jq_ok 'all(r["source"] for r in d["fit_table"]) and "gpu" not in d'
run llama-2-7b --gpu table
grep -q "no GPU named" "$out" && grep -q "no bf16: fp16 autocast" "$out" ||
	{ bad "fit table text"; cat "$out"; }

# the optimizers by HF Trainer's names; sharding and offload
exits 0 "--optimizer adamw_torch_fused" run llama-2-7b --optimizer adamw_torch_fused --gpu none --format json
jq_ok 'd["job"]["optimizer"] == "adamw-fused" and d["breakdown"]["optimizer_temp"] == 0'
exits 0 "--gpus 4 --shard fsdp" run llama-2-7b --gpus 4 --shard fsdp --gpu h100 --format json
jq_ok 'd["job"]["shard"] == "zero3" and d["job"]["gpus"] == 4'
exits 0 "--offload optimizer" run llama-2-7b --offload optimizer --gpu none --format json
jq_ok 'd["host_bytes"] == 16 * 6738415616 and d["breakdown"]["optimizer_states"] == 0'

# inference words: no backward in them, the precision named as what runs
exits 0 "inference words" run gpt2 --mode inference --batch 8 --seq 512 --gpu none
grep -q "transients (loss, backward" "$out" && { bad "training words for an inference"; cat "$out"; }
grep -q "precision: bf16 weights" "$out" || { bad "precision words"; cat "$out"; }

exits 0 "--list" run --list
[ "$(grep -c . "$out")" -ge 20 ] || bad "--list is short"
exits 0 "--gpu list" run --gpu list
grep -q "H200" "$out" || bad "--gpu list lacks H200"

refused() { # refused DESC WANT_RC ARGS...: that exit and exactly one line on stderr
	local desc=$1 want=$2
	shift 2
	run "$@"
	local rc=$?
	if [ $rc != "$want" ] || [ "$(wc -l <"$errf")" != 1 ] || [ -s "$out" ]; then
		bad "$desc: exit $rc (wanted $want)"; cat "$errf"
	else
		ok "$desc"
	fi
}
printf '{"model_type": "llama", "hidden_' >"$tmp/trunc.json"
mkfifo "$tmp/fifo.json"
truncate -s 5M "$tmp/huge.json"
printf '\x00\x01\x02garbage' >"$tmp/bin.json"
refused "truncated config" 1 "$tmp/trunc.json"
refused "fifo config" 1 "$tmp/fifo.json"
refused "huge config" 1 "$tmp/huge.json"
refused "binary config" 1 "$tmp/bin.json"
refused "device file" 1 /dev/zero
refused "missing file" 1 "$tmp/none.json"
refused "unknown preset" 1 no-such-model
refused "unknown gpu" 2 gpt2 --gpu banana
refused "bad mode" 2 gpt2 --mode train
refused "bad precision" 2 gpt2 --precision int3
refused "bad batch" 2 gpt2 --batch 0
refused "junk number" 2 gpt2 --seq 12abc
refused "bad lora target" 1 llama-2-7b --mode lora --lora-targets c_attn
refused "fp8 full fine-tune" 1 llama-2-7b --precision fp8
refused "no model" 2 --batch 4
refused "shape without heads" 2 --layers 4 --hidden 64
refused "two models" 2 gpt2 llama-2-7b
refused "shard on one GPU" 1 llama-2-7b --shard zero2 --gpu none
refused "unknown optimizer" 2 gpt2 --optimizer adam
refused "offload for inference" 1 gpt2 --mode inference --offload optimizer --gpu none
refused "missing value" 2 gpt2 --batch
refused "recording not a trace" 1 gpt2 --gpu none --recording "$tmp/config.json"
exit $fail
