/*
 * advise.h - does it fit, and if not, what to change: every lever a user
 * has, ordered by what it costs.
 *
 * Each lever (a faster optimizer, micro-batch with accumulation, 8-bit
 * AdamW, activation checkpointing, pure bf16, Adafactor, LoRA, QLoRA,
 * offload to the host, sharding over GPUs, a shorter sequence; for
 * inference a paged or fp8 KV cache, fp8 weights, a smaller batch, tensor
 * parallel GPUs, a shorter prompt) is tried alone on the job as given; a
 * lever that does not lower the total is left out (with why). When no
 * lever fits alone, the helpful ones are stacked cheapest first until the
 * job fits and then pruned to those it needs. Rungs are sorted by cost
 * (advise.c's lever table, docs/vram.md "What to change"), never by the
 * order they were tried; the first that fits is the cheapest change.
 */
#ifndef GPUSCOPE_VRAM_ADVISE_H
#define GPUSCOPE_VRAM_ADVISE_H

#include "vram/estimate.h"
#include "vram/gpus.h"

#define VRAM_MAX_STEPS 16
#define VRAM_MAX_SKIPPED 8

struct vram_step {
	char flags[160];  /* the whole change: "--optimizer adamw8bit --checkpointing full" */
	char what[224];	  /* what it does: "8-bit AdamW states (bitsandbytes)" */
	const char *cost; /* what it costs: speed, accuracy, code */
	int rank;	  /* cost order (lower is cheaper); a combination: its dearest + 1 */
	int combo;	  /* several levers together */
	struct vram_job job;
	double total, host_bytes;
	int fits;
};

/* A lever that changes nothing here, and why. */
struct vram_skip {
	char flags[96];
	char why[160];
};

struct vram_advice {
	double capacity;
	int fits;		/* the job as given fits */
	int64_t max_batch;	/* largest micro-batch of the job as given that fits; 0: none */
	char peak[32];		/* the phase of the job's peak */
	int n_steps, first_fit; /* first_fit: the cheapest rung that fits, -1: none */
	struct vram_step steps[VRAM_MAX_STEPS];
	int n_skipped;
	struct vram_skip skipped[VRAM_MAX_SKIPPED];
};

/* One card of the fit table: the job on it, and its cheapest change. */
struct vram_fit_row {
	struct vram_gpu gpu;
	double total; /* the job as given, on this card (its cuBLAS workspace) */
	int fits;
	int has_change;
	struct vram_step change;
};

#define VRAM_MAX_FIT_ROWS 16

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
	const struct vram_fit_row *fit; /* the fit table (no GPU), n_fit rows; NULL: none */
	int n_fit;
};

/*
 * Fills a for job on model against gpu (its memory, and whether it runs
 * bf16 and fp8). The ladder is only walked when the job does not fit. -1
 * with err when the job itself cannot be estimated.
 */
int vram_advise(struct vram_advice *a, const struct vram_model *m, const struct vram_job *j,
		const struct vram_gpu *gpu, char *err);

/* The job against each common card (vram_gpu_common_at): rows[], how many
 * (at most max), or -1 with err. A card without bf16 runs fp16 autocast. */
int vram_fit_table(struct vram_fit_row *rows, int max, const struct vram_model *m,
		   const struct vram_job *j, char *err);

/* The job on gpu: its cuBLAS workspace and fp16 where the card has no bf16. */
void vram_job_for_gpu(struct vram_job *j, const struct vram_gpu *gpu);

#endif
