"""jax_train: a healthy jitted JAX training loop (GPU-bound).

jax_common's MLP (4 x 4096, bf16 matmuls, batch 8192: ~3.3 TFLOP, ~5-8 ms a
step on an H200; 150 steps), the whole step one jitted function with donated
buffers; the loop only dispatches (JAX's asynchronous dispatch runs ahead of
the GPU) and the losses stay on the device until the end. The first call
compiles (XLA, a few seconds): warm-up, not input_pipeline. XLA preallocates
75% of the card's memory by default (a real JAX program's setting, left
alone): not a memory_peak (that is within 10% of the card). Expected:
gpu_busy (XLA's GEMM and fusion kernels; library and compiler kernels, so no
float4 or occupancy advice), no host-side finding, no PyTorch advice
(DataLoader, torch.compile, CUDA graphs via torch.cuda.graphs).
"""
import jax_common as jc

args = jc.args_for("jax_train", __doc__, steps=150, batch=8192, width=4096)


def per_step(st, i, loss, gn):
    pass  # nothing leaves the device inside the loop


jc.run(args, per_step)
