/*
 * activations.c - what autograd saves for the backward, per layer, in the
 * transformers implementations (5.17), and the backward's working buffers.
 *
 * Each term below names the op that saves the tensor and why, following
 * PyTorch's derivatives.yaml: an op saves an input only when the gradient
 * of another input needs it (mm saves its input only when the weight
 * requires grad, which is why frozen LoRA bases save so little), mul saves
 * both operands when both require grad, silu/gelu save their input,
 * tanh/relu/log_softmax their output, native_layer_norm its input with
 * mean and rstd, native_dropout its boolean mask, and fused SDPA kernels
 * (flash / memory-efficient) q, k, v, the output and the logsumexp (fp32,
 * one per head and token). Under autocast every linear casts an fp32
 * input to bf16 itself (autocast caches only leaf weights), so an fp32
 * tensor read by three projections is saved as three bf16 copies.
 * docs/vram.md spells out every term with the line of the modeling code.
 *
 * Units: bytes for the whole micro-batch (tokens = batch x seq).
 */
#include <string.h>

#include "vram/internal.h"

int vram_layer_linears(struct vram_linear out[VRAM_MAX_LINEARS], const struct vram_model *m)
{
	const int64_t H = m->hidden, I = m->intermediate;
	const int64_t Q = m->heads * m->head_dim, KV = m->kv_heads * m->head_dim;
	int n = 0;
#define LIN(nm, i, o, src)                                                                         \
	out[n++] = (struct vram_linear)                                                            \
	{                                                                                          \
		nm, i, o, src, 1, 0                                                                \
	}
#define PARAM(nm, i, o, src, k)                                                                    \
	out[n++] = (struct vram_linear)                                                            \
	{                                                                                          \
		nm, i, o, src, k, 1                                                                \
	}
	switch (m->family) {
	case VRAM_FAM_LLAMA:
	case VRAM_FAM_GEMMA:
		LIN("q_proj", H, Q, LIN_ATTN_IN);
		LIN("k_proj", H, KV, LIN_ATTN_IN);
		LIN("v_proj", H, KV, LIN_ATTN_IN);
		LIN("o_proj", Q, H, LIN_ATTN_OUT);
		if (m->experts > 0) {
			/* transformers 5: the router's weight and the experts' fused
			 * gate_up_proj / down_proj are parameters of the MoE block;
			 * qwen2_moe's shared expert is an MLP of nn.Linear modules */
			const int64_t Im = m->moe_intermediate, Is = m->shared_intermediate;
			PARAM("gate", H, m->experts, LIN_MLP_IN, 1);
			PARAM("gate_up_proj", H, 2 * Im, LIN_MLP_IN, m->experts);
			PARAM("down_proj", Im, H, LIN_MLP_MID, m->experts);
			if (Is > 0) {
				LIN("gate_proj", H, Is, LIN_MLP_IN);
				LIN("up_proj", H, Is, LIN_MLP_IN);
				LIN("down_proj", Is, H, LIN_MLP_MID);
				LIN("shared_expert_gate", H, 1, LIN_MLP_IN);
			}
			break;
		}
		LIN("gate_proj", H, I, LIN_MLP_IN);
		LIN("up_proj", H, I, LIN_MLP_IN);
		LIN("down_proj", I, H, LIN_MLP_MID);
		break;
	case VRAM_FAM_GPT2: /* peft matches "c_proj" in both attn and mlp */
		LIN("c_attn", H, 3 * H, LIN_ATTN_IN);
		LIN("c_proj", H, H, LIN_ATTN_OUT);
		LIN("c_fc", H, I, LIN_MLP_IN);
		LIN("c_proj", I, H, LIN_MLP_MID);
		break;
	case VRAM_FAM_BERT:
	case VRAM_FAM_VIT: /* attention.output.dense, intermediate.dense, output.dense */
		LIN("query", H, H, LIN_ATTN_IN);
		LIN("key", H, H, LIN_ATTN_IN);
		LIN("value", H, H, LIN_ATTN_IN);
		LIN("dense", H, H, LIN_ATTN_OUT);
		LIN("dense", H, I, LIN_MLP_IN);
		LIN("dense", I, H, LIN_MLP_MID);
		break;
	}
#undef LIN
#undef PARAM
	return n;
}

/* Norm over width elements per token whose input has in_b bytes. */
static double norm_saved(const struct vram_model *m, const struct vram_regime *rg, double width,
			 int in_b)
{
	switch (m->norm) {
	case VRAM_NORM_RMS:
		/* LlamaRMSNorm: pow and mul save the fp32 input (4 B); weight * y.to(in)
		 * saves y (in_b) only when the weight requires grad */
		return 4 * width + (rg->full ? in_b * width : 0);
	case VRAM_NORM_RMS_GEMMA:
		/* GemmaRMSNorm: x.float(), then y * (1 + w.float()) saves the fp32 y
		 * when the weight requires grad */
		return 4 * width + (rg->full ? 4 * width : 0);
	case VRAM_NORM_LAYER:
		/* native_layer_norm saves input, mean, rstd; autocast runs it in fp32 */
		return (rg->autocast ? 4 : in_b) * width + 8;
	}
	return 0;
}

/* Output bytes of a norm whose input has in_b bytes. */
static int norm_out(const struct vram_model *m, const struct vram_regime *rg, int in_b)
{
	if (m->norm == VRAM_NORM_LAYER && rg->autocast)
		return 4;
	return in_b;
}

/*
 * Saved input of the linears reading one tensor of width elements with
 * in_b bytes, when their weights are trained: one shared tensor, or under
 * autocast one bf16 copy per reader.
 */
static double lin_inputs(const struct vram_regime *rg, double width, int in_b, int readers)
{
	if (!rg->full)
		return 0;
	if (rg->autocast && in_b != rg->c)
		return readers * rg->c * width;
	return in_b * width;
}

/* Fused SDPA (flash / memory-efficient): q, k, v, out, logsumexp. */
static double sdpa_saved(const struct vram_model *m, const struct vram_regime *rg, double Q,
			 double KV)
{
	return rg->c * (2 * Q + 2 * KV) + 4.0 * m->heads;
}

/* Eager attention of one token over s keys (Llama's eager_attention_forward). */
static double eager_llama(const struct vram_model *m, const struct vram_regime *rg, double Q,
			  double KV, double s)
{
	const int c = rg->c;
	double kv_rep = m->heads > m->kv_heads ? Q : KV; /* repeat_kv copies */
	double as = (double)m->heads * s;
	double v = c * Q + c * kv_rep + c * kv_rep; /* matmul operands */
	v += 4 * as;				    /* softmax(dtype=float32) output */
	if (c != 4)
		v += c * as; /* the probabilities cast for the second matmul */
	if (m->p_attn > 0)
		v += as; /* dropout mask */
	if (rg->full)
		v += c * Q; /* transpose().contiguous() copy saved by o_proj */
	return v;
}

/* Eager attention in GPT-2 (softmax without dtype, .type(value.dtype), dropout). */
static double eager_gpt2(const struct vram_model *m, const struct vram_regime *rg, double H,
			 double s)
{
	const int c = rg->c;
	double as = (double)m->heads * s;
	double v = 3.0 * c * H + 4 * as; /* q, k, v views of c_attn's output; softmax out */
	if (m->p_attn > 0)
		v += as + c * as; /* mask and the dropped probabilities */
	else if (c != 4)
		v += c * as;
	if (rg->full)
		v += c * H;
	return v;
}

static double act_saved(const struct vram_model *m, const struct vram_regime *rg, double I)
{
	const int o = rg->lin_out; /* the MLP's first linear output */
	if (m->gated_mlp) /* act(gate) saves gate; act*up saves both; down saves the product */
		return (rg->full ? 4 : 3) * o * I;
	switch (m->act) {
	case VRAM_ACT_GELU_NEW:
		/* 0.5*x*(1+tanh(k*(x+0.044715*pow(x,3)))): pow saves x, tanh its output,
		 * the last mul both factors. Under CUDA autocast pow is an fp32 op
		 * (autocast_mode.cpp AT_FORALL_FP32): x is saved as an fp32 copy and the
		 * chain after it (tanh, 1+tanh, the product) runs in fp32; c_proj then
		 * saves its own bf16 copy of the product */
		if (rg->autocast)
			return (4 + 4 + 4 + o + (rg->full ? rg->c : 0)) * I;
		return (rg->full ? 5 : 4) * o * I;
	default: /* gelu/silu save x (relu its output); c_proj/output.dense the result */
		return (rg->full ? 2 : 1) * o * I;
	}
}

/*
 * A mixture-of-experts block in place of the MLP (transformers 5: the
 * TopKRouter, then the grouped_mm experts implementation, the default on
 * CUDA and on the CPU with torch 2.11): the router's input copy (its weight
 * trained), softmax's fp32 probabilities, topk's indices and the top-k
 * renormalisation's operands per token; per (token, expert) pair the sort's
 * gather index, the weights' index, the sentinel mask, the routing weight
 * and the un-permute index (8 + 8 + 1 + 4 + 8 bytes), the up projection's
 * output (silu keeps the whole gate_up tensor), silu's output and the
 * expert's output kept by the routing-weight mul, all in the experts' own
 * dtype (grouped_mm is not autocast); trained experts keep grouped_mm's
 * inputs too. qwen2_moe's shared expert is a gated MLP of nn.Linear plus a
 * sigmoid gate whose product keeps the gate and the expert's output.
 * tests/fixtures/vram/cpu-tiny-moe measures each layout.
 */
static double moe_saved(const struct vram_model *m, const struct vram_regime *rg, int nout)
{
	const double H = (double)m->hidden, E = (double)m->experts, k = (double)m->top_k;
	const double Im = (double)m->moe_intermediate, Is = (double)m->shared_intermediate;
	const int w = rg->expert_b;
	double v = lin_inputs(rg, H, nout, 1) + 4 * E + 8 * k + 4 + 4 * k;
	v += k * (29 + w * (3 * Im + H) + (rg->full ? w * (H + Im) : 0));
	if (Is > 0)
		v += lin_inputs(rg, H, nout, 3) + act_saved(m, rg, Is) + rg->lin_out * (1 + H);
	return v;
}

/* LoRA branches: the input copy lora_A saves, lora_A's output, dropout masks. */
static double lora_saved(const struct vram_regime *rg, const struct vram_job *j,
			 const struct vram_linear *lin, const int *sel, int n_lin,
			 double out_is_saved)
{
	double v = 0;
	int seen[LIN_N_INPUTS] = {0};
	for (int i = 0; i < n_lin; i++) {
		if (!sel[i])
			continue;
		v += rg->c * (double)j->lora_rank;
		if (j->lora_dropout > 0)
			v += (double)lin[i].in;
		if (rg->lora_shared) {
			/* fp32: lora_A saves the very input tensor, once per tensor */
			if (seen[lin[i].input]++ || (lin[i].input == LIN_ATTN_OUT && out_is_saved))
				continue;
			v += rg->lora_in * (double)lin[i].in;
		} else {
			v += rg->lora_in * (double)lin[i].in;
		}
	}
	return v;
}

/* One layer's saved bytes per token (s = keys per query, for eager attention). */
static double layer_per_token(const struct vram_model *m, const struct vram_job *j,
			      const struct vram_regime *rg, const int *sel, int n_lin,
			      const struct vram_linear *lin, double s)
{
	const double H = (double)m->hidden, I = (double)m->intermediate;
	const double Q = (double)(m->heads * m->head_dim), KV = (double)(m->kv_heads * m->head_dim);
	const int r = rg->r, c = rg->c;
	const int nout = norm_out(m, rg, r);
	double v = 0;

	switch (m->family) {
	case VRAM_FAM_LLAMA:
	case VRAM_FAM_GEMMA:
		v += 2 * norm_saved(m, rg, H, r);
		if (m->norms_per_layer > 2) /* gemma2 post-norms read the bf16 branch outputs */
			v += (m->norms_per_layer - 2) * norm_saved(m, rg, H, rg->lin_out);
		if (m->qk_norm || m->qk_norm_full) /* per head or over the projection */
			v += norm_saved(m, rg, Q + KV, rg->lin_out);
		v += lin_inputs(rg, H, nout, 3);
		v += j->attn == VRAM_ATTN_EAGER ? eager_llama(m, rg, Q, KV, s)
						: sdpa_saved(m, rg, Q, KV);
		v += m->experts > 0 ? moe_saved(m, rg, nout)
				    : lin_inputs(rg, H, nout, 2) + act_saved(m, rg, I);
		break;
	case VRAM_FAM_GPT2:
		v += 2 * norm_saved(m, rg, H, r);
		v += 2 * lin_inputs(rg, H, nout, 1); /* c_attn, c_fc */
		v += j->attn == VRAM_ATTN_EAGER ? eager_gpt2(m, rg, H, s)
						: 3.0 * c * H + c * H + 4.0 * m->heads;
		v += act_saved(m, rg, I);
		if (m->p_resid > 0)
			v += 2 * H; /* attn.resid_dropout and mlp.dropout masks */
		break;
	case VRAM_FAM_BERT:
	case VRAM_FAM_VIT:
		/* bert: post-norm (LayerNorm(x + dropout(dense(..)))); vit: pre-norm */
		v += 2 * norm_saved(m, rg, H, r);
		v += lin_inputs(rg, H, nout, 3) + lin_inputs(rg, H, nout, 1);
		v += sdpa_saved(m, rg, Q, KV);
		v += act_saved(m, rg, I);
		if (m->p_resid > 0)
			v += 2 * H;
		break;
	}
	v += lora_saved(rg, j, lin, sel, n_lin, j->attn != VRAM_ATTN_EAGER || rg->full);
	return v;
}

void vram_activation_terms(struct vram_act_terms *t, const struct vram_model *m,
			   const struct vram_job *j, const struct vram_regime *rg, const int *sel,
			   int n_lin)
{
	struct vram_linear lin[VRAM_MAX_LINEARS];
	const int64_t seq = vram_model_tokens(m, j->seq);
	const double T = (double)j->batch * (double)seq;
	const double H = (double)m->hidden, I = (double)m->intermediate;
	const double Q = (double)(m->heads * m->head_dim), KV = (double)(m->kv_heads * m->head_dim);
	const double V = (double)m->vocab;
	const int r = rg->r, c = rg->c;
	const int nout = norm_out(m, rg, r);
	/* eager attention materialises the full score matrix, causal or not */
	const double s_keys = (double)seq;

	memset(t, 0, sizeof(*t));
	vram_layer_linears(lin, m);
	t->layer = T * layer_per_token(m, j, rg, sel, n_lin, lin, s_keys);
	/* frozen embeddings: the first norm has no input that requires grad */
	t->layer_first = t->layer - (rg->emb_grad ? 0 : T * norm_saved(m, rg, H, r));
	switch (j->ckpt) {
	case VRAM_CKPT_FULL:
		t->layer_stored = T * r * H; /* checkpoint keeps the layer's input */
		break;
	case VRAM_CKPT_SELECTIVE:
		/* Korthikanti et al.: recompute the attention core; fused SDPA keeps no
		 * s x s tensor, so only eager attention gives anything back */
		t->layer_stored = t->layer;
		if (j->attn == VRAM_ATTN_EAGER) {
			double as = (double)m->heads * s_keys;
			t->layer_stored -= T * (4 * as + (c != 4 ? c * as : 0) +
						(m->p_attn > 0 ? as + c * as : 0));
		}
		break;
	default:
		t->layer_stored = t->layer;
	}

	/* outside the layers */
	switch (m->family) {
	case VRAM_FAM_LLAMA:
	case VRAM_FAM_GEMMA:
		t->outside =
		    (rg->full ? T * 8 : 0) + T * norm_saved(m, rg, H, r); /* ids; final norm */
		t->head_in = T * lin_inputs(rg, H, nout, 1);
		break;
	case VRAM_FAM_GPT2:
		t->outside = T * norm_saved(m, rg, H, r);
		if (rg->full)
			t->outside += T * 8; /* ids, for the embedding's gradient */
		if (rg->emb_grad && m->p_embd > 0)
			t->outside += T * H; /* embedding dropout mask */
		t->head_in = T * lin_inputs(rg, H, nout, 1);
		break;
	case VRAM_FAM_BERT:
		if (rg->emb_grad) /* embeddings LayerNorm, dropout mask, ids */
			t->outside = T * (norm_saved(m, rg, H, r) + (m->p_embd > 0 ? H : 0) + 16);
		t->head_in = (double)j->batch * 2 * c * H; /* pooler on [CLS]: input, tanh */
		break;
	case VRAM_FAM_VIT:
		t->outside = T * norm_saved(m, rg, H, r); /* final layernorm */
		if (rg->full)				  /* conv input (pixels, cast) */
			t->outside +=
			    (double)j->batch * c * m->channels * m->image_size * m->image_size;
		t->head_in = (double)j->batch * c * H;
		break;
	}
	if (vram_model_is_lm(m)) {
		t->loss = T * 4 * V;		      /* log_softmax output, fp32 */
		t->logits_c = c != 4 ? T * c * V : 0; /* its gradient cast back */
	} else {
		t->loss = (double)j->batch * 4 * (double)(m->num_labels ? m->num_labels : 2);
	}

	/* a layer's backward: the MLP's gradient buffers or flash attention's
	 * (dq in fp32, dq/dk/dv), plus the incoming gradient on both paths */
	double mlp = 3.0 * c * T * I;
	if (m->experts > 0) /* grouped_mm's backward over every (token, expert) pair */
		mlp = 3.0 * rg->expert_b * T * (double)m->top_k * (double)m->moe_intermediate +
		      3.0 * c * T * (double)m->shared_intermediate;
	double attn = T * (4 * Q + c * (Q + 2 * KV) + 4.0 * m->heads);
	t->layer_transient = (mlp > attn ? mlp : attn) + 2 * T * r * H;
}
