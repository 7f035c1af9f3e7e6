"""lightning_mlp: a small MLP trained with PyTorch Lightning's Trainer, data from a CPU DataLoader.

A beginner's first Lightning script: LightningModule MLP (784-512-512-10)
on a synthetic MNIST-sized TensorDataset held in CPU memory (60000 x 784
float32), DataLoader(batch_size=64, shuffle=True) with the default
num_workers=0, Trainer(accelerator="gpu", devices=1, max_steps=600), the
loss logged with self.log every step, no progress bar, logger or
checkpoints. Each step's GPU work is a few microsecond-sized kernels; the
host spends ~1-2 ms in Lightning's loop, the optimizer step and the
DataLoader's per-sample indexing and collate on the main thread: the GPU
sits mostly idle ("GPU at 20%"). Expected: a host-side primary
(host_overhead / launch_overhead, or input_pipeline for the collate on the
main thread), named with the host functions that take the time; actions
that fit a Lightning user: a larger batch size, DataLoader workers, fewer
per-step logs; never CUDA C advice (float4, occupancy) for PyTorch's kernels.
Record only (Lightning's own profiler would be its torch.profiler run).
"""
import common

args = common.parse("lightning_mlp", __doc__, steps=600, warmup=0, profile=False,
                    sizes={"samples": (60000, 512)})

import lightning as L  # noqa: E402
import torch  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402


class MLP(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                                       torch.nn.Linear(512, 512), torch.nn.ReLU(),
                                       torch.nn.Linear(512, 10))
        self.first = None
        self.last = None

    def training_step(self, batch, i):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss)
        d = loss.detach()
        if self.first is None:
            self.first = d
        self.last = d
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def main():
    torch.manual_seed(0)
    x = torch.randn(args.samples, 784)
    w = torch.randn(784, 10)
    y = (x @ w).argmax(1)
    dl = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    model = MLP()
    acc = "gpu" if args.device == "cuda" else "cpu"
    tr = L.Trainer(accelerator=acc, devices=1, max_steps=args.steps, max_epochs=-1,
                   enable_progress_bar=False, logger=False, enable_checkpointing=False,
                   enable_model_summary=False)
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    with common.Timer(args.prog, sync) as t:
        tr.fit(model, dl)
    t.line(args.steps)
    if not (torch.isfinite(model.last) and float(model.last) < float(model.first)):
        common.fail(args.prog, f"loss did not go down ({model.first} -> {model.last})")
    common.result(args.prog, loss=float(model.last),
                  weights_abs=float(sum(p.detach().double().abs().sum() for p in model.parameters())))
    common.workload(args.prog, args.steps)


main()
