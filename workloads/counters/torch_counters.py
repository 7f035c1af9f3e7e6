"""torch_counters.py OUT.json.gz [ACTIVITIES [PER_KERNEL [METRICS]]]: a small
bf16 MLP training step under torch.profiler with its experimental CUPTI
range counters on (_ExperimentalConfig(profiler_metrics=...,
profiler_measure_per_kernel=...)), so that gpuscope's importer can be checked
on the `cuda_profiler_range` events such a trace holds (issue 18, item 4).

ACTIVITIES: "cpu,cuda" (default), "cuda" or "cpu"; PER_KERNEL: 1 (default)
or 0; METRICS: "plain" (default: Nsight Compute names gpuscope's
kernel_metrics.h also has) or "kineto" (kineto's aliases
kineto__cuda_core_flops and kineto__tensor_core_insts, which kineto expands
into CUPTI metrics). Prints one line, `TORCH_COUNTERS events=N ranges=N
kernels=N launches=N range_args=K1,K2,...`, read from the trace it wrote,
and the versions first (`TORCH_VERSIONS ...`)."""
import gzip
import json
import sys

import torch
from torch.profiler import ProfilerActivity, profile

PLAIN = [
    "gpu__time_duration.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
]
KINETO = ["kineto__cuda_core_flops", "kineto__tensor_core_insts", "dram__bytes_read.sum"]


def main():
    out = sys.argv[1]
    acts = sys.argv[2] if len(sys.argv) > 2 else "cpu,cuda"
    per_kernel = (sys.argv[3] if len(sys.argv) > 3 else "1") == "1"
    metrics = KINETO if (sys.argv[4] if len(sys.argv) > 4 else "plain") == "kineto" else PLAIN
    print(f"TORCH_VERSIONS torch={torch.__version__} cuda={torch.version.cuda} "
          f"kineto_available={torch.profiler.kineto_available()} "
          f"git={getattr(torch.version, 'git_version', '?')}", flush=True)
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
        profiler_metrics=metrics, profiler_measure_per_kernel=per_kernel
    )
    activities = []
    if "cpu" in acts.split(","):
        activities.append(ProfilerActivity.CPU)
    if "cuda" in acts.split(","):
        activities.append(ProfilerActivity.CUDA)
    with profile(activities=activities, experimental_config=cfg) as p:
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
    ranges = [e for e in ev if e.get("cat") == "cuda_profiler_range"]
    kernels = sum(1 for e in ev if e.get("cat") == "kernel")
    launches = sum(1 for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")
                   and "LaunchKernel" in str(e.get("name", "")))
    keys = sorted(ranges[0].get("args", {}).keys()) if ranges else []
    print(f"TORCH_COUNTERS events={len(ev)} ranges={len(ranges)} kernels={kernels} "
          f"launches={launches} range_args={','.join(keys) or '-'}", flush=True)


if __name__ == "__main__":
    main()
