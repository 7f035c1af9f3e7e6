"""Loads the GPU frameworks the H200 image has (PyTorch with cuBLAS and
cuDNN in use, Triton, CuPy, JAX) and stays alive long enough for
hostsample-probe.sh to read its /proc/PID/maps (each second)."""
import os
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
loaded = []
try:
    import torch

    a = torch.randn(256, 256, device="cuda")
    (a @ a).sum().item()  # cuBLAS
    torch.nn.functional.conv2d(torch.randn(1, 3, 32, 32, device="cuda"),
                               torch.randn(8, 3, 3, 3, device="cuda")).sum().item()  # cuDNN
    loaded.append("torch")
except Exception as e:  # noqa: BLE001 - the probe reports what loaded
    print("torch:", e)
for mod in ("triton", "cupy", "jax"):
    try:
        m = __import__(mod)
        if mod == "cupy":
            m.ones(4).sum()
        if mod == "jax":
            m.numpy.ones(4).block_until_ready()
        loaded.append(mod)
    except Exception as e:  # noqa: BLE001
        print(mod + ":", e)
print("LOADED", " ".join(loaded), flush=True)
time.sleep(1.5)  # the probe reads the maps each second
