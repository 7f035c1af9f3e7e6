"""hf_llama_train: a healthy Hugging Face causal-LM training step (GPU-bound).

transformers' LlamaForCausalLM built from a LlamaConfig with random weights
(no hub): hidden 1024, 8 layers, 16 heads (4 KV heads, GQA), SDPA attention,
vocab 8192; batch 16 x 1024 tokens, bf16 autocast, fused AdamW, the batches
made on the GPU before the loop, no host syncs in the loop. About 6 x 0.1 G
parameters x 16 k tokens = 10 TFLOP a step (~30-50 ms on an H200) against
~5 ms of Python to launch it: the host runs ahead and the GPU stays busy.
Expected: gpu_busy (healthy; cuBLAS/nvjet GEMMs and flash attention at the
top), no host-side finding.
"""
import common

args = common.parse("hf_llama_train", __doc__, steps=6, warmup=2,
                    sizes={"hidden": (1024, 128), "layers": (8, 2), "batch": (16, 2),
                           "seq": (1024, 64)})

import torch  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM  # noqa: E402

import torch_driver as td  # noqa: E402

VOCAB = 8192


def setup(a, dev):
    cfg = LlamaConfig(vocab_size=VOCAB, hidden_size=a.hidden, intermediate_size=a.hidden * 11 // 4,
                      num_hidden_layers=a.layers, num_attention_heads=16 if a.hidden >= 1024 else 4,
                      num_key_value_heads=4 if a.hidden >= 1024 else 2,
                      max_position_embeddings=a.seq, attn_implementation="sdpa")
    model = LlamaForCausalLM(cfg).to(dev)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=dev.type == "cuda")
    batches = [torch.randint(0, VOCAB, (a.batch, a.seq), device=dev) for _ in range(4)]
    return {"m": model, "opt": opt, "b": batches, "dev": dev}


def step(s, i):
    ids = s["b"][i % len(s["b"])]
    td.train_step(s, lambda: s["m"](input_ids=ids, labels=ids).loss)


td.run("hf_llama_train", args, setup, step, td.loss_ok)
