"""torch_compile_shapes: a torch.compile'd model fed a new sequence length every step.

A small transformer encoder layer stack (d_model 512, 4 layers) compiled
with torch.compile(dynamic=False), called on batches whose sequence length
grows by 24 tokens each step (12 distinct lengths, then again), so dynamo's
guards fail and inductor compiles the graph again for every new length
(cache_size_limit raised so it keeps compiling instead of falling back to
eager). Expected (issue 36 item 2): recompilation, its compilations after
the first counted, the same Triton kernels compiled again, advice
torch._dynamo.mark_dynamic / dynamic=True and TORCH_LOGS=recompiles; the
analysed window is the whole run (no quiet stretch is the steady state).
--fixed: lengths padded to two buckets (256, 512): two compilations, then a
steady state. Never input_pipeline or host_overhead for the compiles;
never JAX advice.
"""
import common

args = common.parse("torch_compile_shapes", __doc__, steps=24, warmup=2,
                    sizes={"d_model": (512, 64), "batch": (32, 2)},
                    flag=("fixed", "pad the lengths to two buckets"))

import torch  # noqa: E402

import torch_driver as td  # noqa: E402

LENGTHS = [128 + 24 * k for k in range(12)]  # 128 .. 392


def setup(a, dev):
    import torch._dynamo

    torch._dynamo.config.cache_size_limit = 64
    layer = torch.nn.TransformerEncoderLayer(a.d_model, 8, 4 * a.d_model, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, 4).to(dev)
    compiled = torch.compile(model, dynamic=False)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=dev.type == "cuda")
    g = torch.Generator(device=dev).manual_seed(3)
    x = torch.randn(a.batch, max(LENGTHS), a.d_model, device=dev, generator=g)
    return {"m": model, "c": compiled, "opt": opt, "x": x, "dev": dev, "fixed": a.fixed}


def step(s, i):
    n = LENGTHS[i % len(LENGTHS)]
    if s["fixed"]:
        n = 256 if n <= 256 else 512
        x = torch.nn.functional.pad(s["x"], (0, 0, 0, max(0, n - s["x"].shape[1])))[:, :n]
    else:
        x = s["x"][:, :n]
    td.train_step(s, lambda: s["c"](x).float().pow(2).mean())


td.run("torch_compile_shapes", args, setup, step, td.loss_ok,
       extra=lambda s: {"lengths": len(LENGTHS), "fixed": int(s["fixed"])})
