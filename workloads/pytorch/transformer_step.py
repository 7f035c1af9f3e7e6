"""transformer_step: a fixed number of steps of a transformer encoder training
step (d_model 512, 6 layers, batch 16 x 256 tokens, bf16 autocast, AdamW).
The workload of bench/record-overhead.sh: mixed kernel sizes, some host
overhead, like a real small training job. On the H200 the GPU is busy only
~14% of a step: the host's per-op dispatch sets the pace, so the expected
finding is launch_overhead. 30 steps per repetition.
"""
import transformer_common as tc
import zoo_common as zc

args = zc.parse("transformer_step", steps=30, profile_steps=3)
zc.run("transformer_step", args, lambda: tc.make(512, 6, 16, 256), tc.step, tc.check)
