#!/usr/bin/env python3
"""Peak GPU memory of real fine-tunes and inferences, for `gpuscope vram`.

Builds GPT-2- and Llama-shaped models from transformers config classes with
random weights (nothing from the hub; HF_HUB_OFFLINE=1), runs each
configuration in a fresh process and records torch.cuda.max_memory_allocated
and max_memory_reserved, the memory outside PyTorch's allocator (CUDA context
and libraries: device used - reserved), and the bytes autograd saved for the
backward in one separate forward (saved_tensors_hooks, unique storages), so
the estimator's activation term can be checked on its own.

Training loop per configuration (what `gpuscope vram` models): STEPS steps of
  forward under torch.autocast(bf16) (AMP: fp32 master weights; LoRA: bf16
  base, fp32 adapters), loss = model(input_ids, labels=input_ids).loss,
  loss.backward(), AdamW.step() (foreach, PyTorch's default on CUDA),
  zero_grad(set_to_none=True).
Inference: model.generate(greedy, min_new_tokens = max_new_tokens), bf16
  weights, the default DynamicCache.

Each configuration runs in a child forked from the parent after the imports
(the parent never creates a CUDA context; PYTORCH_NVML_BASED_CUDA_CHECK=1), so
each has its own CUDA context and allocator without paying the imports again.
The configurations are in priority order; with --budget (or $BUDGET_S) none is
started that would end past it.

Optimizers (--set optim): the same loop with each optimizer as it is run
(torch.optim.AdamW foreach and fused=True, bitsandbytes AdamW8bit and
PagedAdamW8bit, transformers' Adafactor as HF Trainer makes it, SGD with
momentum). Every training row records the bytes of the optimizer's state
tensors (unique storages, after the steps; paged ones included) and the
step's temporaries: torch.cuda.max_memory_allocated() during the last
opt.step() minus memory_allocated() before it (the states exist by then).

usage:
  python3 measure.py --out DIR [--device cuda|cpu] [--tiny] [--only NAME,...]
                     [--set all|optim] [--budget S] [--timeout S]
  VRAM_BUILD=direct: models made in their dtype (_from_config(dtype=...)), as
  from_pretrained loads them, instead of in fp32 and cast (how the fixtures
  of tests/fixtures/vram/h200 were made)
writes DIR/vram-measured.csv, DIR/vram-measured.json (one row per
configuration with its exact parameters and the whole HF config) and
DIR/vram-measure.log, and prints a short table last.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 3

# Shapes (config fields as transformers names them). gpt2*: GPT2Config with
# its defaults (dropout 0.1, gelu_new, tied); llama*: LlamaConfig.
SHAPES = {
    "gpt2": dict(family="gpt2", n_embd=768, n_layer=12, n_head=12),
    "gpt2-medium": dict(family="gpt2", n_embd=1024, n_layer=24, n_head=16),
    "gpt2-large": dict(family="gpt2", n_embd=1280, n_layer=36, n_head=20),
    "llama-110m": dict(family="llama", hidden_size=768, num_hidden_layers=12,
                       num_attention_heads=12, num_key_value_heads=4,
                       intermediate_size=2048, vocab_size=32000, tie_word_embeddings=False),
    "llama-3.2-1b": dict(family="llama", hidden_size=2048, num_hidden_layers=16,
                         num_attention_heads=32, num_key_value_heads=8, head_dim=64,
                         intermediate_size=8192, vocab_size=128256, tie_word_embeddings=True),
    "llama-3.2-3b": dict(family="llama", hidden_size=3072, num_hidden_layers=28,
                         num_attention_heads=24, num_key_value_heads=8, head_dim=128,
                         intermediate_size=8192, vocab_size=128256, tie_word_embeddings=True),
    # mixtures of experts (transformers 5: experts as 3D parameters, the
    # grouped_mm experts implementation): small shapes of each layout
    "mixtral-mini": dict(family="mixtral", hidden_size=1024, num_hidden_layers=8,
                         num_attention_heads=16, num_key_value_heads=4, head_dim=64,
                         intermediate_size=2816, num_local_experts=8, num_experts_per_tok=2,
                         vocab_size=32000, tie_word_embeddings=False),
    "qwen2moe-mini": dict(family="qwen2_moe", hidden_size=1024, num_hidden_layers=8,
                          num_attention_heads=16, num_key_value_heads=16,
                          intermediate_size=2816, moe_intermediate_size=704,
                          shared_expert_intermediate_size=2816, num_experts=16,
                          num_experts_per_tok=4, vocab_size=32000, tie_word_embeddings=False),
    "qwen3moe-mini": dict(family="qwen3_moe", hidden_size=1024, num_hidden_layers=8,
                          num_attention_heads=16, num_key_value_heads=4, head_dim=64,
                          intermediate_size=2816, moe_intermediate_size=384, num_experts=32,
                          num_experts_per_tok=8, vocab_size=32000, tie_word_embeddings=False),
    "olmoe-mini": dict(family="olmoe", hidden_size=1024, num_hidden_layers=8,
                       num_attention_heads=16, num_key_value_heads=16, intermediate_size=512,
                       num_experts=32, num_experts_per_tok=8, vocab_size=32000,
                       tie_word_embeddings=False),
}

# transformers' config and model classes of each family
CLASSES = {
    "gpt2": ("GPT2Config", "GPT2LMHeadModel"),
    "llama": ("LlamaConfig", "LlamaForCausalLM"),
    "mixtral": ("MixtralConfig", "MixtralForCausalLM"),
    "qwen2_moe": ("Qwen2MoeConfig", "Qwen2MoeForCausalLM"),
    "qwen3_moe": ("Qwen3MoeConfig", "Qwen3MoeForCausalLM"),
    "olmoe": ("OlmoeConfig", "OlmoeForCausalLM"),
}

# (name, shape, mode, checkpointing, batch, seq, new_tokens, expected seconds on
# the H200 after the imports). In priority order: the budget cuts from the end.
CONFIGS = [
    ("gpt2-full-b8-s1024", "gpt2", "full", "none", 8, 1024, 0, 3),
    ("gpt2-full-b8-s512", "gpt2", "full", "none", 8, 512, 0, 3),
    ("gpt2-full-ckpt-b8-s1024", "gpt2", "full", "full", 8, 1024, 0, 3),
    ("gpt2-lora-b8-s1024", "gpt2", "lora", "none", 8, 1024, 0, 3),
    ("llama110m-full-b8-s1024", "llama-110m", "full", "none", 8, 1024, 0, 3),
    ("llama1b-full-b2-s1024", "llama-3.2-1b", "full", "none", 2, 1024, 0, 5),
    ("llama1b-full-b2-s2048", "llama-3.2-1b", "full", "none", 2, 2048, 0, 5),
    ("llama1b-full-ckpt-b4-s2048", "llama-3.2-1b", "full", "full", 4, 2048, 0, 6),
    ("llama1b-lora-b4-s2048", "llama-3.2-1b", "lora", "none", 4, 2048, 0, 5),
    ("llama1b-infer-b16-p1024-n256", "llama-3.2-1b", "inference", "none", 16, 1024, 256, 8),
    ("llama3b-full-b1-s1024", "llama-3.2-3b", "full", "none", 1, 1024, 0, 8),
    ("llama3b-lora-b4-s1024", "llama-3.2-3b", "lora", "none", 4, 1024, 0, 7),
    ("llama1b-qlora-b4-s2048", "llama-3.2-1b", "qlora", "none", 4, 2048, 0, 12),
    ("gpt2l-infer-b8-p512-n128", "gpt2-large", "inference", "none", 8, 512, 128, 6),
    ("llama3b-lora-ckpt-b4-s2048", "llama-3.2-3b", "lora", "full", 4, 2048, 0, 8),
    ("gpt2m-full-b4-s1024", "gpt2-medium", "full", "none", 4, 1024, 0, 4),
    ("llama3b-qlora-b4-s1024", "llama-3.2-3b", "qlora", "none", 4, 1024, 0, 20),
    ("mixtral-full-b4-s1024", "mixtral-mini", "full", "none", 4, 1024, 0, 6),
    ("mixtral-lora-b4-s1024", "mixtral-mini", "lora", "none", 4, 1024, 0, 6),
    ("qwen2moe-full-b4-s1024", "qwen2moe-mini", "full", "none", 4, 1024, 0, 6),
    ("qwen2moe-lora-b4-s1024", "qwen2moe-mini", "lora", "none", 4, 1024, 0, 6),
    ("qwen3moe-full-b4-s1024", "qwen3moe-mini", "full", "none", 4, 1024, 0, 6),
    ("qwen3moe-lora-b4-s1024", "qwen3moe-mini", "lora", "none", 4, 1024, 0, 6),
    ("olmoe-full-b4-s1024", "olmoe-mini", "full", "none", 4, 1024, 0, 6),
    ("olmoe-lora-b4-s1024", "olmoe-mini", "lora", "none", 4, 1024, 0, 6),
    ("mixtral-full-ckpt-b4-s1024", "mixtral-mini", "full", "full", 4, 1024, 0, 6),
    ("qwen3moe-qlora-b4-s1024", "qwen3moe-mini", "qlora", "none", 4, 1024, 0, 15),
    ("mixtral-infer-b8-p512-n64", "mixtral-mini", "inference", "none", 8, 512, 64, 8),
]

# (name, shape, mode, checkpointing, batch, seq, new_tokens, seconds, optimizer):
# short sequences, so that the optimizer step is the peak of the full 1B rows
OPTIM_CONFIGS = [
    ("optim-llama1b-adamw", "llama-3.2-1b", "full", "none", 1, 256, 0, 8, "adamw"),
    ("optim-llama1b-adamw-fused", "llama-3.2-1b", "full", "none", 1, 256, 0, 8, "adamw-fused"),
    ("optim-llama1b-adamw8bit", "llama-3.2-1b", "full", "none", 1, 256, 0, 10, "adamw8bit"),
    ("optim-llama1b-paged-adamw8bit", "llama-3.2-1b", "full", "none", 1, 256, 0, 10,
     "paged-adamw8bit"),
    ("optim-llama1b-adafactor", "llama-3.2-1b", "full", "none", 1, 256, 0, 10, "adafactor"),
    ("optim-llama1b-sgd", "llama-3.2-1b", "full", "none", 1, 256, 0, 8, "sgd"),
    ("optim-gpt2-adamw8bit", "gpt2", "full", "none", 8, 1024, 0, 5, "adamw8bit"),
    ("optim-llama110m-adamw-fused", "llama-110m", "full", "none", 8, 1024, 0, 5, "adamw-fused"),
    ("optim-llama1b-lora-adamw8bit", "llama-3.2-1b", "lora", "none", 4, 1024, 0, 8, "adamw8bit"),
]
CONFIG_SETS = {"all": CONFIGS, "optim": OPTIM_CONFIGS}

LORA_RANK, LORA_ALPHA = 16, 32


def config_row(name):
    """The configuration called name, and its optimizer (default adamw)."""
    row = next(c for c in CONFIGS + OPTIM_CONFIGS if c[0] == name)
    return row[:8], (row[8] if len(row) > 8 else "adamw")


def make_optimizer(name, params):
    """The optimizer as people run it (HF Trainer's optim value in brackets)."""
    import torch
    if name == "adamw":  # foreach, torch's default on CUDA (adamw_torch)
        return torch.optim.AdamW(params, lr=1e-5)
    if name == "adamw-fused":  # adamw_torch_fused: Trainer's default with torch >= 2.8
        return torch.optim.AdamW(params, lr=1e-5, fused=True)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-5, momentum=0.9)
    if name == "adafactor":  # adafactor: the two arguments Trainer passes
        from transformers.optimization import Adafactor
        return Adafactor(params, lr=1e-5, scale_parameter=False, relative_step=False)
    sys_path_bnb()
    import bitsandbytes as bnb
    if name == "adamw8bit":  # adamw_bnb_8bit
        return bnb.optim.AdamW8bit(params, lr=1e-5)
    if name == "paged-adamw8bit":  # paged_adamw_8bit
        return bnb.optim.PagedAdamW8bit(params, lr=1e-5)
    raise ValueError("unknown optimizer " + name)


def state_bytes(opt):
    """Bytes of the optimizer's state tensors (unique storages)."""
    import torch
    seen = {}
    for st in opt.state.values():
        for v in st.values():
            if isinstance(v, torch.Tensor):
                s = v.untyped_storage()
                seen[(s.data_ptr(), str(v.device))] = s.nbytes()
    return sum(seen.values())


def tiny_shape(shape):
    """A shape small enough for a CPU test, same family and ratios."""
    s = dict(shape)
    if s["family"] == "gpt2":
        s.update(n_embd=64, n_layer=2, n_head=4, vocab_size=1000, n_positions=512)
    elif s["family"] != "llama":  # experts: 8 of width 32 (the shared one 128), top 2
        s.update(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, head_dim=16, intermediate_size=128, vocab_size=1000)
        s.update({k: v for k, v in dict(num_local_experts=8, num_experts=8,
                                        num_experts_per_tok=2, moe_intermediate_size=32,
                                        shared_expert_intermediate_size=128).items() if k in s})
        if s["family"] == "mixtral":
            s["intermediate_size"] = 32
    else:
        s.update(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, head_dim=16, intermediate_size=128, vocab_size=1000)
    return s


def sys_path_bnb():
    """bitsandbytes from $BNB_PATH when set (run-on-gpu.sh installs the wheel
    that fetch-bnb.sh made and puts it on PYTHONPATH)."""
    p = os.environ.get("BNB_PATH", "")
    if p and os.path.isdir(p) and p not in sys.path:
        sys.path.insert(0, os.path.abspath(p))


def build(shape, mode, device):
    import torch
    import transformers as T

    fam = shape["family"]
    kw = {k: v for k, v in shape.items() if k != "family"}
    cfg = getattr(T, CLASSES[fam][0])(**kw)
    cfg._attn_implementation = "sdpa"
    if mode == "full":
        dtype = torch.float32
    else:
        dtype = torch.bfloat16
    cls = getattr(T, CLASSES[fam][1])
    quant = None
    if mode == "qlora":
        sys_path_bnb()
        import bitsandbytes  # noqa: F401  (ImportError: the caller skips the row)
        quant = T.BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
                                     bnb_4bit_use_double_quant=True,
                                     bnb_4bit_compute_dtype=torch.bfloat16)
    if quant is None and os.environ.get("VRAM_BUILD") == "direct":
        # the weights made in their dtype, as from_pretrained(dtype=...) loads them:
        # no fp32 copies go through the allocator first (the default below makes
        # them, and for inference rows their cached blocks are part of the
        # measured reserve)
        with torch.device(device):
            model = cls._from_config(cfg, dtype=dtype)
    elif quant is None:
        with torch.device(device):
            model = cls(cfg).to(dtype)
    else:
        # from_config cannot quantise; save random weights locally and load them 4-bit
        import tempfile
        d = tempfile.mkdtemp(prefix="vram-qlora-",
                             dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        with torch.device("cuda" if device == "cuda" else "cpu"):
            m = cls(cfg).to(torch.bfloat16)
        m.save_pretrained(d)
        del m
        import shutil
        import atexit
        atexit.register(shutil.rmtree, d, True)
        if device == "cuda":
            torch.cuda.empty_cache()
        model = cls.from_pretrained(d, quantization_config=quant, dtype=torch.bfloat16,
                                    device_map={"": 0} if device == "cuda" else {"": "cpu"})
    return cfg, model


def nvml_process_used(pid):
    """GPU memory NVML charges to this process (bytes), or None."""
    try:
        import pynvml
        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(0)
        for p in pynvml.nvmlDeviceGetComputeRunningProcesses(h):
            if p.pid == pid and p.usedGpuMemory:
                return int(p.usedGpuMemory)
    except Exception:
        return None
    return None


def saved_bytes(model, step_fn):
    """Bytes autograd saves for one forward (unique storages)."""
    import torch

    seen = {}

    def pack(t):
        try:
            st = t.untyped_storage()
            seen[(st.data_ptr(), t.device)] = st.nbytes()
        except Exception:
            pass
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = step_fn()
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    total = sum(n for (ptr, _), n in seen.items() if ptr not in params)
    del loss
    return total


def run_one(name, device, tiny):
    import torch

    row, optim = config_row(name)
    _, shape_name, mode, ckpt, batch, seq, new_tokens, _ = row
    shape = SHAPES[shape_name]
    if tiny:
        shape = tiny_shape(shape)
        batch, seq, new_tokens = 2, 64, min(new_tokens, 8)
    cuda = device == "cuda"
    torch.manual_seed(0)
    t0 = time.time()
    cfg, model = build(shape, mode, device)
    out = dict(name=name, shape=shape_name, mode=mode, checkpointing=ckpt, batch=batch, seq=seq,
               new_tokens=new_tokens, device=device, torch=torch.__version__,
               config={k: v for k, v in shape.items()})
    import transformers
    out["transformers"] = transformers.__version__
    out["build"] = os.environ.get("VRAM_BUILD") or "cast"
    out["parameters"] = sum(p.numel() for p in model.parameters())
    out["hf_config"] = json.loads(cfg.to_json_string(use_diff=False))
    vocab = cfg.vocab_size
    ids = torch.randint(0, vocab, (batch, seq), device=device)
    amp = torch.autocast(device_type="cuda" if cuda else "cpu", dtype=torch.bfloat16)

    if mode == "inference":
        model.eval()
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        with torch.no_grad():
            # an explicit all-ones mask: no padding, so SDPA runs without a mask tensor
            gen = model.generate(ids, attention_mask=torch.ones_like(ids),
                                 max_new_tokens=new_tokens, min_new_tokens=new_tokens,
                                 do_sample=False, pad_token_id=vocab - 1, eos_token_id=None)
        out["generated"] = int(gen.shape[1] - seq)
        out["trainable"] = 0
    else:
        if mode in ("lora", "qlora"):
            import peft
            if mode == "qlora":
                model = peft.prepare_model_for_kbit_training(
                    model, use_gradient_checkpointing=ckpt == "full")
            # peft 0.21 finds no default targets for transformers 5's MoE models
            # (experts are parameters, not modules): its table's own for mixtral
            targets = None if shape["family"] in ("gpt2", "llama") else ["q_proj", "v_proj"]
            lcfg = peft.LoraConfig(r=LORA_RANK, lora_alpha=LORA_ALPHA, lora_dropout=0.0,
                                   task_type="CAUSAL_LM", target_modules=targets)
            model = peft.get_peft_model(model, lcfg)
            out["lora_targets"] = sorted(model.peft_config["default"].target_modules)
            out["peft"] = peft.__version__
        if ckpt == "full" and mode != "qlora":
            model.gradient_checkpointing_enable()  # use_reentrant=False (transformers 5)
        model.config.use_cache = False
        model.train()
        params = [p for p in model.parameters() if p.requires_grad]
        out["trainable"] = sum(p.numel() for p in params)
        opt = make_optimizer(optim, params)
        out["optimizer"] = optim

        def step():
            with amp:
                loss = model(input_ids=ids, labels=ids).loss
            return loss

        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        before_reset = (0, 0)
        for i in range(STEPS):
            loss = step()
            loss.backward()
            if cuda and i == STEPS - 1:
                # the step's temporaries: its own peak over what it starts with
                # (the peaks so far are kept: resetting the stats drops them)
                torch.cuda.synchronize()
                before_reset = (torch.cuda.max_memory_allocated(),
                                torch.cuda.max_memory_reserved())
                at_step = torch.cuda.memory_allocated()
                torch.cuda.reset_peak_memory_stats()
            opt.step()
            if cuda and i == STEPS - 1:
                torch.cuda.synchronize()
                out["step_temp_bytes"] = torch.cuda.max_memory_allocated() - at_step
            opt.zero_grad(set_to_none=True)
            del loss
            if cuda and i == 0:
                out["step1_max_allocated"] = torch.cuda.max_memory_allocated()
        out["optimizer_foreach"] = opt.defaults.get("foreach")
        out["optimizer_fused"] = opt.defaults.get("fused")
        out["opt_state_bytes"] = state_bytes(opt)
    if cuda:
        torch.cuda.synchronize()
        out["max_allocated"] = torch.cuda.max_memory_allocated()
        out["max_reserved"] = torch.cuda.max_memory_reserved()
        if mode != "inference":
            out["max_allocated"] = max(out["max_allocated"], before_reset[0])
            out["max_reserved"] = max(out["max_reserved"], before_reset[1])
        free, total = torch.cuda.mem_get_info()
        out["device_total"] = total
        out["device_used"] = total - free  # every process on the GPU
        used = nvml_process_used(os.getpid())
        if used is not None:  # this process alone (other work may share the GPU)
            out["nvml_process_used"] = used
            out["outside_allocator"] = used - torch.cuda.memory_reserved()
        out["gpu"] = torch.cuda.get_device_name(0)
    if mode != "inference":
        out["saved_bytes"] = saved_bytes(model, step)
    out["seconds"] = round(time.time() - t0, 2)
    return out


FIELDS = ["name", "shape", "mode", "checkpointing", "batch", "seq", "new_tokens", "parameters",
          "trainable", "max_allocated", "max_reserved", "step1_max_allocated", "saved_bytes",
          "outside_allocator", "nvml_process_used", "device_used", "device_total", "seconds",
          "optimizer", "opt_state_bytes", "step_temp_bytes", "status"]


def run_forked(name, device, tiny, timeout, log):
    """run_one in a child forked from this process (imports done, no CUDA
    context yet): a fresh CUDA context and allocator per configuration."""
    import select
    import signal
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        rc = 0
        try:
            msg = json.dumps(run_one(name, device, tiny))
        except BaseException as e:  # noqa: BLE001 - reported as the row's status
            msg = json.dumps({"error": f"{type(e).__name__}: {e}"[:300]})
            rc = 1
        data = msg.encode()
        while data:
            data = data[os.write(w, data):]
        os.close(w)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)
    os.close(w)
    buf, t0 = b"", time.time()
    while True:
        left = timeout - (time.time() - t0)
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(r)
            return dict(name=name, status=f"timeout after {timeout} s")
        ready, _, _ = select.select([r], [], [], left)
        if ready:
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            buf += chunk
    os.close(r)
    _, st = os.waitpid(pid, 0)
    try:
        row = json.loads(buf.decode() or "{}")
    except ValueError:
        row = {}
    if "error" in row or not row:
        why = row.get("error", f"child exited with status {st}")
        log.write(f"== {name}: {why}\n")
        return dict(name=name, status="failed: " + why)
    row["status"] = "ok"
    log.write(f"== {name}: ok {row.get('seconds')} s\n")
    return row


def run_spawned(name, device, tiny, timeout, log):
    cmd = [sys.executable, os.path.abspath(__file__), "--one", name, "--device", device]
    if tiny:
        cmd.append("--tiny")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(name=name, status=f"timeout after {timeout} s")
    log.write(f"== {name} rc={p.returncode}\n{p.stderr[-3000:]}\n")
    line = [x for x in p.stdout.splitlines() if x.startswith("ROW ")]
    if p.returncode or not line:
        return dict(name=name, status="failed: " +
                    (p.stderr.strip().splitlines() or ["no output"])[-1][:200])
    row = json.loads(line[-1][4:])
    row["status"] = "ok"
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--tiny", action="store_true", help="CPU test shapes")
    ap.add_argument("--only", default="")
    ap.add_argument("--set", default="all", choices=sorted(CONFIG_SETS),
                    help="all: the estimator's proof; optim: the optimizers' states and "
                    "temporaries")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per configuration")
    ap.add_argument("--one", default="", help=argparse.SUPPRESS)
    ap.add_argument("--budget", type=float, default=float(os.environ.get("BUDGET_S", 0)),
                    help="seconds for the whole run (default $BUDGET_S; 0: no limit)")
    ap.add_argument("--row-table", nargs=2, metavar=("OUT", "JSON"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.row_table:  # --one's ROW line (a recorded run) as a one-row table for compare.py
        rows = [json.loads(x[4:]) for x in open(a.row_table[0]) if x.startswith("ROW ")]
        if not rows:
            sys.exit("measure.py: no ROW line in " + a.row_table[0])
        rows[-1]["status"] = "ok"
        with open(a.row_table[1], "w") as f:
            json.dump(rows[-1:], f, indent=1)
        return 0
    if a.one:  # the fallback's child, or the recorded run
        print("ROW " + json.dumps(run_one(a.one, a.device, a.tiny)), flush=True)
        return 0
    t_all = time.time()
    # imports once, before any fork; nothing here may create a CUDA context
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
    import torch  # noqa: F401
    import transformers  # noqa: F401
    import peft  # noqa: F401
    # a parent that holds a CUDA context cannot fork CUDA users: start each
    # configuration as a new interpreter then (slower: imports every time)
    fork_ok = not torch.cuda.is_initialized()
    names = list(CONFIG_SETS[a.set])
    if a.only:
        want = a.only.split(",")
        names = [c for c in CONFIGS + OPTIM_CONFIGS if c[0] in want]
    os.makedirs(a.out, exist_ok=True)
    rows = []
    log = open(os.path.join(a.out, "vram-measure.log"), "w")
    margin = 8  # seconds kept for writing the table and the caller's tar
    for c in names:
        n, cost = c[0], c[7]
        spent = time.time() - t_all
        if a.budget and spent + cost + margin > a.budget:
            rows.append(dict(name=n, status=f"skipped: {spent:.0f} s of the {a.budget:.0f} s "
                                              "budget spent"))
            continue
        timeout = a.timeout
        if a.budget:
            timeout = max(5, min(timeout, int(a.budget - spent - margin)))
        if fork_ok:
            r = run_forked(n, a.device, a.tiny, timeout, log)
            if not rows and r.get("status", "").startswith("failed") and "CUDA" in r["status"]:
                # a forked child could not start CUDA: new interpreters from here on
                fork_ok = False
                log.write("== forked children cannot use CUDA here; spawning instead\n")
                r = run_spawned(n, a.device, a.tiny, timeout, log)
        else:
            r = run_spawned(n, a.device, a.tiny, timeout, log)
        rows.append(r)
        print(f"{n}: {r.get('status')} {r.get('seconds', '')}", flush=True)
    log.close()
    with open(os.path.join(a.out, "vram-measured.json"), "w") as f:
        json.dump(rows, f, indent=1)
    with open(os.path.join(a.out, "vram-measured.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)
    mib = lambda v: f"{v / 2**20:10.1f}" if isinstance(v, (int, float)) else f"{'-':>10}"

    def per(r, k):  # bytes per trainable parameter
        v, n = r.get(k), r.get("trainable")
        return f"{v / n:8.3f}" if isinstance(v, (int, float)) and n else f"{'-':>8}"
    print(f"\n{'configuration':30} {'params':>11} {'alloc MiB':>10} {'resv MiB':>10} "
          f"{'saved MiB':>10} {'ctx MiB':>10} {'optimizer':>15} {'state/p':>8} {'temp/p':>8}"
          "  status")
    for r in rows:
        print(f"{r['name']:30} {r.get('parameters', 0):11d} {mib(r.get('max_allocated'))} "
              f"{mib(r.get('max_reserved'))} {mib(r.get('saved_bytes'))} "
              f"{mib(r.get('outside_allocator'))} {r.get('optimizer', '-'):>15} "
              f"{per(r, 'opt_state_bytes')} {per(r, 'step_temp_bytes')}  {r.get('status')}")
    ok = sum(r.get("status") == "ok" for r in rows)
    print(f"{ok} of {len(rows)} configurations measured in {time.time() - t_all:.0f} s")
    need = 12 if a.set == "all" else len(OPTIM_CONFIGS) - 2
    return 0 if ok >= need or (a.only and ok == len(rows)) else 1


if __name__ == "__main__":
    sys.exit(main())
