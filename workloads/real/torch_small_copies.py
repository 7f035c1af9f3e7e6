"""torch_small_copies: thousands of 4 KiB host-to-device copies a step.

Each step gathers its batch as 4096 rows of 1024 float32 (4 KiB each) that
live as separate CPU tensors (a list of per-sample feature vectors) and
copies them to the GPU one by one (`row.to("cuda")`, pageable,
synchronous), then runs a small MLP on the stacked batch. The copies are
4096 calls of ~10 us each: the link's bandwidth never matters. Expected
(issue 36 item 5): transfer, saying "4096 copies of 4 KiB each: batch into
one" (torch.stack / torch.cat on the host, one pinned copy), not
"pin_memory and overlap" first. --fixed: one torch.stack on the host and
one pinned non_blocking copy per step. Never DataLoader-workers advice.
"""
import common

args = common.parse("torch_small_copies", __doc__, steps=10, warmup=2,
                    sizes={"rows": (4096, 64), "features": (1024, 64)},
                    flag=("fixed", "one stacked, pinned copy per step"))

import torch  # noqa: E402

import torch_driver as td  # noqa: E402


def setup(a, dev):
    g = torch.Generator().manual_seed(11)
    rows = [torch.randn(a.features, generator=g) for _ in range(a.rows)]
    model = torch.nn.Sequential(torch.nn.Linear(a.features, 1024), torch.nn.GELU(),
                                torch.nn.Linear(1024, 16)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=dev.type == "cuda")
    y = torch.randint(0, 16, (a.rows,), generator=g).to(dev)
    pinned = torch.empty(a.rows, a.features).pin_memory() if dev.type == "cuda" else None
    return {"m": model, "opt": opt, "rows": rows, "y": y, "dev": dev, "fixed": a.fixed,
            "pinned": pinned}


def step(s, i):
    if s["fixed"]:
        host = torch.stack(s["rows"], out=s["pinned"]) if s["pinned"] is not None \
            else torch.stack(s["rows"])
        x = host.to(s["dev"], non_blocking=True)
    else:
        x = torch.stack([r.to(s["dev"]) for r in s["rows"]])  # one 4 KiB copy per row
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](x).float(), s["y"]))


td.run("torch_small_copies", args, setup, step, td.loss_ok,
       extra=lambda s: {"copies_per_step": 1 if s["fixed"] else len(s["rows"]),
                        "bytes_per_copy": s["rows"][0].numel() * 4})
