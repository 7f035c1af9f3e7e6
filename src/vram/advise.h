/*
 * advise.h - does it fit, and if not, the cheapest changes that make it fit.
 *
 * The ladder follows docs/method.md §5's order of memory savings (AMP,
 * gradient accumulation, activation checkpointing) and section 3.1's move
 * to LoRA and QLoRA, then a smaller batch and a shorter sequence. Each rung
 * keeps the rungs before it and carries its own new estimate, so the first
 * rung that fits is the cheapest change that does. Inference has its own
 * ladder (bf16, fp8 weights, paged KV cache, a smaller batch, a shorter
 * context).
 */
#ifndef GPUSCOPE_VRAM_ADVISE_H
#define GPUSCOPE_VRAM_ADVISE_H

#include "vram/estimate.h"
#include "vram/gpus.h"

#define VRAM_MAX_STEPS 8

struct vram_step {
	char what[192]; /* "gradient checkpointing (--checkpointing full)" */
	struct vram_job job;
	double total;
	int fits;
};

struct vram_advice {
	double capacity;
	int fits;		/* the job as given fits */
	int64_t max_batch;	/* largest micro-batch of the job as given that fits; 0: none */
	int n_steps, first_fit; /* first_fit: index of the first rung that fits, -1: none */
	struct vram_step steps[VRAM_MAX_STEPS];
};

struct vram_recording_peak;

/* One report: what 'gpuscope vram' prints. gpu is NULL when none is known. */
struct vram_report {
	const struct vram_model *model;
	const struct vram_job *job;
	const struct vram_estimate *est;
	const struct vram_gpu *gpu;
	const struct vram_advice *advice;	     /* NULL without a GPU */
	const struct vram_recording_peak *recording; /* NULL without --recording */
	const char *recording_path;
};

/*
 * Fills a for job on model against capacity bytes. The ladder is only
 * walked when the job does not fit. -1 with err when the job itself cannot
 * be estimated.
 */
int vram_advise(struct vram_advice *a, const struct vram_model *m, const struct vram_job *j,
		double capacity, char *err);

#endif
