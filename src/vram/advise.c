/*
 * advise.c - the fit ladder and the largest micro-batch (advise.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"
#include "vram/advise.h"

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

static void add_step(struct vram_advice *a, const struct vram_model *m, const struct vram_job *j,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void add_step(struct vram_advice *a, const struct vram_model *m, const struct vram_job *j,
		     const char *fmt, ...)
{
	if (a->n_steps >= VRAM_MAX_STEPS)
		return;
	struct vram_step *s = &a->steps[a->n_steps];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->what, sizeof(s->what), fmt, ap);
	va_end(ap);
	s->job = *j;
	if (total_of(m, j, &s->total))
		return; /* a rung that cannot be estimated is left out */
	s->fits = s->total <= a->capacity;
	if (s->fits && a->first_fit < 0)
		a->first_fit = a->n_steps;
	a->n_steps++;
}

static void ladder_train(struct vram_advice *a, const struct vram_model *m, struct vram_job j)
{
	double cap = a->capacity;
	if (j.precision == VRAM_PREC_FP32) {
		j.precision = VRAM_PREC_AMP;
		add_step(a, m, &j, "mixed precision with fp32 master weights (--precision amp)");
	}
	if (a->first_fit < 0 && j.batch > 1) {
		int64_t eff = j.batch * j.accum, b = j.batch;
		while (b > 1) {
			struct vram_job t = j;
			t.batch = b / 2;
			t.accum = (eff + t.batch - 1) / t.batch;
			b = t.batch;
			if (fits(m, &t, cap) || b == 1) {
				j = t;
				break;
			}
		}
		add_step(a, m, &j,
			 "gradient accumulation: micro-batch %lld x %lld steps (--batch %lld, "
			 "accumulate %lld)",
			 (long long)j.batch, (long long)j.accum, (long long)j.batch,
			 (long long)j.accum);
	}
	if (a->first_fit < 0 && j.ckpt != VRAM_CKPT_FULL) {
		j.ckpt = VRAM_CKPT_FULL;
		add_step(a, m, &j, "activation checkpointing (--checkpointing full)");
	}
	if (a->first_fit < 0 && j.mode == VRAM_MODE_FULL) {
		j.mode = VRAM_MODE_LORA;
		j.n_targets = 0;
		if (j.precision == VRAM_PREC_FP32)
			j.precision = VRAM_PREC_AMP;
		add_step(a, m, &j, "LoRA rank %lld on the default targets (--mode lora)",
			 (long long)j.lora_rank);
	}
	if (a->first_fit < 0 && j.mode == VRAM_MODE_LORA) {
		j.mode = VRAM_MODE_QLORA;
		if (j.precision == VRAM_PREC_FP8)
			j.precision = VRAM_PREC_AMP;
		add_step(a, m, &j, "QLoRA: NF4 base with double quantisation (--mode qlora)");
	}
	if (a->first_fit < 0 && (j.batch > 1 || j.accum > 1)) {
		j.batch = 1;
		j.accum = 1;
		add_step(a, m, &j, "a smaller batch: one sample per step (--batch 1)");
	}
	while (a->first_fit < 0 && j.seq > 128 && a->n_steps < VRAM_MAX_STEPS &&
	       m->family != VRAM_FAM_VIT) {
		j.seq /= 2;
		if (fits(m, &j, cap) || j.seq <= 128) {
			add_step(a, m, &j, "a shorter sequence (--seq %lld)", (long long)j.seq);
			break;
		}
	}
}

static void ladder_infer(struct vram_advice *a, const struct vram_model *m, struct vram_job j)
{
	if (j.precision == VRAM_PREC_FP32 || j.precision == VRAM_PREC_AMP) {
		j.precision = VRAM_PREC_BF16;
		add_step(a, m, &j, "bf16 weights (--precision bf16)");
	}
	if (a->first_fit < 0 && j.precision != VRAM_PREC_FP8) {
		j.precision = VRAM_PREC_FP8;
		add_step(a, m, &j, "fp8 weights for the linear layers (--precision fp8)");
	}
	if (a->first_fit < 0 && !j.kv_paged && vram_model_is_lm(m)) {
		j.kv_paged = 1;
		add_step(a, m, &j, "a paged KV cache, no concatenation copies (--kv-paged)");
	}
	if (a->first_fit < 0 && j.batch > 1) {
		int64_t b = largest_batch(m, &j, a->capacity, j.batch - 1);
		j.batch = b > 0 ? b : 1;
		add_step(a, m, &j, "a smaller batch (--batch %lld)", (long long)j.batch);
	}
	while (a->first_fit < 0 && j.seq > 128 && a->n_steps < VRAM_MAX_STEPS &&
	       vram_model_is_lm(m)) {
		j.seq /= 2;
		if (fits(m, &j, a->capacity) || j.seq <= 128) {
			add_step(a, m, &j, "a shorter prompt (--seq %lld)", (long long)j.seq);
			break;
		}
	}
}

int vram_advise(struct vram_advice *a, const struct vram_model *m, const struct vram_job *j,
		double capacity, char *err)
{
	struct vram_estimate e;
	memset(a, 0, sizeof(*a));
	a->capacity = capacity;
	a->first_fit = -1;
	if (vram_estimate(&e, m, j, err))
		return -1;
	a->fits = e.total <= capacity;
	a->max_batch = largest_batch(m, j, capacity, 1 << 20);
	if (a->fits)
		return 0;
	if (j->mode == VRAM_MODE_INFERENCE)
		ladder_infer(a, m, *j);
	else
		ladder_train(a, m, *j);
	return 0;
}
