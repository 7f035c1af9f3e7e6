"""dataloader_starved: a DataLoader with num_workers=0 and a slow __getitem__.

Each sample costs ~1 ms of CPU (sleep + numpy work) in the main process, so a
batch of 32 takes ~35 ms while the small model's step takes ~1 ms: the GPU
idles while the host prepares data. Expected finding: input_pipeline.
30 steps (batches).
"""
import time

import numpy as np
import torch

import zoo_common as zc

args = zc.parse("dataloader_starved", steps=30, profile_steps=5)


class SlowDataset(torch.utils.data.Dataset):
    def __len__(self):
        return 1 << 20

    def __getitem__(self, i):
        time.sleep(0.0005)
        rng = np.random.default_rng(i)
        img = rng.standard_normal((3, 64, 64)).astype(np.float32)
        img = np.clip(img * 0.5 + 0.1, -2, 2)  # "augmentation"
        return torch.from_numpy(img), int(i % 10)


def setup():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                torch.nn.Linear(16, 10)).cuda()
    loader = torch.utils.data.DataLoader(SlowDataset(), batch_size=32, shuffle=False,
                                         num_workers=0)
    return {"m": model, "opt": torch.optim.SGD(model.parameters(), lr=0.01),
            "it": iter(loader), "loss": None}


def step(s, i):
    x, y = next(s["it"])
    x, y = x.cuda(), y.cuda()
    s["opt"].zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(s["m"](x), y)
    loss.backward()
    s["opt"].step()
    s["loss"] = loss.detach()


def check(s):
    return bool(torch.isfinite(s["loss"]))


zc.run("dataloader_starved", args, setup, step, check)
