/*
 * precision.c - fp32 GEMMs without tensor cores and the switch that turns
 * them on (precision.h). The names are cuBLAS's, CUTLASS's and cuDNN's as
 * the H200 recordings show them: "sgemm" (sgemm_largek_lds64,
 * cutlass_80_simt_sgemm_256x128_8x4_nn), and an xmma GEMM or implicit GEMM
 * whose math is "ffma" (sm80_xmma_gemm_f32f32_f32f32_f32_..._ffma_...,
 * sm80_xmma_fprop_implicit_gemm_f32f32_..._ffma_...). A TF32 kernel says
 * "tf32" in its name; those are not counted.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/analysis.h"
#include "diagnose/finding.h"
#include "analyze/kcounters.h"
#include "diagnose/precision.h"
#include "diagnose/thresholds.h"
#include "util/i18n.h"

int prec_fp32_simt_name(const char *name)
{
	if (!name || strstr(name, "tf32") || strstr(name, "TF32"))
		return 0;
	if (strstr(name, "sgemm"))
		return 1;
	return strstr(name, "gemm") && strstr(name, "_ffma");
}

double prec_fp32_simt_share(const struct analysis *a)
{
	int64_t all = 0, simt = 0;
	for (size_t i = 0; i < a->n_kgroups; i++) {
		all += a->kgroups[i].sum_ns;
		if (prec_fp32_simt_name(trace_str(a->t, a->kgroups[i].name_id)))
			simt += a->kgroups[i].sum_ns;
	}
	return all > 0 ? (double)simt / (double)all : 0;
}

int adv_precision(struct finding *f, const struct analysis *a)
{
	double share = prec_fp32_simt_share(a);
	if (share < TH_FP32_SIMT_SHARE)
		return 0;
	const struct trace_device *d = a->t->n_devices ? &a->t->devices[0] : NULL;
	double fp32 = kc_peak_per_sm_cycle(d, 0), tensor = kc_peak_per_sm_cycle(d, 2);
	/* TF32 runs at half the 16-bit tensor rate */
	double tf32 = fp32 > 0 && tensor > 0 ? tensor / 2 / fp32 : 0;
	double bf16 = fp32 > 0 && tensor > 0 ? tensor / fp32 : 0;
	finding_num(f, "fp32_simt_gemm_pct", 100.0 * share);
	if (tf32 > 0)
		finding_num(f, "tensor_core_gain_x", tf32);
	/* with the card's peaks when they are known: the clause is part of each
	 * message, so a translation places it */
	double pct = 100.0 * share;
	switch (a->prog.kind) {
	case PK_PYTORCH:
		if (tf32 > 0)
			finding_action(
			    f,
			    N_("%.0f%% of the kernel time is fp32 matmuls and convolutions "
			       "on the SIMT pipes, tensor cores idle (this GPU's peaks: "
			       "TF32 %.0fx and bf16 %.0fx its fp32): "
			       "torch.set_float32_matmul_precision(\"high\") (TF32 "
			       "matmuls; torch.backends.cudnn.allow_tf32 for "
			       "convolutions), or bf16 autocast (torch.autocast(\"cuda\", "
			       "dtype=torch.bfloat16))"),
			    pct, tf32, bf16);
		else
			finding_action(
			    f,
			    N_("%.0f%% of the kernel time is fp32 matmuls and convolutions "
			       "on the SIMT pipes, tensor cores idle: "
			       "torch.set_float32_matmul_precision(\"high\") (TF32 "
			       "matmuls; torch.backends.cudnn.allow_tf32 for "
			       "convolutions), or bf16 autocast (torch.autocast(\"cuda\", "
			       "dtype=torch.bfloat16))"),
			    pct);
		break;
	case PK_JAX:
		if (tf32 > 0)
			finding_action(
			    f,
			    N_("%.0f%% of the kernel time is fp32 matmuls on the SIMT "
			       "pipes, tensor cores idle (this GPU's peaks: TF32 %.0fx and "
			       "bf16 %.0fx its fp32): "
			       "jax.config.update(\"jax_default_matmul_precision\", "
			       "\"tensorfloat32\") (or jax.default_matmul_precision), or "
			       "bf16 parameters and inputs"),
			    pct, tf32, bf16);
		else
			finding_action(
			    f,
			    N_("%.0f%% of the kernel time is fp32 matmuls on the SIMT "
			       "pipes, tensor cores idle: "
			       "jax.config.update(\"jax_default_matmul_precision\", "
			       "\"tensorfloat32\") (or jax.default_matmul_precision), or "
			       "bf16 parameters and inputs"),
			    pct);
		break;
	case PK_CUPY:
		if (tf32 > 0)
			finding_action(
			    f,
			    N_("%.0f%% of the kernel time is fp32 matmuls on the SIMT "
			       "pipes, tensor cores idle (this GPU's peaks: TF32 %.0fx and "
			       "bf16 %.0fx its fp32): CUPY_TF32=1 lets CuPy's matmuls use "
			       "TF32, or compute in float16/bfloat16 arrays"),
			    pct, tf32, bf16);
		else
			finding_action(
			    f,
			    N_("%.0f%% of the kernel time is fp32 matmuls on the SIMT "
			       "pipes, tensor cores idle: CUPY_TF32=1 lets CuPy's matmuls "
			       "use TF32, or compute in float16/bfloat16 arrays"),
			    pct);
		break;
	default:
		if (tf32 > 0)
			finding_action(
			    f,
			    N_("%.0f%% of the kernel time is fp32 GEMMs on the SIMT pipes "
			       "(SGEMM), tensor cores idle (this GPU's peaks: TF32 %.0fx "
			       "and bf16 %.0fx its fp32): cublasSetMathMode(handle, "
			       "CUBLAS_TF32_TENSOR_OP_MATH), or cublasGemmEx with "
			       "CUBLAS_COMPUTE_32F_FAST_TF32 (bf16 inputs with "
			       "CUBLAS_COMPUTE_32F)"),
			    pct, tf32, bf16);
		else
			finding_action(
			    f,
			    N_("%.0f%% of the kernel time is fp32 GEMMs on the SIMT pipes "
			       "(SGEMM), tensor cores idle: cublasSetMathMode(handle, "
			       "CUBLAS_TF32_TENSOR_OP_MATH), or cublasGemmEx with "
			       "CUBLAS_COMPUTE_32F_FAST_TF32 (bf16 inputs with "
			       "CUBLAS_COMPUTE_32F)"),
			    pct);
	}
	return 1;
}
