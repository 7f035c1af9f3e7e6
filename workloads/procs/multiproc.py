"""multiproc.py MODE - PyTorch programs made of several processes, to check
that `gpuscope record` traces each process that uses CUDA under its own pid,
with nothing lost or mixed up (issue 3, item 4). Modes:

  spawn       the parent and 2 children started by multiprocessing's spawn
              method (exec of a new interpreter: torch.multiprocessing.spawn,
              most launchers) all use CUDA at the same time
  fork        the parent touches no CUDA, forks 2 children that use it, and
              uses CUDA itself once they are done
  dataloader  DataLoader(num_workers=2, pin_memory=True): workers forked
              without exec and never using CUDA, a pinning thread, batches
              copied with non_blocking=True
  subprocess  the program runs itself as a child (subprocess.run) and works
              at the same time
  rank        one torchrun rank: `python -m torch.distributed.run --standalone
              --nproc_per_node=2 multiproc.py rank` (gloo process group, every
              rank on cuda:0 of a one-GPU machine)
  triton      one process: a @triton.jit kernel launched 3000 times (Triton's
              launcher calls the driver API, cuLaunchKernelEx, not the runtime)

Every process that used CUDA prints `PROC pid=P ppid=Q kernels=K memcpy=C`:
K = the ops it ran + 1 (torch.ones' fill kernel), C = its copies (the last one
the device-to-host copy of the result, which is checked). On the H200 with
PyTorch 2.11 one `x.add_(1.0)` is one kernel (workloads/robust/steady.py: 363000
adds gave 363001 kernel rows). workloads/procs/check_procs.py compares these
lines with the database. A wrong result exits 1.
"""
import os
import subprocess
import sys

import torch


def finish(x, n, tag):
    """checks x == 1 + n after n increments of torch.ones (one device-to-host
    copy) and prints this process's PROC line: n kernels + the fill"""
    got = x.cpu()
    if not bool((got == 1.0 + n).all()):
        print(f"multiproc: {tag}: wrong result {got[0].item()} != {1.0 + n}", file=sys.stderr)
        sys.exit(1)
    print(f"PROC pid={os.getpid()} ppid={os.getppid()} kernels={n + 1} memcpy=1", flush=True)


def ops(n, tag):
    """n add_ kernels on cuda:0"""
    x = torch.ones(1024, device="cuda")
    for _ in range(n):
        x.add_(1.0)
    finish(x, n, tag)


def child(i):
    ops(1000 * (i + 1), f"child {i}")


def run_children(method, parent_ops):
    import multiprocessing as mp
    ctx = mp.get_context(method)
    kids = [ctx.Process(target=child, args=(i,)) for i in range(2)]
    for k in kids:
        k.start()
    if parent_ops:
        ops(parent_ops, "parent")
    for k in kids:
        k.join()
        if k.exitcode != 0:
            print(f"multiproc: a {method} child exited {k.exitcode}", file=sys.stderr)
            sys.exit(1)


class Items(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        return torch.full((1024,), float(i))


def dataloader():
    acc = torch.ones(8, 1024, device="cuda")
    dl = torch.utils.data.DataLoader(Items(), batch_size=8, num_workers=2, pin_memory=True)
    n = 0
    for b in dl:
        acc.add_(b.cuda(non_blocking=True))
        n += 1
    got = acc.cpu()
    want = torch.ones(8, 1024) + sum(torch.arange(8.0).view(8, 1) + 8.0 * j for j in range(n))
    if n != 8 or not torch.equal(got, want.expand(8, 1024)):
        print("multiproc: dataloader: wrong result", file=sys.stderr)
        sys.exit(1)
    print(f"PROC pid={os.getpid()} ppid={os.getppid()} kernels={n + 1} memcpy={n + 1}", flush=True)


def triton_launches(n=3000):
    import triton
    import triton.language as tl

    @triton.jit
    def add_one_kernel(x_ptr, n_elements, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n_elements
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)

    x = torch.ones(1024, device="cuda")
    for _ in range(n):
        add_one_kernel[(4,)](x, 1024, BLOCK=256)
    finish(x, n, "triton")


def rank():
    import torch.distributed as dist
    dist.init_process_group("gloo")
    r = dist.get_rank()
    ops(1000 * (r + 1), f"rank {r}")
    dist.barrier()
    dist.destroy_process_group()


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "spawn":
        run_children("spawn", 500)
    elif mode == "fork":
        run_children("fork", 0)
        ops(500, "parent after fork")
    elif mode == "dataloader":
        dataloader()
    elif mode == "subprocess":
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "child", "2"])
        ops(1500, "parent")
        if p.wait() != 0:
            print("multiproc: the subprocess failed", file=sys.stderr)
            sys.exit(1)
    elif mode == "child":
        child(int(sys.argv[2]))
    elif mode == "triton":
        triton_launches()
    elif mode == "rank":
        rank()
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
