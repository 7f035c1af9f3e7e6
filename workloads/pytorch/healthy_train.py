"""healthy_train: a transformer training step with enough work per launch
(d_model 1024, 8 layers, batch 64 x 512 tokens, bf16 autocast, fused AdamW,
pinned inputs moved non_blocking, no host syncs in the loop). Batch 64: with
batch 32 the GPU was busy 96% under gpuscope record but only 79% under
torch.profiler, whose own per-op cost starved it (H200). Expected finding:
gpu_busy or a kernel-side finding, no host-side one. 20 steps.
"""
import transformer_common as tc
import zoo_common as zc

args = zc.parse("healthy_train", steps=20, profile_steps=3)
zc.run("healthy_train", args, lambda: tc.make(1024, 8, 64, 512), tc.step, tc.check)
