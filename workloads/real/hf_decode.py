"""hf_decode: greedy decoding with model.generate at batch 1 (host-bound).

transformers' GPT2LMHeadModel built from a GPT2Config with random weights
(no hub), DistilGPT-2's shape (6 layers, 768 wide, 12 heads, vocab 50257),
bf16, eval mode; each step is one `model.generate` call on a 16-token
prompt, greedy (do_sample=False), 16 new tokens (min_new_tokens=16, so the
random weights cannot stop early on EOS), the default dynamic KV cache. A
new token costs ~80 tiny kernels (batch 1: GEMVs and elementwise work of a
few microseconds each) behind milliseconds of Python in generate, the model
and the cache, so the GPU idles most of the time. Expected: host_overhead
(framework overhead per token; today's report may say launch_overhead),
with actions for decoding (static KV cache + torch.compile or CUDA graphs,
batching requests). Not input_pipeline: no data is loaded. generate checks
for finished sequences every token (a small sync), which must not become
the primary: the GPU has almost no queued work to lose.
"""
import common

args = common.parse("hf_decode", __doc__, steps=1, warmup=1,
                    sizes={"layers": (6, 2), "new_tokens": (16, 8), "prompt": (16, 8)})

import torch  # noqa: E402
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402

import torch_driver as td  # noqa: E402

VOCAB = 50257


def setup(a, dev):
    cfg = GPT2Config(vocab_size=VOCAB, n_layer=a.layers, n_embd=768 if a.device == "cuda" else 64,
                     n_head=12 if a.device == "cuda" else 4, n_positions=1024)
    model = GPT2LMHeadModel(cfg).to(dev, torch.bfloat16).eval()
    g = torch.Generator().manual_seed(2)
    prompts = [torch.randint(0, VOCAB, (1, a.prompt), generator=g).to(dev) for _ in range(4)]
    return {"m": model, "p": prompts, "n": a.new_tokens, "out": None}


def step(s, i):
    ids = s["p"][i % len(s["p"])]
    s["out"] = s["m"].generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=s["n"],
                               min_new_tokens=s["n"], do_sample=False, pad_token_id=0)


def check(s):
    return s["out"].shape[1] == s["p"][0].shape[1] + s["n"]


td.run("hf_decode", args, setup, step, check,
       extra=lambda s: {"tokens_per_step": s["n"]})
