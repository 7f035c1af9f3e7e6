/*
 * model.c - parameter counts by part, family defaults and shape checks.
 *
 * The counts follow the module layout of each family's transformers
 * implementation (modeling_llama.py, modeling_gemma.py, modeling_gpt2.py,
 * modeling_bert.py, modeling_vit.py, 5.17): every nn.Linear / Conv1D weight
 * and bias, every norm weight (and LayerNorm bias), every embedding table. A
 * tied lm_head is counted once, as PyTorch's model.parameters() does.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/error.h"
#include "vram/model.h"

static const char *const family_names[] = {"llama", "gemma", "gpt2", "bert", "vit"};

const char *vram_family_name(enum vram_family f)
{
	return (unsigned)f < sizeof(family_names) / sizeof(family_names[0]) ? family_names[f]
									    : "unknown";
}

int vram_family_parse(const char *s, enum vram_family *out)
{
	for (unsigned i = 0; i < sizeof(family_names) / sizeof(family_names[0]); i++)
		if (strcasecmp(s, family_names[i]) == 0) {
			*out = (enum vram_family)i;
			return 0;
		}
	return -1;
}

void vram_model_defaults(struct vram_model *m)
{
	m->norms_per_layer = 2;
	m->p_attn = m->p_resid = m->p_embd = 0.0;
	m->qkv_bias = m->o_bias = m->mlp_bias = m->qk_norm = 0;
	switch (m->family) {
	case VRAM_FAM_LLAMA:
		m->norm = VRAM_NORM_RMS;
		m->act = VRAM_ACT_SILU;
		m->gated_mlp = 1;
		m->tied = 0;
		break;
	case VRAM_FAM_GEMMA:
		m->norm = VRAM_NORM_RMS_GEMMA;
		m->act = VRAM_ACT_GELU; /* hidden_activation gelu_pytorch_tanh */
		m->gated_mlp = 1;
		m->tied = 1;
		break;
	case VRAM_FAM_GPT2: /* GPT2Config defaults */
		m->norm = VRAM_NORM_LAYER;
		m->act = VRAM_ACT_GELU_NEW;
		m->gated_mlp = 0;
		m->qkv_bias = m->o_bias = m->mlp_bias = 1;
		m->tied = 1;
		m->p_attn = m->p_resid = m->p_embd = 0.1;
		if (!m->positions)
			m->positions = 1024;
		break;
	case VRAM_FAM_BERT: /* BertConfig defaults */
		m->norm = VRAM_NORM_LAYER;
		m->act = VRAM_ACT_GELU;
		m->gated_mlp = 0;
		m->qkv_bias = m->o_bias = m->mlp_bias = 1;
		m->tied = 0;
		m->p_attn = m->p_resid = m->p_embd = 0.1;
		if (!m->positions)
			m->positions = 512;
		if (!m->type_vocab)
			m->type_vocab = 2;
		if (!m->num_labels)
			m->num_labels = 2;
		break;
	case VRAM_FAM_VIT: /* ViTConfig defaults: no dropout */
		m->norm = VRAM_NORM_LAYER;
		m->act = VRAM_ACT_GELU;
		m->gated_mlp = 0;
		m->qkv_bias = m->o_bias = m->mlp_bias = 1;
		m->tied = 0;
		if (!m->image_size)
			m->image_size = 224;
		if (!m->patch_size)
			m->patch_size = 16;
		if (!m->channels)
			m->channels = 3;
		if (!m->num_labels)
			m->num_labels = 2;
		break;
	}
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

void vram_model_params(struct vram_params *p, const struct vram_model *m)
{
	const int64_t h = m->hidden, I = m->intermediate, V = m->vocab;
	const int64_t q = m->heads * m->head_dim, kv = m->kv_heads * m->head_dim;
	int64_t lin = 0, norms = 0, largest = 0, idle = 0;

	memset(p, 0, sizeof(*p));
	switch (m->family) {
	case VRAM_FAM_LLAMA:
	case VRAM_FAM_GEMMA:
		p->embed = V * h;
		lin = h * q + 2 * h * kv + q * h;
		if (m->qkv_bias)
			lin += q + 2 * kv;
		if (m->o_bias)
			lin += h;
		if (m->experts > 0) {
			/* router, the experts, a shared expert and its gate */
			const int64_t Im = m->moe_intermediate, Is = m->shared_intermediate;
			lin += h * m->experts + m->experts * 3 * h * Im;
			p->layer_params = h * m->experts + m->experts * 3 * h * Im;
			if (Is > 0)
				lin += 3 * h * Is + h;
			idle = (m->experts - m->top_k) * 3 * h * Im;
			largest = max64(max64(h * Im, h * q), h * Is);
		} else {
			lin += 3 * h * I + (m->mlp_bias ? 2 * I + h : 0);
			largest = max64(h * I, h * q);
		}
		norms = m->norms_per_layer * h + (m->qk_norm_full ? q + kv
						  : m->qk_norm	  ? 2 * m->head_dim
								  : 0);
		p->final_norm = h;
		p->head = m->tied ? 0 : V * h;
		break;
	case VRAM_FAM_GPT2:
		p->embed = V * h + m->positions * h;
		lin = (h * 3 * h + 3 * h) + (h * h + h) + (h * I + I) + (I * h + h);
		norms = 2 * 2 * h; /* ln_1, ln_2: weight and bias */
		largest = max64(h * I, 3 * h * h);
		p->final_norm = 2 * h;
		p->head = 0; /* lm_head is wte */
		break;
	case VRAM_FAM_BERT:
		p->embed = (V + m->positions + m->type_vocab) * h + 2 * h;
		lin = 4 * (h * h + h) + (h * I + I) + (I * h + h);
		norms = 2 * 2 * h;
		largest = h * I;
		p->final_norm = 0;
		p->head =
		    (h * h + h) + (h * m->num_labels + m->num_labels); /* pooler, classifier */
		break;
	case VRAM_FAM_VIT: {
		int64_t side = m->patch_size ? m->image_size / m->patch_size : 0;
		p->embed = m->channels * m->patch_size * m->patch_size * h + h /* conv */ +
			   h /* cls */ + (side * side + 1) * h;
		lin = 4 * (h * h + h) + (h * I + I) + (I * h + h);
		norms = 2 * 2 * h;
		largest = h * I;
		p->final_norm = 2 * h;
		p->head = h * m->num_labels + m->num_labels;
		break;
	}
	}
	p->layer_linear = lin;
	p->layer = lin + norms;
	p->layer_mlp_w = largest;
	p->total = p->embed + m->layers * p->layer + p->final_norm + p->head;
	p->active = p->total - m->layers * idle;
	if (m->params_override > 0)
		p->total = p->active = m->params_override;
}

int vram_model_check(const struct vram_model *m, char *err)
{
	if (m->layers <= 0 || m->layers > 100000)
		return error_set(err, "layer count %lld is not in 1..100000", (long long)m->layers);
	if (m->hidden <= 0 || m->hidden > (1 << 20))
		return error_set(err, "hidden size %lld is not in 1..1048576",
				 (long long)m->hidden);
	if (m->heads <= 0 || m->heads > 65536)
		return error_set(err, "head count %lld is not in 1..65536", (long long)m->heads);
	if (m->kv_heads <= 0 || m->kv_heads > m->heads || m->heads % m->kv_heads)
		return error_set(err, "key/value heads %lld do not divide the %lld heads",
				 (long long)m->kv_heads, (long long)m->heads);
	if (m->head_dim <= 0 || m->head_dim > 65536)
		return error_set(err, "head dimension %lld is not in 1..65536",
				 (long long)m->head_dim);
	if (m->intermediate <= 0 || m->intermediate > (1 << 22))
		return error_set(err, "intermediate size %lld is not in 1..4194304",
				 (long long)m->intermediate);
	if (m->vocab < 0 || m->vocab > (1 << 24))
		return error_set(err, "vocabulary size %lld is not in 0..16777216",
				 (long long)m->vocab);
	if (vram_model_is_lm(m) && m->vocab == 0)
		return error_set(err, "a causal language model needs a vocabulary size");
	if (m->family == VRAM_FAM_VIT &&
	    (m->patch_size <= 0 || m->image_size < m->patch_size || m->image_size > 65536))
		return error_set(err, "image size %lld and patch size %lld do not make patches",
				 (long long)m->image_size, (long long)m->patch_size);
	if (m->experts < 0 || m->experts > 4096 ||
	    (m->experts > 0 &&
	     (m->family != VRAM_FAM_LLAMA || m->top_k < 1 || m->top_k > m->experts ||
	      m->moe_intermediate <= 0 || m->moe_intermediate > (1 << 22) ||
	      m->shared_intermediate < 0 || m->shared_intermediate > (1 << 22))))
		return error_set(err,
				 "experts: %lld with %lld per token and width %lld is not a "
				 "mixture of experts the llama family can hold",
				 (long long)m->experts, (long long)m->top_k,
				 (long long)m->moe_intermediate);
	if (m->params_override < 0 || m->params_override > (int64_t)1e14)
		return error_set(err, "parameter count %lld is not in 1..1e14",
				 (long long)m->params_override);
	return 0;
}

int64_t vram_model_tokens(const struct vram_model *m, int64_t seq)
{
	if (m->family == VRAM_FAM_VIT) {
		int64_t side = m->image_size / m->patch_size;
		return side * side + 1;
	}
	return seq;
}

int64_t vram_model_max_tokens(const struct vram_model *m)
{
	return m->family == VRAM_FAM_GPT2 || m->family == VRAM_FAM_BERT ? m->positions : 0;
}

int vram_model_is_lm(const struct vram_model *m)
{
	return m->family == VRAM_FAM_LLAMA || m->family == VRAM_FAM_GEMMA ||
	       m->family == VRAM_FAM_GPT2;
}
