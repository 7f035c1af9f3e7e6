"""tv_resnet_loader: ResNet-50 training starved by its DataLoader (CPU augmentation).

torchvision's resnet50(weights=None) (random weights, no download),
channels_last, bf16 autocast, SGD with momentum; batch 64 at 224 x 224. The
data is what an ImageNet script reads: JPEG files (made in memory at setup,
320 x 320, PIL quality 90) decoded by PIL and augmented on the CPU by
torchvision's classic pipeline (RandomResizedCrop, RandomHorizontalFlip,
ColorJitter, ToTensor, Normalize), ~5 ms per image, served by a DataLoader
with only 2 workers (pin_memory=True, batches copied non_blocking) on a
16-core machine: a batch takes ~150-200 ms to prepare, the GPU's step
~50 ms. Expected: input_pipeline, with DataLoader evidence (the workers in
the process tree, the DataLoader's __next__ waiting in the trace); actions:
more workers, GPU-side decode/augmentation, lighter CPU transforms. Not
pin_memory (already on), not sync_stall, not launch_overhead. --fixed: 12
workers.
"""
import common

args = common.parse("tv_resnet_loader", __doc__, steps=5, warmup=2,
                    sizes={"batch": (64, 4), "image": (320, 72), "crop": (224, 56),
                           "workers": (2, 2)},
                    flag=("fixed", "12 DataLoader workers"))

import io  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torchvision  # noqa: E402
from PIL import Image  # noqa: E402
from torchvision import transforms as T  # noqa: E402

import torch_driver as td  # noqa: E402

NCLASS = 100
NIMG = 256


def jpegs(n, size):
    """n smooth random images (low-frequency noise, so JPEG has work), encoded"""
    rng = np.random.default_rng(3)
    out = []
    for _ in range(n):
        small = rng.integers(0, 256, (size // 16, size // 16, 3), dtype=np.uint8)
        img = Image.fromarray(small).resize((size, size), Image.BILINEAR)
        buf = io.BytesIO()
        img.save(buf, format="JPEG", quality=90)
        out.append(buf.getvalue())
    return out


class JpegFolder(torch.utils.data.Dataset):
    """an ImageFolder over in-memory files: decode + augment per item"""

    def __init__(self, files, length, crop):
        self.files = files
        self.length = length
        self.tf = T.Compose([
            T.RandomResizedCrop(crop), T.RandomHorizontalFlip(),
            T.ColorJitter(0.4, 0.4, 0.4), T.ToTensor(),
            T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        img = Image.open(io.BytesIO(self.files[i % len(self.files)])).convert("RGB")
        return self.tf(img), i % NCLASS


def setup(a, dev):
    model = torchvision.models.resnet50(weights=None, num_classes=NCLASS)
    model = model.to(dev, memory_format=torch.channels_last).train()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    total = a.warmup + a.steps + 8
    ds = JpegFolder(jpegs(NIMG, a.image), a.batch * total, a.crop)
    loader = torch.utils.data.DataLoader(ds, batch_size=a.batch, shuffle=True, drop_last=True,
                                         num_workers=12 if a.fixed else a.workers,
                                         pin_memory=dev.type == "cuda", persistent_workers=True)
    return {"m": model, "opt": opt, "it": iter(loader), "dev": dev}


def step(s, i):
    x, y = next(s["it"])
    x = x.to(s["dev"], non_blocking=True, memory_format=torch.channels_last)
    y = y.to(s["dev"], non_blocking=True)
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](x), y))


# labels are not learnable from random images: the check is a finite loss
td.run("tv_resnet_loader", args, setup, step, lambda s: bool(torch.isfinite(s["loss"])))
