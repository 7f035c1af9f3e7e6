/*
 * advise.c - the fit ladder over every lever, the largest micro-batch and
 * the fit table of common cards (advise.h).
 *
 * The levers and what each costs are one table (levers[] below, ordered in
 * docs/vram.md "What to change"); the ladder's order is their rank, not the
 * order they are tried in.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "vram/advise.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

static int total_of(const struct vram_model *m, const struct vram_job *j, double *total)
{
	struct vram_estimate e;
	if (vram_estimate(&e, m, j, NULL))
		return -1;
	*total = e.total;
	return 0;
}

static int fits(const struct vram_model *m, const struct vram_job *j, double cap)
{
	double t;
	return total_of(m, j, &t) == 0 && t <= cap;
}

/* Largest batch in [1, hi] that fits (the total grows with the batch); 0 if none. */
static int64_t largest_batch(const struct vram_model *m, const struct vram_job *base, double cap,
			     int64_t hi)
{
	struct vram_job j = *base;
	int64_t lo = 0;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo + 1) / 2;
		j.batch = mid;
		if (fits(m, &j, cap))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

enum lever {
	LV_AMP,
	LV_FUSED,
	LV_ACCUM,
	LV_8BIT,
	LV_CKPT,
	LV_BF16,
	LV_FP8_BASE,
	LV_ADAFACTOR,
	LV_LORA,
	LV_QLORA,
	LV_SGD,
	LV_OFFLOAD_OPT,
	LV_OFFLOAD_PARAMS,
	LV_SHARD,
	LV_SEQ,
	LV_I_BF16,
	LV_I_PAGED,
	LV_I_KV8,
	LV_I_FP8,
	LV_I_BATCH,
	LV_I_TP,
	LV_I_CTX,
	LV_I_NEW,
	LV_N
};

struct lever_info {
	int rank;   /* what it costs, in order: 0 nothing .. 9 the job itself */
	int search; /* its value is searched against the capacity: set after the others */
	int infer;  /* an inference lever (else a training one) */
	const char *cost;
};

static const struct lever_info levers[LV_N] = {
    [LV_AMP] = {0, 0, 0,
		"nothing much: matmuls in bf16 under autocast (fp16 without bf16), the same fp32 "
		"master weights (torch.autocast)"},
    [LV_FUSED] = {0, 0, 0,
		  "nothing: the same update in one kernel (torch.optim.AdamW(fused=True); HF "
		  "Trainer: optim=adamw_torch_fused, its default with torch >= 2.8)"},
    [LV_ACCUM] = {1, 1, 0,
		  "speed: smaller matmuls, more of them; the same effective batch, the same "
		  "result"},
    [LV_8BIT] = {2, 0, 0,
		 "accuracy: on par with 32-bit AdamW in bitsandbytes' benchmarks; code: "
		 "bitsandbytes (bnb.optim.AdamW8bit; HF Trainer: optim=adamw_bnb_8bit)"},
    [LV_CKPT] = {2, 0, 0,
		 "speed: each layer's forward runs again in the backward (about a third more "
		 "compute); the same result (model.gradient_checkpointing_enable())"},
    [LV_BF16] = {3, 0, 0,
		 "accuracy: bf16 weights and states lose updates under 1/256 of a weight "
		 "(Kahan summation or stochastic rounding win them back); speed: faster "
		 "(model.to(torch.bfloat16), no autocast)"},
    [LV_FP8_BASE] = {3, 0, 0,
		     "accuracy: the frozen base in fp8; needs an fp8 card (sm_89+) and fp8 "
		     "linears (torchao, Transformer Engine)"},
    [LV_ADAFACTOR] = {4, 0, 0,
		      "accuracy: a factored second moment and no momentum; wants its own "
		      "learning rate (transformers' Adafactor; HF Trainer: optim=adafactor)"},
    [LV_LORA] = {4, 0, 0, "accuracy: only low-rank adapters train, not the weights (peft)"},
    [LV_QLORA] = {5, 0, 0,
		  "accuracy: the frozen base in 4-bit NF4; speed: every matmul dequantises "
		  "(peft and bitsandbytes)"},
    [LV_SGD] = {5, 0, 0,
		"accuracy: SGD with momentum usually trails AdamW on transformers; wants its own "
		"learning rate"},
    [LV_OFFLOAD_OPT] = {6, 0, 0,
			"speed: the optimizer step runs on the CPU and the gradients cross "
			"PCIe every step (DeepSpeed ZeRO-Offload: offload_optimizer cpu)"},
    [LV_OFFLOAD_PARAMS] = {7, 0, 0,
			   "speed: every layer's weights cross PCIe in the forward and again in "
			   "the backward (DeepSpeed offload_param, FSDP "
			   "CPUOffload(offload_params=True))"},
    [LV_SHARD] = {8, 1, 0,
		  "hardware: more GPUs; speed: all-gathers and reduce-scatters every step "
		  "(FSDP or DeepSpeed ZeRO)"},
    [LV_SEQ] = {9, 1, 0, "the job itself: shorter samples (truncate or split them)"},
    [LV_I_BF16] = {0, 0, 1, "nothing for a model trained in bf16"},
    [LV_I_PAGED] = {1, 0, 1,
		    "code: an engine with a paged KV cache (vLLM, TGI; transformers' "
		    "continuous batching)"},
    [LV_I_KV8] = {2, 0, 1,
		  "accuracy: slight; an engine that stores fp8 keys and values (vLLM "
		  "--kv-cache-dtype fp8, TensorRT-LLM)"},
    [LV_I_FP8] = {3, 0, 1,
		  "accuracy: slight; fp8 weights (vLLM --quantization fp8, torchao); needs "
		  "sm_89+"},
    [LV_I_BATCH] = {4, 1, 1, "throughput: fewer sequences at once"},
    [LV_I_TP] = {5, 1, 1, "hardware: more GPUs (vLLM --tensor-parallel-size N)"},
    [LV_I_CTX] = {6, 1, 1, "the job itself: a shorter prompt"},
    [LV_I_NEW] = {6, 1, 1, "the job itself: shorter answers (max_new_tokens)"},
};

struct ctx {
	const struct vram_model *m;
	const struct vram_gpu *g;
	double cap;
};

/* The smallest of 2, 4, 8 GPUs on which f(job) fits; 8 when none does. */
static int64_t fewest_gpus(const struct ctx *cx, struct vram_job *j)
{
	for (int64_t n = 2; n <= 8; n *= 2) {
		j->gpus = n;
		if (fits(cx->m, j, cx->cap))
			return n;
	}
	return j->gpus = 8;
}

/* Halves the sequence until it fits or reaches 128. */
static void shorter(const struct ctx *cx, struct vram_job *j)
{
	while (j->seq > 128) {
		j->seq /= 2;
		if (fits(cx->m, j, cx->cap))
			break;
	}
}

/*
 * Applies lever l to j; 0 when it does not apply (already so, another
 * mode, the card lacks it). flags and what say the change.
 */
static int apply(enum lever l, struct vram_job *j, const struct ctx *cx, char *flags, size_t nf,
		 char *what, size_t nw)
{
	const struct vram_model *m = cx->m;
	const int train = j->mode != VRAM_MODE_INFERENCE, full = j->mode == VRAM_MODE_FULL;
	const int lm = vram_model_is_lm(m);
	if (levers[l].infer == train)
		return 0;
	switch (l) {
	case LV_AMP:
		if (j->precision != VRAM_PREC_FP32)
			return 0;
		j->precision = VRAM_PREC_AMP;
		snprintf(flags, nf, "--precision amp");
		snprintf(what, nw, "mixed precision: %s autocast, fp32 master weights",
			 cx->g->bf16 ? "bf16" : "fp16");
		return 1;
	case LV_FUSED:
		if (j->optimizer != VRAM_OPT_ADAMW)
			return 0;
		j->optimizer = VRAM_OPT_ADAMW_FUSED;
		snprintf(flags, nf, "--optimizer adamw-fused");
		snprintf(what, nw,
			 "fused AdamW: no temporary copy of the second moments at the step");
		return 1;
	case LV_ACCUM: {
		if (j->batch <= 1)
			return 0;
		/* the largest micro-batch that divides the effective batch and fits,
		 * with the gradients it holds through the accumulation */
		const int64_t eff = j->batch * j->accum;
		int64_t b = j->batch - 1;
		for (int tries = 0; b > 1; b--) {
			if (eff % b)
				continue;
			struct vram_job t = *j;
			t.batch = b;
			t.accum = eff / b;
			if (fits(m, &t, cx->cap) || ++tries >= 64)
				break;
		}
		j->batch = b;
		j->accum = eff / b;
		snprintf(flags, nf, "--batch %lld --accum %lld", (long long)j->batch,
			 (long long)j->accum);
		snprintf(what, nw,
			 "micro-batch %lld with %lld accumulation steps (effective batch %lld)",
			 (long long)j->batch, (long long)j->accum,
			 (long long)(j->batch * j->accum));
		return 1;
	}
	case LV_8BIT:
		if (j->optimizer != VRAM_OPT_ADAMW && j->optimizer != VRAM_OPT_ADAMW_FUSED)
			return 0;
		j->optimizer = VRAM_OPT_ADAMW8BIT;
		snprintf(flags, nf, "--optimizer adamw8bit");
		snprintf(what, nw, "8-bit AdamW: one byte per moment (bitsandbytes)");
		return 1;
	case LV_CKPT:
		if (j->ckpt == VRAM_CKPT_FULL)
			return 0;
		j->ckpt = VRAM_CKPT_FULL;
		snprintf(flags, nf, "--checkpointing full");
		snprintf(what, nw, "activation checkpointing: each layer keeps only its input");
		return 1;
	case LV_BF16:
		if (!full || !cx->g->bf16 || j->offload != VRAM_OFFLOAD_NONE ||
		    j->precision == VRAM_PREC_BF16)
			return 0;
		j->precision = VRAM_PREC_BF16;
		snprintf(flags, nf, "--precision bf16");
		snprintf(what, nw, "pure bf16: bf16 weights, gradients and optimizer states");
		return 1;
	case LV_FP8_BASE:
		if (j->mode != VRAM_MODE_LORA || !cx->g->fp8 || j->precision == VRAM_PREC_FP8)
			return 0;
		j->precision = VRAM_PREC_FP8;
		snprintf(flags, nf, "--precision fp8");
		snprintf(what, nw, "fp8 base weights under the adapters");
		return 1;
	case LV_ADAFACTOR:
		if (!full || j->optimizer == VRAM_OPT_ADAFACTOR)
			return 0;
		j->optimizer = VRAM_OPT_ADAFACTOR;
		snprintf(flags, nf, "--optimizer adafactor");
		snprintf(what, nw, "Adafactor: factored second moments, no first");
		return 1;
	case LV_SGD:
		if (!full || j->optimizer == VRAM_OPT_SGD)
			return 0;
		j->optimizer = VRAM_OPT_SGD;
		snprintf(flags, nf, "--optimizer sgd");
		snprintf(what, nw, "SGD with momentum: one state per parameter");
		return 1;
	case LV_LORA:
		if (!full)
			return 0;
		j->mode = VRAM_MODE_LORA;
		j->n_targets = 0;
		j->offload = VRAM_OFFLOAD_NONE;
		if (j->precision == VRAM_PREC_FP32)
			j->precision = VRAM_PREC_AMP;
		snprintf(flags, nf, "--mode lora");
		snprintf(what, nw, "LoRA rank %lld on peft's default targets",
			 (long long)j->lora_rank);
		return 1;
	case LV_QLORA:
		if (j->mode != VRAM_MODE_FULL && j->mode != VRAM_MODE_LORA)
			return 0;
		if (full)
			j->n_targets = 0;
		j->mode = VRAM_MODE_QLORA;
		j->offload = VRAM_OFFLOAD_NONE;
		if (j->precision == VRAM_PREC_FP8 || j->precision == VRAM_PREC_FP32)
			j->precision = VRAM_PREC_AMP;
		snprintf(flags, nf, "--mode qlora");
		snprintf(what, nw,
			 "QLoRA: an NF4 base (double quantisation) under rank-%lld adapters",
			 (long long)j->lora_rank);
		return 1;
	case LV_OFFLOAD_OPT:
		if (!full || j->offload != VRAM_OFFLOAD_NONE)
			return 0;
		j->offload = VRAM_OFFLOAD_OPTIMIZER;
		snprintf(flags, nf, "--offload optimizer");
		snprintf(what, nw,
			 "the optimizer on the CPU: fp32 master weights and states in host memory");
		return 1;
	case LV_OFFLOAD_PARAMS:
		if (!full || j->offload == VRAM_OFFLOAD_PARAMS)
			return 0;
		j->offload = VRAM_OFFLOAD_PARAMS;
		snprintf(flags, nf, "--offload params");
		snprintf(what, nw,
			 "the parameters in host memory too, two layers on the GPU at a time");
		return 1;
	case LV_SHARD: {
		static const char *const stage[] = {"", "ZeRO-1: the optimizer states",
						    "ZeRO-2 (FSDP shard_grad_op): states and "
						    "gradients",
						    "ZeRO-3 (FSDP full_shard): states, gradients "
						    "and weights"};
		if (j->shard == VRAM_SHARD_ZERO3)
			return 0;
		if (j->gpus > 1) { /* the GPUs given: the first stage that fits */
			while (j->shard < VRAM_SHARD_ZERO3) {
				j->shard++;
				if (fits(m, j, cx->cap))
					break;
			}
			snprintf(flags, nf, "--shard %s", vram_shard_name(j->shard));
		} else {
			j->shard = VRAM_SHARD_ZERO3;
			fewest_gpus(cx, j);
			snprintf(flags, nf, "--gpus %lld --shard zero3", (long long)j->gpus);
		}
		snprintf(what, nw, "%s sharded over %lld GPUs (memory per GPU)", stage[j->shard],
			 (long long)j->gpus);
		return 1;
	}
	case LV_SEQ:
		if (m->family == VRAM_FAM_VIT || j->seq <= 128)
			return 0;
		shorter(cx, j);
		snprintf(flags, nf, "--seq %lld", (long long)j->seq);
		snprintf(what, nw, "%lld tokens per sample", (long long)j->seq);
		return 1;
	case LV_I_BF16:
		if (j->precision != VRAM_PREC_FP32)
			return 0;
		j->precision = VRAM_PREC_BF16;
		snprintf(flags, nf, "--precision bf16");
		snprintf(what, nw, "bf16 weights");
		return 1;
	case LV_I_PAGED:
		if (j->kv_paged || !lm)
			return 0;
		j->kv_paged = 1;
		snprintf(flags, nf, "--kv-paged");
		snprintf(what, nw, "a paged KV cache: no concatenation copies");
		return 1;
	case LV_I_KV8:
		if (j->kv_fp8 || !lm)
			return 0;
		j->kv_fp8 = 1;
		snprintf(flags, nf, "--kv-dtype fp8");
		snprintf(what, nw, "an fp8 KV cache: half the bytes");
		return 1;
	case LV_I_FP8:
		if (j->precision == VRAM_PREC_FP8 || !cx->g->fp8)
			return 0;
		j->precision = VRAM_PREC_FP8;
		snprintf(flags, nf, "--precision fp8");
		snprintf(what, nw, "fp8 weights in the linear layers");
		return 1;
	case LV_I_BATCH: {
		if (j->batch <= 1)
			return 0;
		int64_t b = largest_batch(m, j, cx->cap, j->batch - 1);
		j->batch = b > 0 ? b : 1;
		snprintf(flags, nf, "--batch %lld", (long long)j->batch);
		snprintf(what, nw, "%lld sequence%s at once", (long long)j->batch,
			 j->batch > 1 ? "s" : "");
		return 1;
	}
	case LV_I_TP:
		if (j->gpus > 1)
			return 0;
		fewest_gpus(cx, j);
		snprintf(flags, nf, "--gpus %lld", (long long)j->gpus);
		snprintf(what, nw, "tensor parallel over %lld GPUs (memory per GPU)",
			 (long long)j->gpus);
		return 1;
	case LV_I_CTX:
		if (!lm || j->seq <= 128)
			return 0;
		shorter(cx, j);
		snprintf(flags, nf, "--seq %lld", (long long)j->seq);
		snprintf(what, nw, "a %lld-token prompt", (long long)j->seq);
		return 1;
	case LV_I_NEW:
		if (!lm || j->gen_tokens <= 16)
			return 0;
		while (j->gen_tokens > 16) {
			j->gen_tokens /= 2;
			if (fits(m, j, cx->cap))
				break;
		}
		snprintf(flags, nf, "--new-tokens %lld", (long long)j->gen_tokens);
		snprintf(what, nw, "%lld new tokens", (long long)j->gen_tokens);
		return 1;
	case LV_N:
		break;
	}
	return 0;
}

/* A lever saves memory when it lowers the total by 1% or more. */
static int lowers(double after, double before)
{
	return after < 0.99 * before;
}

static struct vram_step *add_step(struct vram_advice *a, const struct vram_model *m,
				  const struct vram_job *j, int rank)
{
	struct vram_estimate e;
	if (a->n_steps >= VRAM_MAX_STEPS || vram_estimate(&e, m, j, NULL))
		return NULL;
	struct vram_step *s = &a->steps[a->n_steps++];
	memset(s, 0, sizeof(*s));
	s->job = *j;
	s->rank = rank;
	s->total = e.total;
	s->host_bytes = e.host_bytes;
	s->fits = e.total <= a->capacity;
	return s;
}

static void skip(struct vram_advice *a, const char *flags, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void skip(struct vram_advice *a, const char *flags, const char *fmt, ...)
{
	if (a->n_skipped >= VRAM_MAX_SKIPPED)
		return;
	struct vram_skip *k = &a->skipped[a->n_skipped++];
	snprintf(k->flags, sizeof(k->flags), "%s", flags);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(k->why, sizeof(k->why), fmt, ap);
	va_end(ap);
}

/* Why the peak does not move: where it is. */
static const char *peak_words(const char *phase)
{
	if (!strcmp(phase, "optimizer step"))
		return "the peak is the optimizer step (weights, gradients, optimizer states)";
	if (!strcmp(phase, "backward (end)"))
		return "the peak is the end of the backward (weights, gradients, optimizer states)";
	if (!strncmp(phase, "decode", 6))
		return "the peak is the last decode step (weights and the whole KV cache)";
	return NULL;
}

/* The levers of list applied to j in cost order, the searched ones last. */
static void stack(struct vram_job *j, const struct ctx *cx, const enum lever *list, int n,
		  char *flags, size_t nf, char *what, size_t nw)
{
	char f[96], w[224];
	flags[0] = what[0] = '\0';
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++) {
			if (levers[list[i]].search != pass ||
			    !apply(list[i], j, cx, f, sizeof(f), w, sizeof(w)))
				continue;
			size_t uf = strlen(flags), uw = strlen(what);
			snprintf(flags + uf, nf - uf, "%s%s", uf ? " " : "", f);
			snprintf(what + uw, nw - uw, "%s%s", uw ? "; " : "", w);
		}
}

static double stacked_total(const struct ctx *cx, const struct vram_job *j, const enum lever *list,
			    int n)
{
	char flags[160], what[224];
	double t;
	struct vram_job s = *j;
	stack(&s, cx, list, n, flags, sizeof(flags), what, sizeof(what));
	return total_of(cx->m, &s, &t) ? 1e300 : t;
}

static void combine(struct vram_advice *a, const struct vram_model *m, const struct vram_job *j,
		    const struct ctx *cx, double base)
{
	enum lever order[LV_N], list[LV_N] = {LV_FUSED};
	int n_order = 0, n = 0, ok = 0;
	for (int r = 0; r <= 9; r++) /* every lever, cheapest first */
		for (int l = 0; l < LV_N; l++)
			if (levers[l].rank == r)
				order[n_order++] = (enum lever)l;
	struct vram_job cur = *j;
	double now = base;
	/* after each lever kept, from the cheapest again: one that changed
	 * nothing before (checkpointing while the step was the peak) may now */
	for (int i = 0; i < n_order && !ok; i++) {
		struct vram_job t = cur;
		char f[96], w[224];
		double after;
		int seen = 0;
		for (int x = 0; x < n; x++)
			seen |= list[x] == order[i];
		if (seen || !apply(order[i], &t, cx, f, sizeof(f), w, sizeof(w)) ||
		    total_of(m, &t, &after) || !lowers(after, now))
			continue;
		cur = t;
		now = after;
		list[n++] = order[i];
		ok = after <= a->capacity;
		i = -1;
	}
	now = stacked_total(cx, j, list, n);
	for (int r = 9, i = n - 1; r >= 0 && n > 1; i--) { /* dearest first */
		if (i < 0) {
			r--;
			i = n;
			continue;
		}
		if (levers[list[i]].rank != r)
			continue;
		enum lever without[LV_N];
		int k = 0;
		for (int x = 0; x < n; x++)
			if (x != i)
				without[k++] = list[x];
		double t = stacked_total(cx, j, without, k);
		if (ok ? t <= a->capacity : t <= now * 1.005) {
			memcpy(list, without, sizeof(list[0]) * (size_t)k);
			n = k;
			now = t < now ? t : now;
		}
	}
	if (n < 2)
		return; /* one lever alone is a rung already */
	char flags[160], what[224];
	struct vram_job t = *j;
	int rank = 0;
	stack(&t, cx, list, n, flags, sizeof(flags), what, sizeof(what));
	for (int i = 0; i < n; i++)
		if (levers[list[i]].rank > rank)
			rank = levers[list[i]].rank;
	struct vram_step *s = add_step(a, m, &t, rank + 1);
	if (s) {
		snprintf(s->flags, sizeof(s->flags), "%s", flags);
		snprintf(s->what, sizeof(s->what), "%s", what);
		/* each part's cost, to its first clause */
		for (int i = 0; i < n; i++) {
			size_t used = strlen(s->cost);
			int len = (int)strcspn(levers[list[i]].cost, ";(");
			while (len > 0 && levers[list[i]].cost[len - 1] == ' ')
				len--;
			snprintf(s->cost + used, sizeof(s->cost) - used, "%s%.*s", i ? "; " : "",
				 len, levers[list[i]].cost);
		}
		s->combo = 1;
	}
}

static int by_rank(const struct vram_step *x, const struct vram_step *y)
{
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return (x->total > y->total) - (x->total < y->total);
}

static void ladder(struct vram_advice *a, const struct vram_model *m, const struct vram_job *j,
		   const struct vram_gpu *g, double base)
{
	struct ctx cx = {m, g, a->capacity};
	int n_help = 0, any_fit = 0;
	const char *where = peak_words(a->peak);

	/* every lever alone, on the job as given */
	for (int l = 0; l < LV_N; l++) {
		struct vram_job t = *j;
		char flags[96], what[224];
		double after;
		if (!apply((enum lever)l, &t, &cx, flags, sizeof(flags), what, sizeof(what)) ||
		    total_of(m, &t, &after))
			continue;
		if (!lowers(after, base)) {
			if (after > base * 1.0001)
				skip(a, flags, "more memory, not less (%.2f GiB)", after / GiB);
			else if (where)
				skip(a, flags, "no change: %s", where);
			else
				skip(a, flags, "no change (under 1%%)");
			continue;
		}
		n_help++;
		struct vram_step *s = add_step(a, m, &t, levers[l].rank);
		if (!s)
			continue;
		snprintf(s->flags, sizeof(s->flags), "%s", flags);
		snprintf(s->what, sizeof(s->what), "%s", what);
		snprintf(s->cost, sizeof(s->cost), "%s", levers[l].cost);
		any_fit |= s->fits;
	}

	/* none fits alone: stack every lever, cheapest first, each kept where it
	 * lowers the total, until the job fits; then drop, dearest first, those
	 * it does as well without */
	if (!any_fit && n_help > 0)
		combine(a, m, j, &cx, base);

	/* cost order, the cheaper total first within a rank */
	for (int i = 1; i < a->n_steps; i++)
		for (int k = i; k > 0 && by_rank(&a->steps[k], &a->steps[k - 1]) < 0; k--) {
			struct vram_step tmp = a->steps[k];
			a->steps[k] = a->steps[k - 1];
			a->steps[k - 1] = tmp;
		}
	for (int i = 0; i < a->n_steps && a->first_fit < 0; i++)
		if (a->steps[i].fits)
			a->first_fit = i;
}

void vram_job_for_gpu(struct vram_job *j, const struct vram_gpu *gpu)
{
	j->cc_major = gpu->cc_major;
	j->fp16 = !gpu->bf16;
}

int vram_advise(struct vram_advice *a, const struct vram_model *m, const struct vram_job *j,
		const struct vram_gpu *gpu, char *err)
{
	struct vram_estimate e;
	memset(a, 0, sizeof(*a));
	a->capacity = gpu->bytes;
	a->first_fit = -1;
	if (vram_estimate(&e, m, j, err))
		return -1;
	snprintf(a->peak, sizeof(a->peak), "%s", e.phases[e.peak_phase].name);
	a->fits = e.total <= a->capacity;
	a->max_batch = largest_batch(m, j, a->capacity, 1 << 20);
	if (!a->fits)
		ladder(a, m, j, gpu, e.total);
	return 0;
}

int vram_fit_table(struct vram_fit_row *rows, int max, const struct vram_model *m,
		   const struct vram_job *j, char *err)
{
	struct vram_advice *a = malloc(sizeof(*a)); /* large: not on the stack */
	if (!a)
		return error_set(err, "out of memory");
	int n = 0;
	for (int i = 0; vram_gpu_common_at(i) && n < max; i++) {
		const struct vram_gpu *g = vram_gpu_common_at(i);
		struct vram_job jj = *j;
		struct vram_estimate e;
		vram_job_for_gpu(&jj, g);
		if (vram_estimate(&e, m, &jj, err) || vram_advise(a, m, &jj, g, err)) {
			n = -1;
			break;
		}
		struct vram_fit_row *r = &rows[n++];
		memset(r, 0, sizeof(*r));
		r->gpu = *g;
		r->total = e.total;
		r->fits = a->fits;
		if (a->first_fit >= 0) {
			r->has_change = 1;
			r->change = a->steps[a->first_fit];
		}
	}
	free(a);
	return n;
}
