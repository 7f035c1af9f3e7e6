"""profiler_conflict: CUDA work, then torch.profiler started inside the same
process. Run it under `gpuscope record` to see what happens when two CUPTI
clients meet (on the H200 before: both lost everything). Prints
`CONFLICT torch_events=N torch_cuda_events=M` and a WORKLOAD line; never
fails on 0 events (that is the finding), only on a wrong result.
"""
import sys

import torch
from torch.profiler import ProfilerActivity, profile

a = torch.randn(1024, 1024, device="cuda")
for _ in range(20):  # before the profiler: gpuscope alone
    a = torch.tanh(a @ a.T / 32.0)
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(20):
        a = torch.tanh(a @ a.T / 32.0)
    torch.cuda.synchronize()
try:
    events = list(prof.events())
except Exception as e:  # a profiler that lost its buffers may not even parse
    print(f"profiler_conflict: prof.events() failed: {e}", file=sys.stderr)
    events = []
cuda_events = [e for e in events if "CUDA" in str(getattr(e, "device_type", ""))]
for _ in range(20):  # after the profiler: does gpuscope still record?
    a = torch.tanh(a @ a.T / 32.0)
torch.cuda.synchronize()
if not bool(torch.isfinite(a).all()):
    print("profiler_conflict: wrong result", file=sys.stderr)
    sys.exit(1)
print(f"CONFLICT torch_events={len(events)} torch_cuda_events={len(cuda_events)}")
print("WORKLOAD name=profiler_conflict steps=60", flush=True)
