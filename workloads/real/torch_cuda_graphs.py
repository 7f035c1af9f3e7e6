"""torch_cuda_graphs: a training step captured once and replayed (torch.cuda.graphs).

PyTorch's documented whole-network capture: an MLP (8 x Linear(1024, 1024)
+ ReLU, MSE loss, SGD) at batch 64, warmed up on a side stream, then
forward, backward and optimizer step captured into one torch.cuda.CUDAGraph;
each step copies the next batch into the static input (device to device)
and calls g.replay(). Eager, this step is ~50 tiny kernels behind ~0.5 ms
of Python (launch-bound); replayed, the host only enqueues one graph and
the GPU runs the kernels back to back. Expected: the host side is solved
(no host-side finding; gpu_busy), what is left is the kernels' own size
(batch 64: larger batches, fusion); never "use CUDA graphs" (it does),
never input_pipeline. --eager: the same loop without the graph (for diff:
launch_overhead there). --device cpu runs the eager path only.
"""
import common

args = common.parse("torch_cuda_graphs", __doc__, steps=80, warmup=3,
                    sizes={"width": (1024, 64), "batch": (64, 8), "layers": (8, 2)},
                    flag=("eager", "no graph: launch every kernel"))

import torch  # noqa: E402

import torch_driver as td  # noqa: E402


def setup(a, dev):
    layers = []
    for _ in range(a.layers):
        layers += [torch.nn.Linear(a.width, a.width), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.MSELoss()
    xs = [torch.randn(a.batch, a.width, device=dev) for _ in range(4)]
    data = [(x, 0.5 * x) for x in xs]  # a learnable target
    s = {"m": model, "opt": opt, "fn": loss_fn, "data": data, "graph": None, "first": None,
         "x": torch.zeros(a.batch, a.width, device=dev),
         "y": torch.zeros(a.batch, a.width, device=dev)}
    if dev.type == "cuda" and not a.eager:
        capture(s)
    return s


def eager_step(s):
    s["opt"].zero_grad(set_to_none=True)
    loss = s["fn"](s["m"](s["x"]), s["y"])
    loss.backward()
    s["opt"].step()
    return loss


def capture(s):
    """as in PyTorch's CUDA Graphs docs: warm up on a side stream, capture"""
    s["x"].copy_(s["data"][0][0])
    s["y"].copy_(s["data"][0][1])
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            eager_step(s)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    s["opt"].zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        s["static_loss"] = s["fn"](s["m"](s["x"]), s["y"])
        s["static_loss"].backward()
        s["opt"].step()
    s["graph"] = g


def step(s, i):
    x, y = s["data"][i % len(s["data"])]
    s["x"].copy_(x)
    s["y"].copy_(y)
    if s["graph"] is not None:
        s["graph"].replay()
        loss = s["static_loss"]
    else:
        loss = eager_step(s)
    s["loss"] = loss.detach().clone()
    if s["first"] is None:
        s["first"] = s["loss"]


def check(s):
    # finite and not diverged (td.loss_ok): a strict decrease fails runs of a
    # few steps on random data, traced or not (same-result-on-gpu.sh, 10 steps)
    return td.loss_ok(s)


td.run("torch_cuda_graphs", args, setup, step, check,
       extra=lambda s: {"graph": int(s["graph"] is not None)})
