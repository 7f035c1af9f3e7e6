"""hf_eager_attention: a Hugging Face causal LM trained with eager (unfused) attention.

transformers' LlamaForCausalLM built from a LlamaConfig with random weights
(no hub): hidden 1024, 4 layers, 16 heads, sequences of 2048 tokens, batch 8,
bf16 autocast, fused AdamW, batches made on the GPU before the loop, with
attn_implementation="eager": every layer's attention runs as a batched GEMM
for the scores, a softmax over the 2048 x 2048 matrix (materialised in HBM,
then dropout and a second GEMM), as models do when they ask for attention
weights (output_attentions=True) or predate SDPA. At this length the score
matrix's softmax and its backward move more bytes than the GEMMs around them
(docs/causes.md row 34). Expected: GPU-bound (gpu_busy or memory_bound) with
the attention's softmax kernels among the top, and advice to use the fused
attention of the framework (attn_implementation="sdpa" / flash attention).
--fixed: attn_implementation="sdpa" (flash / memory-efficient kernels), the
loop faster and no unfused-attention advice.
"""
import common

args = common.parse("hf_eager_attention", __doc__, steps=6, warmup=2,
                    sizes={"hidden": (1024, 128), "layers": (4, 2), "batch": (8, 2),
                           "seq": (2048, 64)},
                    flag=("fixed", "fused attention (attn_implementation='sdpa')"))

import torch  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM  # noqa: E402

import torch_driver as td  # noqa: E402

VOCAB = 8192


def setup(a, dev):
    cfg = LlamaConfig(vocab_size=VOCAB, hidden_size=a.hidden, intermediate_size=a.hidden * 11 // 4,
                      num_hidden_layers=a.layers, num_attention_heads=16 if a.hidden >= 1024 else 4,
                      num_key_value_heads=16 if a.hidden >= 1024 else 4,
                      max_position_embeddings=a.seq,
                      attn_implementation="sdpa" if a.fixed else "eager")
    torch.manual_seed(3)
    model = LlamaForCausalLM(cfg).to(dev)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=dev.type == "cuda")
    g = torch.Generator(device=dev).manual_seed(5)
    batches = [torch.randint(0, VOCAB, (a.batch, a.seq), device=dev, generator=g) for _ in range(4)]
    return {"m": model, "opt": opt, "b": batches, "dev": dev}


def step(s, i):
    ids = s["b"][i % len(s["b"])]
    td.train_step(s, lambda: s["m"](input_ids=ids, labels=ids).loss)


td.run("hf_eager_attention", args, setup, step, td.loss_ok)
