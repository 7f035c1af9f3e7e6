"""capture_ranges: torch.cuda.profiler.start/stop and torch.cuda.nvtx.range
for `record --capture-range` (workloads/capture-on-gpu.sh; not in the zoo).

Every op is an in-place x.add_(1.0) on a CUDA tensor: one elementwise
kernel each, so the counts are exact. Phases:
  zeros (one fill kernel), pre 80 adds
  torch.cuda.profiler.start()
    A 50 adds; with torch.cuda.nvtx.range("capture_me"): B 30 adds
  torch.cuda.profiler.stop()
  C 40 adds; with torch.cuda.nvtx.range("capture_me"): D 20 adds
  torch.cuda.profiler.start(); E 10 adds; torch.cuda.profiler.stop()
  F 5 adds; x.sum().item() (reduction kernels after every window)
The last line: CAPTURE adds=... profiler=... nvtx=... (kernels each mode
must record; adds = the add kernels of the whole run).
"""
import torch

x = torch.zeros(1 << 16, device="cuda")
n = 0


def adds(k):
    global n
    for _ in range(k):
        x.add_(1.0)
    n += k


adds(80)
torch.cuda.synchronize()
torch.cuda.profiler.start()
adds(50)
with torch.cuda.nvtx.range("capture_me"):
    adds(30)
torch.cuda.profiler.stop()
adds(40)
with torch.cuda.nvtx.range("capture_me"):
    adds(20)
torch.cuda.profiler.start()
adds(10)
torch.cuda.profiler.stop()
adds(5)
total = x.sum().item()
if total != float(n * x.numel()):
    raise SystemExit(f"capture_ranges.py: wrong result {total} != {n * x.numel()}")
print(f"CAPTURE adds={n} profiler={50 + 30 + 10} nvtx={30 + 20} nvtx_name=capture_me", flush=True)
