"""torch_counters.py OUT.json.gz: a small bf16 MLP training step under
torch.profiler with its experimental CUPTI range counters on
(_ExperimentalConfig(profiler_metrics=..., profiler_measure_per_kernel=True)),
so that gpuscope's importer can be checked on the `cuda_profiler_range`
events such a trace holds (issue 18, item 4). Prints one line,
`TORCH_COUNTERS events=N ranges=N`, read from the trace it wrote."""
import gzip
import json
import sys

import torch
from torch.profiler import ProfilerActivity, profile

METRICS = [
    "kineto__cuda_core_flops",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
]


def main():
    out = sys.argv[1]
    dev = "cuda"
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)
    ).to(dev, torch.bfloat16)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(256, 1024, device=dev, dtype=torch.bfloat16)

    def step():
        opt.zero_grad(set_to_none=True)
        model(x).float().pow(2).mean().backward()
        opt.step()

    step()
    torch.cuda.synchronize()
    cfg = torch.profiler._ExperimentalConfig(
        profiler_metrics=METRICS, profiler_measure_per_kernel=True
    )
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU],
                 experimental_config=cfg) as p:
        for _ in range(2):
            step()
        torch.cuda.synchronize()
    path = out[:-3] if out.endswith(".gz") else out
    p.export_chrome_trace(path)
    with open(path, "rb") as f:
        data = f.read()
    if out.endswith(".gz"):
        with gzip.open(out, "wb") as g:
            g.write(data)
    ev = json.loads(data).get("traceEvents", [])
    ranges = sum(1 for e in ev if e.get("cat") == "cuda_profiler_range")
    print(f"TORCH_COUNTERS events={len(ev)} ranges={ranges}", flush=True)


if __name__ == "__main__":
    main()
