/*
 * attention.c - attention run as GEMM, softmax, GEMM (attention.h). The
 * softmax kernels are PyTorch's (aten/src/ATen/native/cuda/SoftMax.cu and
 * PersistentSoftmax.cuh) as CUPTI (mangled) and torch.profiler (demangled)
 * name them: softmax_warp_forward<in, out, acc, log2_elements,
 * is_log_softmax, is_masked> for rows up to 1024, cunn_SoftMaxForward* with
 * a SoftMaxForwardEpilogue or LogSoftMaxForwardEpilogue above, the same for
 * the backward; inductor's fused kernels say _softmax or _log_softmax.
 */
#include <ctype.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/program.h"
#include "diagnose/attention.h"
#include "diagnose/finding.h"
#include "diagnose/thresholds.h"
#include "util/i18n.h"

/* softmax_warp_*'s is_log_softmax, the fifth template argument: in a
 * demangled name "<float, float, float, 4, true, false>", in a mangled one
 * the first bool literal ("...Li4ELb1ELb0E": 1). 1 log, 0 not, -1 unknown. */
static int warp_is_log(const char *p)
{
	const char *lt = strchr(p, '<');
	if (lt) {
		int depth = 0, arg = 0;
		for (const char *q = lt + 1; *q; q++) {
			if (*q == '<' || *q == '(')
				depth++;
			else if ((*q == '>' || *q == ')') && depth-- == 0)
				break;
			else if (*q == ',' && depth == 0 && ++arg == 4) {
				while (*++q == ' ')
					;
				return !strncmp(q, "true", 4)	 ? 1
				       : !strncmp(q, "false", 5) ? 0
								 : -1;
			}
		}
		return -1;
	}
	const char *b = strstr(p, "Lb");
	return b ? b[2] == '1' : -1;
}

int attn_softmax_name(const char *name)
{
	if (!name)
		return 0;
	/* lower-cased once (cunn_SoftMax, LogSoftMax); a name cut at the
	 * buffer keeps its kernel name, which comes first */
	char low[1024];
	size_t i = 0;
	for (; name[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[i] = 0;
	if (!strstr(low, "softmax") || strstr(low, "logsoftmax") || strstr(low, "log_softmax") ||
	    strstr(low, "cross_entropy"))
		return 0;
	/* the template's bool is read from the name as recorded (Lb1) */
	const char *w = strstr(name, "softmax_warp_");
	if (w && !strstr(low, "masked_softmax"))
		return warp_is_log(w) == 0;
	return 1;
}

double attn_softmax_share(const struct analysis *a, double *fused_share)
{
	int64_t all = 0, soft = 0, fused = 0;
	for (size_t i = 0; i < a->n_kgroups; i++) {
		const struct an_kernel_group *g = &a->kgroups[i];
		all += g->sum_ns;
		if (g->family == KF_ATTENTION)
			fused += g->sum_ns;
		else if (attn_softmax_name(trace_str(a->t, g->name_id)))
			soft += g->sum_ns;
	}
	if (fused_share)
		*fused_share = all > 0 ? (double)fused / (double)all : 0;
	return all > 0 ? (double)soft / (double)all : 0;
}

int adv_attention(struct finding *f, const struct analysis *a)
{
	double fused, share = attn_softmax_share(a, &fused);
	if (share < TH_ATTN_SOFTMAX_SHARE || fused >= share)
		return 0;
	double pct = 100.0 * share;
	finding_num(f, "attention_softmax_pct", pct);
	finding_num(f, "fused_attention_pct", 100.0 * fused);
	switch (a->prog.kind) {
	case PK_PYTORCH:
		finding_action(
		    f,
		    N_("attention runs unfused: softmax kernels over the materialised scores "
		       "are %.0f%% of the kernel time, fused attention kernels %.0f%%: "
		       "torch.nn.functional.scaled_dot_product_attention (flash or "
		       "memory-efficient kernels) instead of matmul, softmax, matmul; in "
		       "Hugging Face models attn_implementation=\"sdpa\" (or "
		       "\"flash_attention_2\"), and output_attentions=True forces the eager "
		       "path"),
		    pct, 100.0 * fused);
		break;
	case PK_JAX:
		finding_action(f,
			       N_("attention runs unfused: softmax over the materialised scores "
				  "is %.0f%% of the kernel time: jax.nn.dot_product_attention "
				  "(implementation=\"cudnn\" for the fused kernel) instead of "
				  "einsum, softmax, einsum"),
			       pct);
		break;
	default:
		finding_action(f,
			       N_("attention runs unfused: softmax kernels over the "
				  "materialised scores are %.0f%% of the kernel time: a fused "
				  "attention kernel (flash attention, cuDNN's fused attention) "
				  "keeps the scores on chip"),
			       pct);
	}
	return 1;
}
