/*
 * nvml_mig.c - the NVML backend's MIG instances (gpu.h, gpu_mig): for a
 * device in MIG mode, each MIG device's GPU and compute instance ids, its
 * profile (the name NVML gives it, "... MIG 1g.18gb", as nvidia-smi shows
 * it), its MIG UUID, its memory and its GPM activity (nvmlGpmMigSampleGet:
 * per-instance SM, DRAM, tensor and FP activity, which dcgm-exporter lacks).
 * Only queries: MIG is never configured here.
 */
#include <stdio.h>
#include <string.h>

#include "gpu/nvml_ctx.h"

/* The GPM sample pair of GPU instance gi (allocated on first use); NULL
 * when all slots are taken or allocation fails. */
static struct nvml_mig_gpm *mig_gpm_slot(struct nvml_ctx *c, struct nvml_dev *nd, unsigned gi)
{
	struct nvml_mig_gpm *free_slot = NULL;
	for (unsigned i = 0; i < GPU_MAX_MIG; i++) {
		struct nvml_mig_gpm *g = &nd->mig_gpm[i];
		if (g->used && g->gi == gi)
			return g;
		if (!g->used && !free_slot)
			free_slot = g;
	}
	if (!free_slot || !NVML_OK(c->ops.gpm_sample_alloc(&free_slot->prev)))
		return NULL;
	if (!NVML_OK(c->ops.gpm_sample_alloc(&free_slot->cur))) {
		c->ops.gpm_sample_free(free_slot->prev);
		free_slot->prev = NULL;
		return NULL;
	}
	free_slot->used = 1;
	free_slot->gi = gi;
	free_slot->have_prev = 0;
	return free_slot;
}

/* GPM metrics of one GPU instance over the window since the last call. */
static void mig_gpm(struct nvml_ctx *c, struct nvml_dev *nd, unsigned gi, struct gpu_sample *out)
{
	struct nvml_mig_gpm *g;
	struct nvmlGpmSample_st *tmp;
	if (!c->ops.gpm_mig_sample_get || !nvml_gpm_ready(c, nd) || !(g = mig_gpm_slot(c, nd, gi)))
		return;
	if (!NVML_OK(c->ops.gpm_mig_sample_get(nd->h, gi, g->cur))) {
		g->have_prev = 0;
		return;
	}
	if (g->have_prev)
		nvml_gpm_window(c, g->prev, g->cur, 0, out);
	tmp = g->prev;
	g->prev = g->cur;
	g->cur = tmp;
	g->have_prev = 1;
}

/* "NVIDIA H200 MIG 1g.18gb" -> "1g.18gb" */
static void profile_of(const char *name, char *out, size_t len)
{
	const char *p = strstr(name, "MIG ");
	out[0] = 0;
	if (p && p[4])
		snprintf(out, len, "%s", p + 4);
}

static void one_instance(struct nvml_ctx *c, struct nvml_dev *nd, struct nvmlDevice_st *md,
			 struct gpu_mig *m)
{
	const struct gs_nvml_ops *o = &c->ops;
	char name[96];
	unsigned int ci;
	if (o->device_get_compute_instance_id &&
	    NVML_OK(o->device_get_compute_instance_id(md, &ci)))
		m->ci_id = (int)ci;
	if (o->device_get_name && NVML_OK(o->device_get_name(md, name, sizeof(name)))) {
		name[sizeof(name) - 1] = 0;
		profile_of(name, m->profile, sizeof(m->profile));
	}
	if (o->device_get_uuid && NVML_OK(o->device_get_uuid(md, m->uuid, sizeof(m->uuid))))
		m->uuid[sizeof(m->uuid) - 1] = 0;
	else
		m->uuid[0] = 0;
	if (o->device_get_memory_info) {
		struct gs_nvml_memory mem;
		if (NVML_OK(o->device_get_memory_info(md, &mem))) {
			gpu_sample_set(&m->s, GPU_M_MEM_USED, (double)mem.used);
			gpu_sample_set(&m->s, GPU_M_MEM_TOTAL, (double)mem.total);
		}
	}
	mig_gpm(c, nd, m->gi_id, &m->s);
}

int nvml_mig(void *ctx, unsigned dev, struct gpu_migs *out)
{
	struct nvml_ctx *c = ctx;
	const struct gs_nvml_ops *o = &c->ops;
	struct nvml_dev *nd = dev < c->n_dev ? &c->dev[dev] : NULL;
	unsigned int cur = 0, pending = 0, max = 0;

	memset(out, 0, sizeof(*out));
	if (!nd || !nd->h)
		return -1;
	if (!o->device_get_mig_mode || !NVML_OK(o->device_get_mig_mode(nd->h, &cur, &pending)) ||
	    !cur)
		return 0; /* not in MIG mode: no instances (valid stays 0) */
	if (!o->device_get_max_mig_device_count || !o->device_get_mig_device_handle_by_index ||
	    !o->device_get_gpu_instance_id ||
	    !NVML_OK(o->device_get_max_mig_device_count(nd->h, &max)))
		return 0;
	if (max > GPU_MAX_MIG)
		max = GPU_MAX_MIG;
	for (unsigned i = 0; i < max; i++) {
		struct nvmlDevice_st *md = NULL;
		unsigned int gi;
		/* an index without a MIG device answers NOT_FOUND */
		if (!NVML_OK(o->device_get_mig_device_handle_by_index(nd->h, i, &md)) || !md ||
		    !NVML_OK(o->device_get_gpu_instance_id(md, &gi)))
			continue;
		struct gpu_mig *m = &out->m[out->n++];
		m->gi_id = gi;
		m->ci_id = -1;
		one_instance(c, nd, md, m);
	}
	out->valid = 1;
	return 0;
}
