"""torch_fp32_matmul: an MLP trained in fp32 under PyTorch's default matmul precision.

A 4-layer MLP (8192 -> 8192 x 3 -> 1024) trained on device batches of 8192
rows in plain fp32: no autocast, torch.set_float32_matmul_precision left at
its default "highest", so cuBLAS runs SGEMM on the SIMT pipes (cutlass
simt_sgemm / xmma ..._ffma kernels) and the tensor cores idle (~2 TFLOP a
step: tens of ms on an H200). Expected (issue 36 item 1): compute_bound
recorded (GPM: fp32 pipe high, tensor ~0), gpu_busy from the trace, with the
first kernel action torch.set_float32_matmul_precision("high") or bf16
autocast and the card's gain (TF32 8x, bf16 16x its fp32 peak on the H200).
--fixed: set_float32_matmul_precision("high") (TF32 kernels, names with
tf32): no precision action, the loop several times faster. Never DataLoader,
float4 or __launch_bounds__ advice.
"""
import common

args = common.parse("torch_fp32_matmul", __doc__, steps=20, warmup=3,
                    sizes={"width": (8192, 256), "batch": (8192, 64)},
                    flag=("fixed", "TF32 matmuls (set_float32_matmul_precision('high'))"))

import torch  # noqa: E402

import torch_driver as td  # noqa: E402


def setup(a, dev):
    if a.fixed:
        torch.set_float32_matmul_precision("high")
    layers = []
    for _ in range(3):
        layers += [torch.nn.Linear(a.width, a.width), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(a.width, 1024)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=dev.type == "cuda")
    g = torch.Generator(device=dev).manual_seed(7)
    x = torch.randn(a.batch, a.width, device=dev, generator=g)
    y = torch.randint(0, 1024, (a.batch,), device=dev, generator=g)
    return {"m": model, "opt": opt, "x": x, "y": y}


def step(s, i):
    # fp32 throughout: no autocast (td.train_step's bf16 is what --fixed would go on to)
    loss = torch.nn.functional.cross_entropy(s["m"](s["x"]), s["y"])
    loss.backward()
    s["opt"].step()
    s["opt"].zero_grad(set_to_none=True)
    s["loss"] = loss.detach()
    if s.get("first") is None:
        s["first"] = s["loss"]


td.run("torch_fp32_matmul", args, setup, step, td.loss_ok,
       extra=lambda s: {"tf32": int(torch.get_float32_matmul_precision() != "highest")})
