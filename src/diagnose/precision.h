/*
 * precision.h - the precision lever at a roof (issue #36 item 1): GEMMs and
 * convolutions that run in fp32 on the SIMT pipes (cuBLAS's sgemm and ffma
 * kernels, CUTLASS's simt_sgemm, cuDNN's fp32 implicit GEMMs) leave the
 * tensor cores idle; TF32 or bf16 turns them on, up to the ratio of the
 * card's tensor and fp32 peaks.
 */
#ifndef GPUSCOPE_PRECISION_H
#define GPUSCOPE_PRECISION_H

struct analysis;
struct finding;

/* 1 when a kernel name is an fp32 GEMM or convolution on the SIMT pipes. */
int prec_fp32_simt_name(const char *name);

/* The share (0..1) of kernel time in such kernels. */
double prec_fp32_simt_share(const struct analysis *a);

/* When such kernels hold TH_FP32_SIMT_SHARE of the kernel time: the
 * evidence (fp32_simt_gemm_pct, tensor_core_gain_x) and the action that
 * turns the tensor cores on, in the program's terms. 1 when added. */
int adv_precision(struct finding *f, const struct analysis *a);

#endif
