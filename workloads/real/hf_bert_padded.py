"""hf_bert_padded: a BERT classifier fine-tuned on short texts padded to max_length.

transformers' BertForSequenceClassification built from a BertConfig with
random weights (no hub): BERT-base width (768, 12 heads), 6 layers, SDPA
attention, bf16 autocast, AdamW. The data is what a tokenizer called with
padding="max_length", max_length=256 gives for short texts (reviews, tweets,
questions): token ids of 16 to 96 tokens each (a mean of 56), padded with
[PAD] to 256, and an attention mask. A DataLoader (2 workers) serves
batches of 32; every step computes all 256 positions of every sequence in
every layer, 4.6x the tokens that carry text (docs/causes.md row 33).
Expected: the `padding` finding in a torch.profiler trace (record_shapes:
every batch [32, 256] and SDPA given a [32, 1, 256, 256] mask); nothing in a
gpuscope recording, which has no op shapes.
--fixed: the collate function pads each batch to its own longest text, and
a sampler groups texts of similar length into batches (group_by_length):
batches of 20-100 tokens, their length changing from step to step. On the
H200 (torch 2.11) that ran 10x slower: SDPA runs on cuDNN's backend there,
which builds its fused kernel again for every new length (recompilation in
both sources); lengths rounded up to a multiple of 64 would keep them few.
--fixed --pad-multiple 64: that rounding (a tokenizer's pad_to_multiple_of=64): batches of
64 or 128 tokens, two shapes for cuDNN to build for, 2-4x fewer positions than max_length.
"""
import functools

import common

args = common.parse("hf_bert_padded", __doc__, steps=30, warmup=3,
                    sizes={"layers": (6, 2), "batch": (32, 4), "max_len": (256, 32),
                           "pad_multiple": (0, 0)},
                    flag=("fixed", "pad each batch to its longest text, batches grouped by length"))

import torch  # noqa: E402
from transformers import BertConfig, BertForSequenceClassification  # noqa: E402

import torch_driver as td  # noqa: E402

VOCAB = 30522
PAD = 0


class Texts(torch.utils.data.Dataset):
    """pre-tokenized texts of 16-96 tokens (1/6 to 3/8 of max_len on the CPU)"""

    def __init__(self, n, max_len, seed=1):
        g = torch.Generator().manual_seed(seed)
        lo, hi = max(2, max_len // 16), max(3, (3 * max_len) // 8)
        self.lens = torch.randint(lo, hi + 1, (n,), generator=g).tolist()
        self.ids = [torch.randint(1000, VOCAB, (k,), generator=g) for k in self.lens]
        self.labels = [int(t[0]) % 2 for t in self.ids]  # learnable: the first word piece
        self.max_len = max_len

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return self.ids[i], self.labels[i]


def collate(batch, to_len=None, multiple=0):
    """pads to to_len (max_length) or to the batch's longest text, rounded up
    to a multiple of `multiple` when it is not 0"""
    n = to_len or max(len(t) for t, _ in batch)
    if multiple > 0 and not to_len:
        n = -(-n // multiple) * multiple
    ids = torch.full((len(batch), n), PAD, dtype=torch.long)
    mask = torch.zeros((len(batch), n), dtype=torch.long)
    for r, (t, _) in enumerate(batch):
        ids[r, :len(t)] = t
        mask[r, :len(t)] = 1
    return ids, mask, torch.tensor([y for _, y in batch])


class ByLength(torch.utils.data.Sampler):
    """batches of texts of similar length (the Trainer's group_by_length),
    in a shuffled order of batches"""

    def __init__(self, lens, batch, seed=2):
        order = sorted(range(len(lens)), key=lambda i: lens[i])
        self.batches = [order[i:i + batch] for i in range(0, len(order) - batch + 1, batch)]
        g = torch.Generator().manual_seed(seed)
        self.batches = [self.batches[i] for i in torch.randperm(len(self.batches), generator=g)]

    def __iter__(self):
        return iter(self.batches)

    def __len__(self):
        return len(self.batches)


def setup(a, dev):
    big = a.device == "cuda"
    cfg = BertConfig(vocab_size=VOCAB, hidden_size=768 if big else 64,
                     num_hidden_layers=a.layers, num_attention_heads=12 if big else 4,
                     intermediate_size=3072 if big else 128, num_labels=2,
                     max_position_embeddings=max(512, a.max_len), attn_implementation="sdpa")
    model = BertForSequenceClassification(cfg).to(dev)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)
    total = a.warmup + a.steps + 8
    data = Texts(a.batch * total, a.max_len)
    if a.fixed:
        loader = torch.utils.data.DataLoader(data, batch_sampler=ByLength(data.lens, a.batch),
                                             collate_fn=functools.partial(
                                                 collate, multiple=a.pad_multiple),
                                             num_workers=2,
                                             pin_memory=dev.type == "cuda", persistent_workers=True)
    else:
        loader = torch.utils.data.DataLoader(data, batch_size=a.batch, shuffle=True,
                                             collate_fn=lambda b: collate(b, a.max_len),
                                             num_workers=2, pin_memory=dev.type == "cuda",
                                             persistent_workers=True, drop_last=True)
    return {"m": model, "opt": opt, "it": iter(loader), "dev": dev, "tokens": 0, "positions": 0}


def step(s, i):
    batch = next(s["it"])
    s["positions"] += batch[0].numel()
    s["tokens"] += int(batch[1].sum())  # on the host's copy: no sync
    ids, mask, labels = (t.to(s["dev"], non_blocking=True) for t in batch)
    td.train_step(s, lambda: s["m"](input_ids=ids, attention_mask=mask, labels=labels).loss)


td.run("hf_bert_padded", args, setup, step, td.loss_ok,
       extra=lambda s: {"text_share": round(s["tokens"] / max(1, s["positions"]), 3)})
