/*
 * estimate.c - the phases of a training step or a generation, and what the
 * caching allocator holds at each one's peak (estimate.h; docs/vram.md).
 *
 * Training (step >= 2, so optimizer states exist; zero_grad(set_to_none)):
 *   backward (loss)   all saved tensors + nll_loss and log_softmax backward
 *                     buffers (two fp32 batch x seq x vocab tensors)
 *   backward (head)   the logits' gradient in the compute dtype, the head
 *                     input's gradient and the lm_head weight gradient
 *   backward (layer)  the top layer's backward (a checkpointed layer is
 *                     recomputed first) with the head's gradient kept
 *   backward (end)    every gradient; a tied embedding adds its second one
 *   optimizer step    weights, gradients, states and foreach temporaries
 * With gradient accumulation every gradient is held through the micro-
 * batches after the first. Inference: prefill and the last decode step.
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "util/error.h"
#include "vram/internal.h"

#define MiB (1024.0 * 1024.0)

/*
 * Outside the allocator and the allocator's slack, measured on the H200
 * (tests/fixtures/vram/h200/: driver 580.159.04, CUDA 13.0, torch 2.11.0,
 * lazy module loading; docs/vram.md "Outside the allocator").
 *
 * CUDA context, cuBLAS/cuDNN handles and the kernels loaded: NVML's
 * figure for the process minus torch.cuda.memory_reserved(), 794820608
 * bytes (758 MiB) in the training rows (760 in some MoE ones), 692, 696
 * and 708 MiB in the three inference rows (no backward or optimizer
 * kernels loaded; h200-moe/): the median is kept.
 */
#define CONTEXT_TRAIN_BYTES (758 * MiB)
#define CONTEXT_INFER_BYTES (696 * MiB)
/*
 * The caching allocator's slack, max_memory_reserved / max_memory_allocated
 * - 1: the median of the H200 rows of each kind (test_vram_fixture holds
 * these to the tables). Training: 18 rows (measure.py's without
 * checkpointing, the mixtures of experts' of h200-moe/ among them, and
 * hf_llama_train's torch.profiler memory events), 0.042 .. 0.171, one of
 * them peaking at the optimizer step (0.061); full
 * checkpointing with its peak in the backward: 3 rows, 0.057 (GPT-2) ..
 * 0.414 (Llama, where the fp32 loss buffers of a 128k vocabulary dwarf the
 * checkpointed activations); inference: 3 rows with the models made in
 * their dtype, as from_pretrained(dtype=) loads them (tests/fixtures/vram/
 * h200-moe/, 2026-12-05), 0.054, 0.143 and 0.166 (DynamicCache's
 * torch.cat leaves the previous, smaller cache blocks behind; two earlier
 * rows, 0.354 and 0.459, had built the models in fp32 and cast them, and
 * measured the fp32 blocks the cast left cached). A
 * checkpointed job whose peak is the optimizer step (weights, gradients
 * and states: a large model on a short batch) takes training's slack: the
 * measured slack belongs to the backward's short-lived buffers.
 */
#define HEADROOM_TRAIN 0.091
#define HEADROOM_CKPT 0.278
#define HEADROOM_INFER 0.143

double vram_context_bytes(const struct vram_job *j)
{
	return j->mode == VRAM_MODE_INFERENCE ? CONTEXT_INFER_BYTES : CONTEXT_TRAIN_BYTES;
}

double vram_headroom_frac(const struct vram_job *j, const char *peak_phase)
{
	if (j->mode == VRAM_MODE_INFERENCE)
		return HEADROOM_INFER;
	int step = peak_phase && strcmp(peak_phase, "optimizer step") == 0;
	return j->ckpt == VRAM_CKPT_FULL && !step ? HEADROOM_CKPT : HEADROOM_TRAIN;
}

/* cuBLAS workspace per handle and stream, PyTorch's CublasHandlePool.cpp
 * default: ":4096:8" (32 MiB) on sm_90, ":4096:2:16:8" elsewhere. */
static double cublas_workspace(int cc_major)
{
	if (cc_major == 0 || cc_major == 9)
		return 4096.0 * 1024 * 8;
	return 4096.0 * 1024 * 2 + 16.0 * 1024 * 8;
}

static const char *const part_keys[VRAM_PART_N] = {
    "weights",
    "weight_copies",
    "gradients",
    "optimizer_states",
    "optimizer_temp",
    "activations",
    "activation_transients",
    "kv_cache",
    "workspace",
    "cuda_context",
    "allocator_headroom",
};
static const char *const part_labels[VRAM_PART_N] = {
    "weights",
    "weight copies (autocast / dequantised)",
    "gradients",
    "optimizer states",
    "optimizer temporaries",
    "activations (saved for backward)",
    "activation transients (loss, backward buffers)",
    "KV cache",
    "cuBLAS workspace",
    "CUDA context and libraries",
    "allocator headroom",
};

const char *vram_part_key(enum vram_part p)
{
	return (unsigned)p < VRAM_PART_N ? part_keys[p] : "unknown";
}

const char *vram_part_label(enum vram_part p)
{
	return (unsigned)p < VRAM_PART_N ? part_labels[p] : "unknown";
}

/* ---- names ---- */

static const char *const mode_names[] = {"full", "lora", "qlora", "inference"};
static const char *const prec_names[] = {"fp32", "bf16", "amp", "fp8"};
static const char *const opt_names[] = {"adamw", "adamw8bit", "sgd", "adafactor"};
static const char *const ckpt_names[] = {"none", "selective", "full"};

#define NAME_FN(fn, type, tab)                                                                     \
	const char *fn(type v)                                                                     \
	{                                                                                          \
		return (unsigned)v < sizeof(tab) / sizeof(tab[0]) ? tab[v] : "unknown";            \
	}
NAME_FN(vram_mode_name, enum vram_mode, mode_names)
NAME_FN(vram_precision_name, enum vram_precision, prec_names)
NAME_FN(vram_optimizer_name, enum vram_optimizer, opt_names)
NAME_FN(vram_ckpt_name, enum vram_ckpt, ckpt_names)

static int lookup(const char *s, const char *const *tab, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (strcasecmp(s, tab[i]) == 0)
			return (int)i;
	return -1;
}

#define PARSE_FN(fn, type, tab)                                                                    \
	int fn(const char *s, type *v)                                                             \
	{                                                                                          \
		int i = lookup(s, tab, sizeof(tab) / sizeof(tab[0]));                              \
		if (i < 0)                                                                         \
			return -1;                                                                 \
		*v = (type)i;                                                                      \
		return 0;                                                                          \
	}
PARSE_FN(vram_mode_parse, enum vram_mode, mode_names)
PARSE_FN(vram_precision_parse, enum vram_precision, prec_names)
PARSE_FN(vram_optimizer_parse, enum vram_optimizer, opt_names)
PARSE_FN(vram_ckpt_parse, enum vram_ckpt, ckpt_names)

void vram_job_defaults(struct vram_job *j)
{
	memset(j, 0, sizeof(*j));
	j->mode = VRAM_MODE_FULL;
	j->precision = VRAM_PREC_AMP;
	j->optimizer = VRAM_OPT_ADAMW;
	j->ckpt = VRAM_CKPT_NONE;
	j->attn = VRAM_ATTN_SDPA;
	j->batch = 1;
	j->seq = 2048;
	j->accum = 1;
	j->lora_rank = 16;
	j->double_quant = 1;
	j->gen_tokens = 256;
}

int64_t vram_job_tokens(const struct vram_job *j)
{
	return j->seq +
	       (j->mode == VRAM_MODE_INFERENCE && j->gen_tokens > 0 ? j->gen_tokens - 1 : 0);
}

/* peft's TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING */
static int default_target(const struct vram_model *m, const char *name)
{
	switch (m->family) {
	case VRAM_FAM_GPT2:
		return !strcmp(name, "c_attn");
	case VRAM_FAM_BERT:
	case VRAM_FAM_VIT:
		return !strcmp(name, "query") || !strcmp(name, "value");
	default:
		return !strcmp(name, "q_proj") || !strcmp(name, "v_proj");
	}
}

static int select_targets(int *sel, const struct vram_linear *lin, int n,
			  const struct vram_model *m, const struct vram_job *j, char *err)
{
	for (int i = 0; i < n; i++)
		sel[i] = j->n_targets == 0 && !lin[i].param && default_target(m, lin[i].name);
	for (int t = 0; t < j->n_targets; t++) {
		int hit = 0;
		for (int i = 0; i < n; i++) {
			if (lin[i].param) {
				if (!strcmp(j->targets[t], lin[i].name))
					return error_set(
					    err,
					    "'%s' is a parameter of the mixture-of-experts block "
					    "(transformers 5 keeps the router and the experts as "
					    "tensors, not nn.Linear modules): LoRA on it (peft's "
					    "target_parameters) is not modelled",
					    lin[i].name);
				continue;
			}
			if (!strcmp(j->targets[t], "all-linear") ||
			    !strcmp(j->targets[t], lin[i].name))
				sel[i] = hit = 1;
		}
		if (!hit) {
			char names[256] = "";
			for (int i = 0; i < n; i++) {
				if (lin[i].param || strstr(names, lin[i].name))
					continue;
				strncat(names, i ? ", " : "", sizeof(names) - strlen(names) - 1);
				strncat(names, lin[i].name, sizeof(names) - strlen(names) - 1);
			}
			return error_set(err,
					 "no module '%s' in a %s layer (modules: %s, all-linear)",
					 j->targets[t], vram_family_name(m->family), names);
		}
	}
	return 0;
}

/* Regime and per-parameter byte widths of the job. */
struct widths {
	struct vram_regime rg;
	double base_layer_b; /* bytes per parameter of the layers' linear weights */
	double base_rest_b;  /* embeddings, norms, heads */
	int grad_b, master_b;
	int dequant; /* quantised base: a dequantised weight exists in each matmul */
};

static int pick_regime(struct widths *w, const struct vram_job *j, int p, char *err)
{
	struct vram_regime *rg = &w->rg;
	if (j->mode == VRAM_MODE_FULL) {
		if (p == VRAM_PREC_FP8)
			return error_set(err, "an fp8 full fine-tune (Transformer Engine) is not "
					      "modelled; use --precision amp or bf16");
		rg->full = rg->emb_grad = 1;
		rg->r = p == VRAM_PREC_BF16 ? 2 : 4;
		rg->c = p == VRAM_PREC_FP32 ? 4 : 2;
		rg->autocast = rg->casts = p == VRAM_PREC_AMP;
		w->master_b = w->grad_b = p == VRAM_PREC_BF16 ? 2 : 4;
		w->base_layer_b = w->base_rest_b = w->master_b;
		return 0;
	}
	if (j->mode == VRAM_MODE_QLORA && p == VRAM_PREC_FP8)
		return error_set(err,
				 "qlora stores the base in 4 bits: use --precision amp or bf16");
	/* adapters (and their states) stay fp32: peft's autocast_adapter_dtype */
	w->master_b = w->grad_b = 4;
	rg->r = rg->c = p == VRAM_PREC_FP32 ? 4 : 2;
	rg->autocast = p == VRAM_PREC_AMP || p == VRAM_PREC_FP8;
	/* peft casts the input to the adapter's fp32; autocast casts it back */
	rg->lora_in = rg->autocast ? rg->c : 4;
	rg->lora_shared = p == VRAM_PREC_FP32;
	w->base_rest_b = w->base_layer_b = rg->c;
	if (j->mode == VRAM_MODE_INFERENCE)
		w->master_b = w->grad_b = 0;
	if (p == VRAM_PREC_FP8) {
		w->base_layer_b = 1;
		w->dequant = j->mode != VRAM_MODE_INFERENCE;
	}
	if (j->mode == VRAM_MODE_QLORA) {
		/* NF4: 4 bits + one fp32 absmax per 64 weights (0.5 bit); double
		 * quantisation: 8-bit absmax + fp32 per 256 of them (0.127 bit) */
		w->base_layer_b = 0.5 + (j->double_quant ? 1.0 / 64 + 4.0 / (64 * 256) : 4.0 / 64);
		w->dequant = 1;
		/* peft's prepare_model_for_kbit_training (the QLoRA recipe) casts every
		 * parameter that is not 4-bit to fp32: the residual stream is fp32, bnb
		 * computes in bf16 and returns its output in the input's fp32 */
		w->base_rest_b = 4;
		rg->r = 4;
		rg->c = p == VRAM_PREC_FP32 ? 4 : 2;
		rg->autocast = p != VRAM_PREC_FP32;
		rg->lora_in = rg->autocast ? rg->c : 4;
		rg->lora_shared = !rg->autocast;
		rg->lin_out = rg->r;
		/* enable_input_require_grads only with its gradient checkpointing */
		rg->emb_grad = j->ckpt == VRAM_CKPT_FULL;
	}
	return 0;
}

static int pick_widths(struct widths *w, const struct vram_job *j, char *err)
{
	memset(w, 0, sizeof(*w));
	struct vram_regime *rg = &w->rg;
	int p = j->precision;
	int rc = pick_regime(w, j, p, err);
	if (rc == 0 && !rg->lin_out)
		rg->lin_out = rg->c;
	/* a MoE's experts: trained, the master weights; frozen, the base dtype, and
	 * under qlora fp32 (bitsandbytes quantises nn.Linear only, and
	 * prepare_model_for_kbit_training casts every other weight to fp32) */
	rg->expert_b = rg->full ? w->master_b : j->mode == VRAM_MODE_QLORA ? 4 : rg->c;
	return rc;
}

struct opt_cost {
	double states, temp;
};

/* Optimizer states and step temporaries for n trainable parameters. */
static struct opt_cost optimizer_cost(const struct vram_job *j, double n, double mat_rows_cols,
				      double n_vec, int master_b)
{
	struct opt_cost o = {0, 0};
	switch (j->optimizer) {
	case VRAM_OPT_ADAMW: /* exp_avg, exp_avg_sq; foreach: torch._foreach_sqrt copy */
		o.states = 2.0 * master_b * n;
		o.temp = master_b * n;
		break;
	case VRAM_OPT_ADAMW8BIT: /* bitsandbytes: 1 byte each + fp32 absmax per 256 */
		o.states = (2.0 + 2.0 * 4 / 256) * n;
		break;
	case VRAM_OPT_SGD: /* momentum buffer, updated in place */
		o.states = (double)master_b * n;
		break;
	case VRAM_OPT_ADAFACTOR: /* factored second moment (rows + columns), no momentum */
		o.states = 4.0 * (mat_rows_cols + n_vec);
		o.temp = master_b * n;
		break;
	}
	return o;
}

static void add_phase(struct vram_estimate *e, const char *name, const double *part)
{
	if (e->n_phases >= VRAM_MAX_PHASES)
		return;
	struct vram_phase *ph = &e->phases[e->n_phases++];
	ph->name = name;
	ph->allocated = 0;
	for (int i = 0; i < VRAM_PART_N; i++) {
		ph->part[i] = part[i] > 0 ? part[i] : 0;
		if (i != VRAM_PART_CONTEXT && i != VRAM_PART_HEADROOM)
			ph->allocated += ph->part[i];
	}
}

static void finish(struct vram_estimate *e, const struct vram_job *j)
{
	e->peak_phase = 0;
	for (int i = 1; i < e->n_phases; i++)
		if (e->phases[i].allocated > e->phases[e->peak_phase].allocated)
			e->peak_phase = i;
	struct vram_phase *ph = &e->phases[e->peak_phase];
	e->allocated_peak = ph->allocated;
	ph->part[VRAM_PART_CONTEXT] = vram_context_bytes(j);
	ph->part[VRAM_PART_HEADROOM] = vram_headroom_frac(j, ph->name) * ph->allocated;
	memcpy(e->part, ph->part, sizeof(e->part));
	e->total = e->allocated_peak + e->part[VRAM_PART_CONTEXT] + e->part[VRAM_PART_HEADROOM];
}

static void inference(struct vram_estimate *e, const struct vram_model *m, const struct vram_job *j,
		      const struct widths *w, double weights)
{
	const struct vram_params *p = &e->params;
	const int c = w->rg.c;
	const double b = (double)j->batch, seq = (double)vram_model_tokens(m, j->seq);
	const double T = b * seq, H = (double)m->hidden, I = (double)m->intermediate;
	const double Q = (double)(m->heads * m->head_dim), KV = (double)(m->kv_heads * m->head_dim);
	double part[VRAM_PART_N] = {0};
	(void)p;

	/* the prefill's working set: the MLP (act(gate) * up and its product) or the
	 * attention (q, k, v before and after RoPE, the output), beside the residual */
	double mlp = (m->gated_mlp ? 3.0 : 2.0) * c * T * I;
	if (m->experts > 0) /* every (token, expert) pair at once, and the shared expert */
		mlp = 3.0 * c * T * (double)m->top_k * (double)m->moe_intermediate +
		      3.0 * c * T * (double)m->shared_intermediate;
	double attn = c * T * (2 * (Q + 2 * KV) + Q);
	double work = (mlp > attn ? mlp : attn) + 2.0 * c * T * H;
	double logits = vram_model_is_lm(m) ? b * (double)m->vocab * (c + 4) : 0; /* last token */
	part[VRAM_PART_WEIGHTS] = weights;
	part[VRAM_PART_WORKSPACE] = cublas_workspace(j->cc_major);
	if (!vram_model_is_lm(m)) {
		part[VRAM_PART_ACT_TRANSIENT] = work;
		add_phase(e, "forward", part);
		return;
	}
	const double per_tok = 2.0 * m->layers * KV * c; /* K and V of every layer */
	part[VRAM_PART_KV_CACHE] = T * per_tok;
	part[VRAM_PART_ACT_TRANSIENT] = work + logits;
	add_phase(e, "prefill", part);
	if (j->gen_tokens > 1) {
		double len = seq + (double)j->gen_tokens - 1;
		if (j->kv_paged) { /* blocks of 16 tokens, allocated up front */
			len = ceil((seq + (double)j->gen_tokens) / 16) * 16;
			part[VRAM_PART_KV_CACHE] = b * len * per_tok;
			part[VRAM_PART_ACT_TRANSIENT] = logits;
		} else { /* DynamicLayer.update: torch.cat keeps the old K while the new exists */
			part[VRAM_PART_KV_CACHE] = b * len * per_tok;
			part[VRAM_PART_ACT_TRANSIENT] = b * len * KV * c + logits;
		}
		add_phase(e, "decode (last token)", part);
	}
}

int vram_estimate(struct vram_estimate *e, const struct vram_model *m, const struct vram_job *j,
		  char *err)
{
	struct vram_linear lin[VRAM_MAX_LINEARS];
	int sel[VRAM_MAX_LINEARS] = {0};
	struct widths w;
	struct vram_act_terms t;

	memset(e, 0, sizeof(*e));
	if (vram_model_check(m, err))
		return -1;
	if (j->batch < 1 || j->batch > 1000000 || j->seq < 1 || j->seq > 100000000 ||
	    j->accum < 1 || j->accum > 1000000)
		return error_set(err, "batch, sequence and accumulation must be positive");
	if (vram_model_max_tokens(m) > 0 && vram_job_tokens(j) > vram_model_max_tokens(m))
		return error_set(err,
				 "%lld tokens%s do not fit the model's %lld learned positions "
				 "(n_positions / max_position_embeddings): give a shorter --seq",
				 (long long)vram_job_tokens(j),
				 j->mode == VRAM_MODE_INFERENCE ? " (prompt and new tokens)" : "",
				 (long long)vram_model_max_tokens(m));
	if (pick_widths(&w, j, err))
		return -1;
	vram_model_params(&e->params, m);
	const struct vram_params *p = &e->params;
	const int n_lin = vram_layer_linears(lin, m);
	const double L = (double)m->layers, H = (double)m->hidden, V = (double)m->vocab;
	const int lm = vram_model_is_lm(m);

	/* parameters that are not the layers' linears: embeddings, norms, heads */
	/* the layers' nn.Linear weights (quantised under qlora and fp8) and the
	 * rest; a MoE's router and experts are parameters, not modules */
	const double base_layer = L * (double)(p->layer_linear - p->layer_params);
	const double base_rest = (double)p->total - base_layer;
	double weights =
	    base_layer * w.base_layer_b + (base_rest > 0 ? base_rest : 0) * w.base_rest_b;
	if (j->mode == VRAM_MODE_INFERENCE) {
		inference(e, m, j, &w, weights);
		finish(e, j);
		return 0;
	}

	if (j->mode == VRAM_MODE_LORA || j->mode == VRAM_MODE_QLORA) {
		if (j->lora_rank < 1 || j->lora_rank > 65536)
			return error_set(err, "lora rank %lld is not in 1..65536",
					 (long long)j->lora_rank);
		if (select_targets(sel, lin, n_lin, m, j, err))
			return -1;
	}

	/* trainable parameters, and their shape for Adafactor */
	double trainable = 0, rows_cols = 0, vec = 0;
	if (w.rg.full) {
		trainable = (double)p->total;
		double mats = 0;
		for (int i = 0; i < n_lin; i++) {
			rows_cols += L * (double)lin[i].count * (double)(lin[i].in + lin[i].out);
			mats += L * (double)lin[i].count * (double)(lin[i].in * lin[i].out);
		}
		rows_cols += V + H; /* token embedding */
		mats += V * H;
		if (lm && !m->tied) {
			rows_cols += V + H;
			mats += V * H;
		}
		vec = trainable - mats;
	} else {
		for (int i = 0; i < n_lin; i++)
			if (sel[i]) {
				double r = (double)j->lora_rank;
				trainable += L * r * (double)(lin[i].in + lin[i].out);
				rows_cols += L * 2 * (r + 0.5 * (double)(lin[i].in + lin[i].out));
			}
		weights += trainable * 4; /* lora_A, lora_B in fp32 */
	}
	e->trainable = (int64_t)trainable;
	struct opt_cost oc = optimizer_cost(j, trainable, rows_cols, vec, w.master_b);
	const double G = trainable * w.grad_b;

	/* autocast's cached bf16 copies of every linear weight (and the tied head),
	 * each kept by the matmul that saved it. Under full checkpointing a layer's
	 * matmuls save nothing: the cache is cleared when the forward leaves
	 * autocast, and the backward re-casts one layer's weights at a time. */
	double copies = 0, copies_head = 0, copies_layer = 0;
	if (w.rg.casts) {
		copies_head = lm ? 2 * V * H : 0;
		copies_layer = 2 * (double)(p->layer_linear - p->layer_params);
		copies = (j->ckpt == VRAM_CKPT_FULL ? 0 : 2 * base_layer) + copies_head;
	} else if (j->mode == VRAM_MODE_QLORA && w.rg.autocast && lm) {
		copies = copies_head = 2 * V * H; /* the fp32 lm_head, cast (and saved) */
	}
	vram_activation_terms(&t, m, j, &w.rg, sel, n_lin);
	e->act_per_layer = t.layer_stored;
	const double first_edge = j->ckpt == VRAM_CKPT_FULL ? 0 : t.layer - t.layer_first;
	const double A_layers = L * t.layer_stored - first_edge;
	const double A_all = A_layers + t.outside + t.head_in + t.loss;
	const int c = w.rg.c;
	const double bs = (double)j->batch * (double)vram_model_tokens(m, j->seq);
	const double g_held = j->accum > 1 ? G : 0;
	const double gw_factor = w.rg.full ? (w.rg.casts ? c + w.grad_b : w.grad_b) : 0;
	const double dequant = w.dequant ? c * (double)p->layer_mlp_w : 0;
	const double ws = cublas_workspace(j->cc_major);

	double part[VRAM_PART_N];
#define BASE()                                                                                     \
	do {                                                                                       \
		memset(part, 0, sizeof(part));                                                     \
		part[VRAM_PART_WEIGHTS] = weights;                                                 \
		part[VRAM_PART_OPTIMIZER] = oc.states;                                             \
		part[VRAM_PART_WORKSPACE] = ws;                                                    \
	} while (0)

	/* backward (loss): nll_loss_backward and _log_softmax_backward_data */
	BASE();
	part[VRAM_PART_WEIGHT_COPIES] = copies;
	part[VRAM_PART_GRADIENTS] = g_held;
	part[VRAM_PART_ACTIVATIONS] = A_all;
	part[VRAM_PART_ACT_TRANSIENT] = lm ? 2 * t.loss : t.loss;
	add_phase(e, "backward (loss)", part);

	/* backward (head): the logits' gradient, the head input's, the weight's */
	if (lm) {
		BASE();
		part[VRAM_PART_WEIGHT_COPIES] = copies + dequant;
		part[VRAM_PART_GRADIENTS] = g_held;
		part[VRAM_PART_ACTIVATIONS] = A_all - t.loss;
		part[VRAM_PART_ACT_TRANSIENT] =
		    (c == 4 ? t.loss : t.logits_c) + bs * c * H + gw_factor * V * H;
		add_phase(e, "backward (head)", part);
	}

	/* backward (layer): the top layer, recomputed first under full checkpointing */
	const double g_head = w.rg.full && lm ? w.grad_b * V * H : 0;
	BASE();
	part[VRAM_PART_WEIGHT_COPIES] =
	    (j->ckpt == VRAM_CKPT_FULL ? copies_layer : copies - copies_head) + dequant;
	part[VRAM_PART_GRADIENTS] = g_held > g_head ? g_held : g_head;
	part[VRAM_PART_ACTIVATIONS] =
	    A_layers + t.outside + (j->ckpt == VRAM_CKPT_FULL ? t.layer - t.layer_stored : 0);
	part[VRAM_PART_ACT_TRANSIENT] = t.layer_transient + gw_factor * (double)p->layer_mlp_w;
	add_phase(e, "backward (layer)", part);

	/* backward (end): every gradient; a tied embedding's second gradient */
	BASE();
	part[VRAM_PART_GRADIENTS] = G;
	part[VRAM_PART_ACT_TRANSIENT] = w.rg.full && lm && m->tied ? w.grad_b * V * H : 0;
	add_phase(e, "backward (end)", part);

	/* optimizer step */
	BASE();
	part[VRAM_PART_GRADIENTS] = G;
	part[VRAM_PART_OPTIMIZER_TEMP] = oc.temp;
	add_phase(e, "optimizer step", part);
#undef BASE
	finish(e, j);
	return 0;
}

double vram_unquantised_expert_bytes(const struct vram_model *m, const struct vram_job *j)
{
	if (j->mode != VRAM_MODE_QLORA || m->experts <= 0)
		return 0;
	struct vram_params p;
	vram_model_params(&p, m);
	return 4.0 * (double)m->layers * (double)p.layer_params;
}

int vram_compare_peak(const struct vram_estimate *e, double measured_bytes, double *ratio)
{
	if (!(measured_bytes > 0))
		return -1;
	*ratio = e->allocated_peak / measured_bytes;
	return 0;
}
