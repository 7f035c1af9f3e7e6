/*
 * attention.h - attention without a fused kernel (docs/causes.md row 34):
 * the scores materialised in HBM and a softmax kernel over them between two
 * batched GEMMs (eager attention in Hugging Face models, a hand-written
 * q @ k.T, SDPA's math fallback), where flash or memory-efficient attention
 * would keep them on chip.
 */
#ifndef GPUSCOPE_ATTENTION_H
#define GPUSCOPE_ATTENTION_H

struct analysis;
struct finding;

/* 1 when a kernel name (mangled or not) is a softmax that is not a log
 * softmax: PyTorch's softmax_warp_* with is_log_softmax false, cunn_SoftMax*
 * without a LogSoftMax epilogue, masked softmax, inductor's fused softmax.
 * The log softmax of a loss (cross entropy) is not attention's. */
int attn_softmax_name(const char *name);

/* The share (0..1) of kernel time in such kernels, and in fused attention
 * kernels (the attention family: flash, fmha, memory-efficient). */
double attn_softmax_share(const struct analysis *a, double *fused_share);

/* When softmax kernels hold TH_ATTN_SOFTMAX_SHARE of the kernel time and
 * fused attention kernels less than they do: the evidence
 * (attention_softmax_pct, fused_attention_pct) and the fused attention's
 * action in the program's terms. 1 when added. */
int adv_attention(struct finding *f, const struct analysis *a);

#endif
