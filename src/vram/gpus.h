/*
 * gpus.h - GPU memory sizes to fit an estimate against: a small table of
 * common cards and the local GPU read through the GPU layer (gpu/gpu.h).
 */
#ifndef GPUSCOPE_VRAM_GPUS_H
#define GPUSCOPE_VRAM_GPUS_H

#include <stdint.h>

struct vram_gpu {
	char name[96];
	double bytes;	    /* total device memory as the driver reports it */
	int cc_major;	    /* compute capability major (cuBLAS workspace) */
	int bf16, fp8;	    /* the card computes in bf16 (sm_80+), in fp8 (sm_89+) */
	const char *source; /* where the number comes from */
};

/* The table entry whose name or alias matches name (case, spaces and '-'
 * ignored: "h100", "A100-40GB", "rtx4090"); -1 when none. */
int vram_gpu_find(struct vram_gpu *out, const char *name);
/* The i-th entry, NULL past the end. */
const struct vram_gpu *vram_gpu_at(int i);
/* The i-th of the common cards a job is set against when no GPU is named
 * and none is here (T4 .. MI300X, smallest first), NULL past the end. */
const struct vram_gpu *vram_gpu_common_at(int i);

/*
 * The first local GPU through the GPU layer (read-only). -1 with err when there is
 * no driver, no device or no memory figure.
 */
int vram_gpu_local(struct vram_gpu *out, char *err);

#endif
