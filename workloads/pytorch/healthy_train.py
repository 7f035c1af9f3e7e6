"""healthy_train: a transformer training step with enough work per launch
(d_model 1024, 8 layers, batch 32 x 512 tokens, bf16 autocast, fused AdamW,
pinned inputs moved non_blocking, no host syncs in the loop).
Expected finding: gpu_busy. 20 steps.
"""
import transformer_common as tc
import zoo_common as zc

args = zc.parse("healthy_train", steps=20, profile_steps=3)
zc.run("healthy_train", args, lambda: tc.make(1024, 8, 32, 512), tc.step, tc.check)
