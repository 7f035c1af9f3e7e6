/*
 * opts.h - `gpuscope vram`'s command-line values turned into a model, a
 * job and a GPU (src/cli/cmd_vram.c parses the options into struct
 * vram_opts; everything past the parse is here, testable without the CLI).
 *
 * A field left 0 (or -1 where 0 is a value: double_quant, tied,
 * new_tokens) keeps the model's or the job's default.
 */
#ifndef GPUSCOPE_VRAM_OPTS_H
#define GPUSCOPE_VRAM_OPTS_H

#include <stdio.h>

#include "vram/estimate.h"
#include "vram/gpus.h"
#include "vram/model.h"
#include "vram/recording.h"

struct vram_opts {
	const char *mode, *precision, *optimizer, *ckpt, *attention, *targets, *gpu, *format;
	const char *family, *recording, *shard, *offload, *kv_dtype;
	long long batch, seq, accum, rank, new_tokens, params, gpus;
	long long layers, hidden, heads, kv_heads, head_dim, intermediate, vocab;
	double lora_dropout;
	int double_quant, kv_paged, list, tied, progress;
};

/* "7e9", "6.7B", "125M", "350m", "70b", "1.5T" as a count; -1 when not one. */
int vram_parse_count(const char *s, long long *v);

/* The presets (--list) and the GPU table (--gpu list), one a line. */
void vram_list_presets(FILE *f, int json);
void vram_list_gpus(FILE *f, int json);

/* MODEL: a preset, a config.json, or a folder holding one. */
int vram_load_model(struct vram_model *m, const char *arg, char *err);

/* The model: arg (MODEL, may be NULL: the shape options alone) with the
 * shape options of o over it; -1 with err when it is no model. */
int vram_build_model(struct vram_model *m, const char *arg, const struct vram_opts *o, char *err);

/* The job of o (its choices already checked) on m. -1 when --lora-targets
 * is not a list of up to VRAM_MAX_TARGETS names (a usage error). */
int vram_build_job(struct vram_job *j, const struct vram_model *m, const struct vram_opts *o);

/* The GPU to fit against: --gpu NAME from the table, "local" (NVML), "none"
 * or no --gpu (the local GPU when there is one). 1: *g is set, 0: no GPU,
 * -1: err says why (local asked for and not there), -2: an unknown name. */
int vram_pick_gpu(struct vram_gpu *g, const char *name, char *err);

/* The peak of the recording at path (vram_recording_peak); -1 with err. */
int vram_recording_peak_file(struct vram_recording_peak *out, const char *path, char *err);

#endif
