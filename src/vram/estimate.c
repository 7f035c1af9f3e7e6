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
#include <ctype.h>
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
 * these to the tables). Training: 26 rows (measure.py's without
 * checkpointing, the mixtures of experts' of h200-moe/ and the optimizers'
 * of h100-optim/ and h200-optim/ among them, and hf_llama_train's
 * torch.profiler memory events), 0.009 .. 0.200, median 0.086 (0.091 from
 * the first 18, before the optimizers' rows of 2026-12-06); full
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
#define HEADROOM_TRAIN 0.086
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
    "logits",
    "workspace",
    "cuda_context",
    "allocator_headroom",
    "optimizer_states_paged",
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
    "logits",
    "cuBLAS workspace",
    "CUDA context and libraries",
    "allocator headroom",
    "paged optimizer states (unified memory)",
};

const char *vram_part_key(enum vram_part p)
{
	return (unsigned)p < VRAM_PART_N ? part_keys[p] : "unknown";
}

const char *vram_part_label(enum vram_part p)
{
	return (unsigned)p < VRAM_PART_N ? part_labels[p] : "unknown";
}

const char *vram_part_label_for(enum vram_part p, const struct vram_job *j, const char *phase)
{
	if (j->mode != VRAM_MODE_INFERENCE)
		return vram_part_label(p);
	int decode = phase && strncmp(phase, "decode", 6) == 0;
	switch (p) {
	case VRAM_PART_WEIGHT_COPIES:
		return "dequantised weights";
	case VRAM_PART_ACTIVATIONS:
		return "activations";
	case VRAM_PART_ACT_TRANSIENT:
		return decode ? "decode transients (KV concatenation copy)"
			      : "prefill transients (MLP / attention working set)";
	case VRAM_PART_LOGITS:
		return "logits (last token, and their fp32 copy)";
	default:
		return vram_part_label(p);
	}
}

/* ---- names ---- */

static const char *const mode_names[] = {"full", "lora", "qlora", "inference"};
static const char *const prec_names[] = {"fp32", "bf16", "amp", "fp8"};
static const char *const opt_names[] = {"adamw",     "adamw8bit",   "sgd",
					"adafactor", "adamw-fused", "paged-adamw8bit"};
static const char *const shard_names[] = {"none", "zero1", "zero2", "zero3"};
static const char *const offload_names[] = {"none", "optimizer", "params"};
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
NAME_FN(vram_shard_name, enum vram_shard, shard_names)
NAME_FN(vram_offload_name, enum vram_offload, offload_names)

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
PARSE_FN(vram_ckpt_parse, enum vram_ckpt, ckpt_names)
PARSE_FN(vram_offload_parse, enum vram_offload, offload_names)

/* '-' and '_' alike, case ignored */
static int same_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a == '_' ? '-' : *a, y = *b == '_' ? '-' : *b;
		if (tolower((unsigned char)x) != tolower((unsigned char)y))
			return 0;
	}
	return *a == *b;
}

int vram_optimizer_parse(const char *s, enum vram_optimizer *v)
{
	/* gpuscope's names, then HF Trainer's optim values (OptimizerNames) */
	static const struct {
		const char *name;
		enum vram_optimizer v;
	} names[] = {
	    {"adamw", VRAM_OPT_ADAMW},
	    {"adamw-foreach", VRAM_OPT_ADAMW},
	    {"adamw-torch", VRAM_OPT_ADAMW},
	    {"adamw-fused", VRAM_OPT_ADAMW_FUSED},
	    {"adamw-torch-fused", VRAM_OPT_ADAMW_FUSED},
	    {"adamw8bit", VRAM_OPT_ADAMW8BIT},
	    {"adamw-8bit", VRAM_OPT_ADAMW8BIT},
	    {"adamw-bnb-8bit", VRAM_OPT_ADAMW8BIT},
	    {"paged-adamw8bit", VRAM_OPT_PAGED_ADAMW8BIT},
	    {"paged-adamw-8bit", VRAM_OPT_PAGED_ADAMW8BIT},
	    {"adafactor", VRAM_OPT_ADAFACTOR},
	    {"sgd", VRAM_OPT_SGD},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (same_name(s, names[i].name)) {
			*v = names[i].v;
			return 0;
		}
	return -1;
}

int vram_shard_parse(const char *s, enum vram_shard *v)
{
	int i = lookup(s, shard_names, sizeof(shard_names) / sizeof(shard_names[0]));
	if (i >= 0)
		*v = (enum vram_shard)i;
	else if (same_name(s, "fsdp") || same_name(s, "full-shard"))
		*v = VRAM_SHARD_ZERO3;
	else if (same_name(s, "shard-grad-op"))
		*v = VRAM_SHARD_ZERO2;
	else
		return -1;
	return 0;
}

const char *vram_optimizer_words(enum vram_optimizer v)
{
	switch (v) {
	case VRAM_OPT_ADAMW:
		return "torch.optim.AdamW, foreach (PyTorch's default on CUDA; HF Trainer's "
		       "adamw_torch)";
	case VRAM_OPT_ADAMW_FUSED:
		return "torch.optim.AdamW(fused=True) (HF Trainer's default with torch >= 2.8)";
	case VRAM_OPT_ADAMW8BIT:
		return "bitsandbytes AdamW8bit (HF Trainer's adamw_bnb_8bit)";
	case VRAM_OPT_PAGED_ADAMW8BIT:
		return "bitsandbytes PagedAdamW8bit (HF Trainer's paged_adamw_8bit)";
	case VRAM_OPT_ADAFACTOR:
		return "transformers' Adafactor (HF Trainer's adafactor)";
	case VRAM_OPT_SGD:
		return "torch.optim.SGD with momentum";
	}
	return "unknown";
}

const char *vram_precision_words(const struct vram_job *j)
{
	const int fp16 = j->fp16;
	if (j->mode == VRAM_MODE_INFERENCE) {
		switch (j->precision) {
		case VRAM_PREC_FP32:
		case VRAM_PREC_AMP:
		case VRAM_PREC_BF16:
			return j->precision == VRAM_PREC_FP32
				   ? "bf16 weights (fp32 is not modelled for inference)"
			       : fp16 ? "fp16 weights (no bf16 on this GPU)"
				      : "bf16 weights";
		case VRAM_PREC_FP8:
			return "fp8 linear weights, bf16 compute";
		}
	}
	if (j->offload != VRAM_OFFLOAD_NONE && j->mode == VRAM_MODE_FULL &&
	    j->precision != VRAM_PREC_FP32)
		return fp16 ? "fp16 weights and gradients on the GPU, fp32 master weights on the "
			      "host"
			    : "bf16 weights and gradients on the GPU, fp32 master weights on the "
			      "host";
	switch (j->precision) {
	case VRAM_PREC_FP32:
		return "fp32 (no autocast)";
	case VRAM_PREC_BF16:
		if (j->mode == VRAM_MODE_FULL)
			return "pure bf16: bf16 weights, gradients and optimizer states";
		return "bf16 base weights, fp32 adapters, no autocast";
	case VRAM_PREC_AMP:
		if (j->mode == VRAM_MODE_QLORA)
			return fp16 ? "NF4 base, fp16 compute, fp32 adapters and norms (no bf16 on "
				      "this GPU)"
				    : "NF4 base, bf16 compute, fp32 adapters and norms";
		if (j->mode != VRAM_MODE_FULL)
			return fp16
				   ? "fp16 base, fp32 adapters, fp16 autocast (no bf16 on this GPU)"
				   : "bf16 base, fp32 adapters, bf16 autocast";
		return fp16 ? "fp16 autocast with a GradScaler, fp32 master weights (no bf16 on "
			      "this GPU)"
			    : "bf16 autocast, fp32 master weights";
	case VRAM_PREC_FP8:
		return "fp8 base weights, bf16 autocast, fp32 adapters";
	}
	return "unknown";
}

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
	j->gpus = 1;
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
	double states, temp, paged;
};

/* The trainable parameters as the optimizer sees them: n elements, of which
 * vec in 1-D tensors (small: those of fewer than 4096 elements, which
 * bitsandbytes keeps in 32-bit states), rows_cols the rows plus columns of
 * every matrix (Adafactor's factored moments), largest the largest tensor. */
struct opt_params {
	double n, vec, small, rows_cols, largest;
};

/*
 * Optimizer states and step temporaries (bytes), from the implementations
 * (docs/vram.md, "Optimizers"; not measured yet: workloads/vram/measure.py
 * --set optim measures them):
 *  adamw (foreach, torch/optim/adam.py _multi_tensor_adam): exp_avg and
 *    exp_avg_sq like the parameters; the step makes one new list,
 *    torch._foreach_sqrt(exp_avg_sqs), over every parameter at once;
 *  adamw-fused (_fused_adamw_): the same states, updated in place by one
 *    kernel: no temporary;
 *  adamw8bit (bitsandbytes, optim_bits=8, block_wise): one byte per element
 *    for each moment and an fp32 absmax per block of 256; tensors of fewer
 *    than min_8bit_size = 4096 elements keep 32-bit states; the update is in
 *    place; paged-adamw8bit puts the same states in CUDA unified memory
 *    (cudaMallocManaged: outside PyTorch's allocator);
 *  adafactor (transformers.optimization.Adafactor, beta1 None: no momentum):
 *    fp32 row and column second moments of every matrix, a full one of each
 *    vector; it loops over the parameters, and within one the update holds
 *    two fp32 tensors of its size at once (grad**2 + eps, then the
 *    approximated second moment; -update at the end);
 *  sgd (momentum): one buffer like the parameters, foreach in place.
 */
static struct opt_cost optimizer_cost(const struct vram_job *j, const struct opt_params *p,
				      int master_b)
{
	struct opt_cost o = {0, 0, 0};
	const double bnb = (2.0 + 2.0 * 4 / 256) * (p->n - p->small) + 8.0 * p->small;
	switch (j->optimizer) {
	case VRAM_OPT_ADAMW:
		o.states = 2.0 * master_b * p->n;
		o.temp = master_b * p->n;
		break;
	case VRAM_OPT_ADAMW_FUSED:
		o.states = 2.0 * master_b * p->n;
		break;
	case VRAM_OPT_ADAMW8BIT:
		o.states = bnb;
		break;
	case VRAM_OPT_PAGED_ADAMW8BIT:
		o.paged = bnb;
		break;
	case VRAM_OPT_SGD:
		o.states = (double)master_b * p->n;
		break;
	case VRAM_OPT_ADAFACTOR:
		o.states = 4.0 * (p->rows_cols + p->vec);
		o.temp = 2.0 * 4 * p->largest;
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
		if (!VRAM_PART_OUTSIDE(i))
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
	e->total = e->allocated_peak + e->part[VRAM_PART_CONTEXT] + e->part[VRAM_PART_HEADROOM] +
		   e->part[VRAM_PART_PAGED];
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
	/* tensor parallel over n GPUs: each holds 1/n of the linears, embeddings
	 * and heads (Megatron's split), its share of the KV heads (a KV head is
	 * replicated where there are fewer than GPUs), 1/n of the MLP and
	 * attention working sets; the residual stream and the gathered logits
	 * are whole on every GPU */
	const double n = (double)j->gpus,
		     kv_share = m->kv_heads >= j->gpus ? 1.0 / n : 1.0 / (double)m->kv_heads;
	const double kvb = j->kv_fp8 ? 1 : c; /* bytes of a cached element */
	(void)p;

	/* the prefill's working set: the MLP (act(gate) * up and its product) or the
	 * attention (q, k, v before and after RoPE, the output), beside the residual */
	double mlp = (m->gated_mlp ? 3.0 : 2.0) * c * T * I;
	if (m->experts > 0) /* every (token, expert) pair at once, and the shared expert */
		mlp = 3.0 * c * T * (double)m->top_k * (double)m->moe_intermediate +
		      3.0 * c * T * (double)m->shared_intermediate;
	double attn = c * T * (2 * (Q + 2 * KV) + Q);
	double work = (mlp > attn ? mlp : attn) / n + 2.0 * c * T * H;
	double logits = vram_model_is_lm(m) ? b * (double)m->vocab * (c + 4) : 0; /* last token */
	part[VRAM_PART_WEIGHTS] = weights / n;
	part[VRAM_PART_WORKSPACE] = cublas_workspace(j->cc_major);
	if (!vram_model_is_lm(m)) {
		part[VRAM_PART_ACT_TRANSIENT] = work;
		add_phase(e, "forward", part);
		return;
	}
	const double per_tok = 2.0 * m->layers * KV * kvb * kv_share; /* K and V of every layer */
	part[VRAM_PART_KV_CACHE] = T * per_tok;
	part[VRAM_PART_ACT_TRANSIENT] = work;
	part[VRAM_PART_LOGITS] = logits;
	add_phase(e, "prefill", part);
	if (j->gen_tokens > 1) {
		double len = seq + (double)j->gen_tokens - 1;
		if (j->kv_paged) { /* blocks of 16 tokens, allocated up front */
			len = ceil((seq + (double)j->gen_tokens) / 16) * 16;
			part[VRAM_PART_KV_CACHE] = b * len * per_tok;
			part[VRAM_PART_ACT_TRANSIENT] = 0;
		} else { /* DynamicLayer.update: torch.cat keeps the old K while the new exists */
			part[VRAM_PART_KV_CACHE] = b * len * per_tok;
			part[VRAM_PART_ACT_TRANSIENT] = b * len * KV * kvb * kv_share;
		}
		add_phase(e, "decode (last token)", part);
	}
}

static int check_spread(const struct vram_job *j, char *err)
{
	if (j->gpus < 1 || j->gpus > 4096)
		return error_set(err, "--gpus %lld is not in 1..4096", (long long)j->gpus);
	if (j->shard != VRAM_SHARD_NONE && j->gpus < 2)
		return error_set(err, "--shard %s shards over GPUs: give --gpus N (N > 1)",
				 vram_shard_name(j->shard));
	if (j->mode == VRAM_MODE_INFERENCE &&
	    (j->shard != VRAM_SHARD_NONE || j->offload != VRAM_OFFLOAD_NONE))
		return error_set(err, "--shard and --offload are modelled for training; inference "
				      "over --gpus N is tensor parallel");
	return 0;
}

int vram_estimate(struct vram_estimate *e, const struct vram_model *m, const struct vram_job *job,
		  char *err)
{
	struct vram_linear lin[VRAM_MAX_LINEARS];
	int sel[VRAM_MAX_LINEARS] = {0};
	struct widths w;
	struct vram_act_terms t;

	memset(e, 0, sizeof(*e));
	if (vram_model_check(m, err))
		return -1;
	if (job->batch < 1 || job->batch > 1000000 || job->seq < 1 || job->seq > 100000000 ||
	    job->accum < 1 || job->accum > 1000000)
		return error_set(err, "batch, sequence and accumulation must be positive");
	if (vram_model_max_tokens(m) > 0 && vram_job_tokens(job) > vram_model_max_tokens(m))
		return error_set(err,
				 "%lld tokens%s do not fit the model's %lld learned positions "
				 "(n_positions / max_position_embeddings): give a shorter --seq",
				 (long long)vram_job_tokens(job),
				 job->mode == VRAM_MODE_INFERENCE ? " (prompt and new tokens)" : "",
				 (long long)vram_model_max_tokens(m));
	if (check_spread(job, err))
		return -1;
	/* an offloaded optimizer keeps the fp32 master weights on the host: the
	 * GPU's model is the low-precision one (DeepSpeed's bf16 mode) */
	struct vram_job off = *job;
	const struct vram_job *j = job;
	if (job->offload != VRAM_OFFLOAD_NONE && job->mode == VRAM_MODE_FULL &&
	    job->precision != VRAM_PREC_FP32) {
		off.precision = VRAM_PREC_BF16;
		j = &off;
	}
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

	/* trainable parameters, and their shape for the optimizers */
	double trainable = 0;
	struct opt_params op = {0, 0, 0, 0, 0};
	if (w.rg.full) {
		trainable = (double)p->total;
		double mats = 0;
		for (int i = 0; i < n_lin; i++) {
			op.rows_cols += L * (double)lin[i].count * (double)(lin[i].in + lin[i].out);
			mats += L * (double)lin[i].count * (double)(lin[i].in * lin[i].out);
			if ((double)(lin[i].in * lin[i].out) > op.largest)
				op.largest = (double)(lin[i].in * lin[i].out);
		}
		op.rows_cols += V + H; /* token embedding */
		mats += V * H;
		if (lm && !m->tied) {
			op.rows_cols += V + H;
			mats += V * H;
		}
		if (V * H > op.largest)
			op.largest = V * H;
		op.vec = trainable - mats;
		/* vectors are norms and biases of the hidden or MLP width: below
		 * bitsandbytes' min_8bit_size when that width is */
		op.small = H < 4096 ? op.vec : 0;
	} else {
		for (int i = 0; i < n_lin; i++)
			if (sel[i]) {
				double r = (double)j->lora_rank;
				trainable += L * r * (double)(lin[i].in + lin[i].out);
				op.rows_cols +=
				    L * 2 * (r + 0.5 * (double)(lin[i].in + lin[i].out));
				double big =
				    r * (double)(lin[i].in > lin[i].out ? lin[i].in : lin[i].out);
				if (big > op.largest)
					op.largest = big;
				if (r * (double)lin[i].in < 4096)
					op.small += L * r * (double)lin[i].in;
				if (r * (double)lin[i].out < 4096)
					op.small += L * r * (double)lin[i].out;
			}
		weights += trainable * 4; /* lora_A, lora_B in fp32 */
	}
	op.n = trainable;
	e->trainable = (int64_t)trainable;
	struct opt_cost oc = optimizer_cost(j, &op, w.master_b);
	double G = trainable * w.grad_b;

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
	/* spread over GPUs (per-GPU memory; docs/vram.md, "Several GPUs and
	 * offload"): the largest unit FSDP or ZeRO-3 gathers is a layer, the
	 * embedding or the head; two are gathered at once (the next is
	 * prefetched), in the compute dtype (FSDP MixedPrecision: no autocast
	 * copies) */
	const double n = (double)j->gpus;
	double unit = (double)p->layer;
	if ((double)p->embed > unit)
		unit = (double)p->embed;
	if ((double)p->head > unit)
		unit = (double)p->head;
	/* a frozen base is gathered as it is stored (bf16, NF4, fp8) */
	const double gather_b = w.rg.full || p->total <= 0 ? c : weights / (double)p->total;
	const double gathered =
	    gather_b * (2.0 * (double)p->layer +
			((double)p->embed > (double)p->head ? (double)p->embed : (double)p->head));
	const double unit_g = w.grad_b * (unit < trainable ? unit : trainable);
	double buckets = 0; /* DDP's gradient buckets (gradient_as_bucket_view=False) */
	if (j->offload != VRAM_OFFLOAD_NONE) {
		struct opt_cost host = optimizer_cost(j, &op, 4);
		e->host_bytes = trainable * (4 + 4) + host.states + host.paged;
		oc.states = oc.temp = oc.paged = 0;
		if (j->offload == VRAM_OFFLOAD_PARAMS) {
			e->host_bytes += weights;
			weights = gathered;
			G = unit_g;
			copies = copies_head = copies_layer = 0;
		}
	}
	if (j->shard >= VRAM_SHARD_ZERO1) {
		oc.states /= n;
		oc.temp /= n;
		oc.paged /= n;
		e->host_bytes /= n;
	}
	if (j->shard >= VRAM_SHARD_ZERO2 && j->offload != VRAM_OFFLOAD_PARAMS)
		G = G / n + unit_g;
	if (j->shard == VRAM_SHARD_ZERO3 && j->offload != VRAM_OFFLOAD_PARAMS) {
		weights = weights / n + gathered;
		copies = copies_head = copies_layer = 0;
	}
	if (j->gpus > 1 && j->shard <= VRAM_SHARD_ZERO1 && j->offload == VRAM_OFFLOAD_NONE)
		buckets = G;
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
		part[VRAM_PART_PAGED] = oc.paged;                                                  \
		part[VRAM_PART_WORKSPACE] = ws;                                                    \
	} while (0)

	/* backward (loss): nll_loss_backward and _log_softmax_backward_data */
	BASE();
	part[VRAM_PART_WEIGHT_COPIES] = copies;
	part[VRAM_PART_GRADIENTS] = g_held + buckets;
	part[VRAM_PART_ACTIVATIONS] = A_all;
	part[VRAM_PART_ACT_TRANSIENT] = lm ? 2 * t.loss : t.loss;
	add_phase(e, "backward (loss)", part);

	/* backward (head): the logits' gradient, the head input's, the weight's */
	if (lm) {
		BASE();
		part[VRAM_PART_WEIGHT_COPIES] = copies + dequant;
		part[VRAM_PART_GRADIENTS] = g_held + buckets;
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
	part[VRAM_PART_GRADIENTS] = (g_held > g_head ? g_held : g_head) + buckets;
	part[VRAM_PART_ACTIVATIONS] =
	    A_layers + t.outside + (j->ckpt == VRAM_CKPT_FULL ? t.layer - t.layer_stored : 0);
	part[VRAM_PART_ACT_TRANSIENT] = t.layer_transient + gw_factor * (double)p->layer_mlp_w;
	add_phase(e, "backward (layer)", part);

	/* backward (end): every gradient; a tied embedding's second gradient */
	BASE();
	part[VRAM_PART_GRADIENTS] = G + buckets;
	part[VRAM_PART_ACT_TRANSIENT] = w.rg.full && lm && m->tied ? w.grad_b * V * H : 0;
	add_phase(e, "backward (end)", part);

	/* optimizer step */
	BASE();
	part[VRAM_PART_GRADIENTS] = G + buckets;
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
