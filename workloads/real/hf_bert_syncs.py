"""hf_bert_syncs: a BERT fine-tune loop with hidden host syncs every step.

transformers' BertForSequenceClassification built from a BertConfig with
random weights (no hub): BERT-base width (768, 12 heads), 6 layers, 2
labels; batch 64 x 128 tokens of a pre-tokenized synthetic set with padding,
served by a DataLoader (2 workers, pin_memory) and copied non_blocking; bf16
autocast, AdamW, a linear LR schedule, grad clipping. The loop does what
fine-tuning scripts often do each step, and each of these blocks the host
until the GPU has drained its queue:
  - `if not torch.isfinite(loss)` before backward (skip bad batches),
  - `tr_loss += loss.item()`, `grad_norm.item()`, accuracy `.item()`,
  - the predictions copied to the CPU (`.cpu()`) for a running macro F1 in
    numpy, and a JSON log line through `logging`.
The GPU work of a step (~2 TFLOP) is larger than the host's launch work, so
without the syncs the host would run ahead (--fixed: metrics accumulated on
the GPU, read and logged every 10 steps). Expected: sync_stall (the GPU
idles after each sync while the host relaunches and logs). The DataLoader is
not the bottleneck: its batches are ready (2 workers prefetching, collate of
64 rows of int64).
"""
import common

args = common.parse("hf_bert_syncs", __doc__, steps=10, warmup=2,
                    sizes={"layers": (6, 2), "batch": (64, 4), "seq": (128, 32)},
                    flag=("fixed", "no per-step syncs: metrics on the GPU, logged every 10 steps"))

import json  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import BertConfig, BertForSequenceClassification  # noqa: E402

import torch_driver as td  # noqa: E402

VOCAB = 30522
LOG_EVERY = 10


def make_data(n, seq):
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(1000, VOCAB, (n, seq), generator=g)
    lens = torch.randint(seq // 2, seq + 1, (n,), generator=g)
    mask = (torch.arange(seq)[None, :] < lens[:, None]).long()
    ids = ids * mask  # [PAD] = 0 past each example's length
    labels = (ids[:, 1] % 2).long()  # learnable: the parity of the first word piece
    return torch.utils.data.TensorDataset(ids, mask, labels)


def setup(a, dev):
    cfg = BertConfig(vocab_size=VOCAB, hidden_size=768 if a.device == "cuda" else 64,
                     num_hidden_layers=a.layers, num_attention_heads=12 if a.device == "cuda" else 4,
                     intermediate_size=3072 if a.device == "cuda" else 128, num_labels=2,
                     attn_implementation="sdpa")
    model = BertForSequenceClassification(cfg).to(dev)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)
    total = a.warmup + a.steps + 8
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.0, 1 - s / total))
    data = make_data(a.batch * total, a.seq)
    loader = torch.utils.data.DataLoader(data, batch_size=a.batch, shuffle=True, num_workers=2,
                                         pin_memory=dev.type == "cuda", persistent_workers=True,
                                         drop_last=True)
    log = logging.getLogger("hf_bert_syncs")
    log.setLevel(logging.INFO)
    fd, path = tempfile.mkstemp(prefix="hf_bert_syncs.", suffix=".log")
    os.close(fd)
    log.addHandler(logging.FileHandler(path))
    return {"m": model, "opt": opt, "sched": sched, "it": iter(loader), "dev": dev, "log": log,
            "logpath": path, "fixed": a.fixed, "tr_loss": 0.0, "preds": [], "labels": [],
            "gpu_loss": torch.zeros((), device=dev), "gpu_acc": torch.zeros((), device=dev),
            "losses": [], "skipped": 0}


def macro_f1(pred, gold):
    f1 = []
    for c in (0, 1):
        tp = np.sum((pred == c) & (gold == c))
        fp = np.sum((pred == c) & (gold != c))
        fn = np.sum((pred != c) & (gold == c))
        f1.append(2 * tp / max(1, 2 * tp + fp + fn))
    return float(np.mean(f1))


def step(s, i):
    dev = s["dev"]
    ids, mask, labels = (t.to(dev, non_blocking=True) for t in next(s["it"]))
    with torch.autocast(dev.type, dtype=torch.bfloat16):
        out = s["m"](input_ids=ids, attention_mask=mask, labels=labels)
    loss = out.loss
    if not s["fixed"] and not torch.isfinite(loss):  # sync: the host waits for the forward
        s["skipped"] += 1
        s["opt"].zero_grad(set_to_none=True)
        return
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(s["m"].parameters(), 1.0)
    s["opt"].step()
    s["sched"].step()
    s["opt"].zero_grad(set_to_none=True)
    pred = out.logits.detach().argmax(-1)
    if s["fixed"]:
        s["gpu_loss"] += loss.detach().float()
        s["gpu_acc"] += (pred == labels).float().mean()
        if (i + 1) % LOG_EVERY == 0:
            rec = {"step": i, "loss": s["gpu_loss"].item() / LOG_EVERY,
                   "acc": s["gpu_acc"].item() / LOG_EVERY, "lr": s["sched"].get_last_lr()[0]}
            s["gpu_loss"].zero_()
            s["gpu_acc"].zero_()
            s["losses"].append(rec["loss"])
            s["log"].info(json.dumps(rec))
        return
    s["tr_loss"] += loss.item()  # sync
    rec = {"step": i, "loss": loss.item(), "grad_norm": gn.item(),  # syncs
           "acc": (pred == labels).float().mean().item(), "lr": s["sched"].get_last_lr()[0]}
    s["preds"].extend(pred.cpu().tolist())  # a device-to-host copy: sync
    s["labels"].extend(labels.cpu().tolist())
    rec["f1"] = macro_f1(np.array(s["preds"]), np.array(s["labels"]))
    rec["avg_loss"] = s["tr_loss"] / (i + 1)
    s["losses"].append(rec["loss"])
    s["log"].info(json.dumps(rec))


def check(s):
    os.unlink(s["logpath"])
    if s["fixed"]:
        return bool(torch.isfinite(s["gpu_loss"])) and all(np.isfinite(s["losses"]))
    return len(s["losses"]) > 0 and all(np.isfinite(s["losses"])) and s["skipped"] == 0


td.run("hf_bert_syncs", args, setup, step, check)
