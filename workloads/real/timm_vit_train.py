"""timm_vit_train: a ViT-S/16 from timm trained on batches made on the GPU.

timm.create_model("vit_small_patch16_224", pretrained=False) (random
weights, nothing from a hub), batch 128 of 224 x 224 images and labels made
on the device before the loop, bf16 autocast, fused AdamW, no syncs and no
DataLoader. ~4.6 GFLOP per image forward, so ~1.8 TFLOP a step (~5-10 ms)
against ~3 ms of Python: the host runs ahead. Expected: gpu_busy, healthy
(info); the top kernels are cuBLAS/nvjet GEMMs and flash attention (SDPA).
Advice that must not appear: DataLoader or input_pipeline (there is none),
float4 loads or occupancy on library kernels, host-side findings.
"""
import common

args = common.parse("timm_vit_train", __doc__, steps=20, warmup=3,
                    sizes={"batch": (128, 2), "img": (224, 32)})

import timm  # noqa: E402
import torch  # noqa: E402

import torch_driver as td  # noqa: E402


def setup(a, dev):
    m = timm.create_model("vit_small_patch16_224", pretrained=False, num_classes=1000,
                          img_size=a.img).to(dev)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4, fused=dev.type == "cuda")
    x = torch.randn(a.batch, 3, a.img, a.img, device=dev)
    y = torch.randint(0, 1000, (a.batch,), device=dev)
    return {"m": m, "opt": opt, "x": x, "y": y, "dev": dev, "first": None}


def step(s, i):
    td.train_step(s, lambda: torch.nn.functional.cross_entropy(s["m"](s["x"]), s["y"]))


td.run("timm_vit_train", args, setup, step, td.loss_ok)
