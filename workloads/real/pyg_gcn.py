"""pyg_gcn: a 3-layer GCN from PyTorch Geometric trained full-batch on a random graph.

torch_geometric.nn.GCNConv (normalisation recomputed each forward,
cached=False, as its examples leave it), 100k nodes, 1M random edges, 128
features, hidden 256, 16 classes, AdamW, 30 steps, everything on the GPU.
The step is scatter/gather message passing (index_add / scatter_reduce
kernels, memory-bound) and small GEMMs. Exploratory: the verdict is not
designed; what must hold is that advice fits a PyG program (no DataLoader
or pin_memory advice: there is no loader; no float4/occupancy advice on
PyTorch's own scatter kernels).
"""
import common

args = common.parse("pyg_gcn", __doc__, steps=30, warmup=3,
                    sizes={"nodes": (100000, 500), "edges": (1000000, 4000)})

import torch  # noqa: E402
from torch_geometric.nn import GCNConv  # noqa: E402

import torch_driver as td  # noqa: E402


class GCN(torch.nn.Module):
    def __init__(self, cin, hidden, cout):
        super().__init__()
        self.c1 = GCNConv(cin, hidden)
        self.c2 = GCNConv(hidden, hidden)
        self.c3 = GCNConv(hidden, cout)

    def forward(self, x, ei):
        x = torch.relu(self.c1(x, ei))
        x = torch.relu(self.c2(x, ei))
        return self.c3(x, ei)


def setup(a, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    ei = torch.randint(0, a.nodes, (2, a.edges), generator=g).to(dev)
    x = torch.randn(a.nodes, 128, generator=g).to(dev)
    y = torch.randint(0, 16, (a.nodes,), generator=g).to(dev)
    m = GCN(128, 256, 16).to(dev)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-2)
    return {"m": m, "opt": opt, "x": x, "y": y, "ei": ei, "dev": dev, "first": None}


def step(s, i):
    s["opt"].zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(s["m"](s["x"], s["ei"]), s["y"])
    loss.backward()
    s["opt"].step()
    s["loss"] = loss.detach()
    if s["first"] is None:
        s["first"] = s["loss"]


td.run("pyg_gcn", args, setup, step, td.loss_ok)
