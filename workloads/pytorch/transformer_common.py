"""A transformer encoder training step, shared by transformer_step.py and
healthy_train.py. Inputs are generated on the CPU, pinned, and moved with
non_blocking=True; bf16 autocast; AdamW."""
import torch


def make(d_model, layers, batch, seq, vocab=8192, nbatches=4):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model, nhead=8, dim_feedforward=4 * d_model,
                                             batch_first=True, dropout=0.0)
    model = torch.nn.ModuleDict({
        "emb": torch.nn.Embedding(vocab, d_model),
        "enc": torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False),
        "head": torch.nn.Linear(d_model, vocab),
    }).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    data = [(torch.randint(0, vocab, (batch, seq)).pin_memory(),
             torch.randint(0, vocab, (batch, seq)).pin_memory()) for _ in range(nbatches)]
    return {"m": model, "opt": opt, "data": data, "vocab": vocab, "loss": None,
            "first": None}


def step(s, i):
    x, y = s["data"][i % len(s["data"])]
    x = x.cuda(non_blocking=True)
    y = y.cuda(non_blocking=True)
    m = s["m"]
    with torch.autocast("cuda", dtype=torch.bfloat16):
        h = m["enc"](m["emb"](x))
        logits = m["head"](h)
        loss = torch.nn.functional.cross_entropy(logits.float().view(-1, s["vocab"]),
                                                 y.view(-1))
    s["opt"].zero_grad(set_to_none=True)
    loss.backward()
    s["opt"].step()
    s["loss"] = loss.detach()
    if s["first"] is None:
        s["first"] = s["loss"]


def check(s):
    return bool(torch.isfinite(s["loss"])) and float(s["loss"]) <= float(s["first"]) + 0.5
