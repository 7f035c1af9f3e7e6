/*
 * gpu.c - the vendor registry and struct gpu_sys (gpu.h).
 *
 * The registry is the only process-wide state: it is filled before the
 * first open (built-ins through pthread_once, others by
 * gpu_register_vendor at start) and only read afterwards, under a lock.
 * Everything a backend reads and keeps lives in its own context, owned by
 * one struct gpu_sys.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"
#include "util/error.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t reg_once = PTHREAD_ONCE_INIT;
static const struct gpu_vendor *registry[GPU_MAX_VENDORS];
static unsigned n_registry;

static int add_locked(const struct gpu_vendor *v)
{
	for (unsigned i = 0; i < n_registry; i++)
		if (registry[i] == v)
			return 0;
	if (n_registry == GPU_MAX_VENDORS)
		return -1;
	registry[n_registry++] = v;
	return 0;
}

static void register_builtin(void)
{
	pthread_mutex_lock(&reg_lock);
	add_locked(&gpu_vendor_nvml);
	add_locked(&gpu_vendor_amdgpu);
	add_locked(&gpu_vendor_intel);
	pthread_mutex_unlock(&reg_lock);
}

int gpu_register_vendor(const struct gpu_vendor *v)
{
	pthread_once(&reg_once, register_builtin);
	pthread_mutex_lock(&reg_lock);
	int rc = add_locked(v);
	pthread_mutex_unlock(&reg_lock);
	return rc;
}

void gpu_sys_init(struct gpu_sys *s)
{
	memset(s, 0, sizeof(*s));
}

int gpu_sys_add(struct gpu_sys *s, const struct gpu_vendor *v, void *ctx, char *err)
{
	unsigned n = 0;
	if (s->n_vendors == GPU_MAX_VENDORS) {
		v->shutdown(ctx);
		return error_set(err, "too many gpu vendors");
	}
	if (v->device_count(ctx, &n) < 0)
		n = 0;
	if (n > GPU_MAX_DEVICES - s->n_devices)
		n = GPU_MAX_DEVICES - s->n_devices;
	s->vend[s->n_vendors].v = v;
	s->vend[s->n_vendors].ctx = ctx;
	s->vend[s->n_vendors].first = s->n_devices;
	s->vend[s->n_vendors].count = n;
	s->n_vendors++;
	s->n_devices += n;
	return 0;
}

int gpu_sys_open(struct gpu_sys *s, char *err)
{
	return gpu_sys_open_root(s, NULL, err);
}

int gpu_sys_open_root(struct gpu_sys *s, const char *root, char *err)
{
	const struct gpu_vendor *list[GPU_MAX_VENDORS];
	unsigned n;
	size_t used = 0;

	gpu_sys_init(s);
	pthread_once(&reg_once, register_builtin);
	pthread_mutex_lock(&reg_lock);
	n = n_registry;
	memcpy(list, registry, sizeof(list));
	pthread_mutex_unlock(&reg_lock);
	if (err)
		err[0] = 0;
	for (unsigned i = 0; i < n; i++) {
		char e[GS_ERR_LEN];
		void *ctx = NULL;
		e[0] = 0;
		if (root && !list[i]->init_root)
			continue;
		if ((root ? list[i]->init_root(&ctx, root, e) : list[i]->init(&ctx, e)) == 0) {
			gpu_sys_add(s, list[i], ctx, NULL);
			continue;
		}
		/* with one vendor the message is the vendor's own; a vendor
		 * with no device here says nothing */
		if (err && e[0] && used < GS_ERR_LEN)
			used += (size_t)snprintf(err + used, GS_ERR_LEN - used, "%s%s",
						 used ? "; " : "", e);
	}
	if (s->n_vendors == 0) {
		if (err && !err[0] && root)
			error_set(err, "no amdgpu, i915 or xe gpu under %s", root);
		else if (err && !err[0])
			error_set(err, "no gpu vendor backend");
		return -1;
	}
	return 0;
}

void gpu_sys_close(struct gpu_sys *s)
{
	for (unsigned i = 0; i < s->n_vendors; i++)
		s->vend[i].v->shutdown(s->vend[i].ctx);
	gpu_sys_init(s);
}

/* The vendor slot of global device dev and its local index; -1 if none. */
static int locate(const struct gpu_sys *s, unsigned dev, unsigned *local)
{
	for (unsigned i = 0; i < s->n_vendors; i++)
		if (dev >= s->vend[i].first && dev - s->vend[i].first < s->vend[i].count) {
			*local = dev - s->vend[i].first;
			return (int)i;
		}
	return -1;
}

int gpu_static_info(struct gpu_sys *s, unsigned dev, struct gpu_static *out)
{
	unsigned l;
	int i = locate(s, dev, &l);
	memset(out, 0, sizeof(*out));
	if (i < 0)
		return -1;
	if (!s->vend[i].v->static_info)
		return 0;
	return s->vend[i].v->static_info(s->vend[i].ctx, l, out);
}

int gpu_sample(struct gpu_sys *s, unsigned dev, unsigned want, struct gpu_sample *out)
{
	unsigned l;
	int i = locate(s, dev, &l);
	memset(out, 0, sizeof(*out));
	if (i < 0)
		return -1;
	if (!s->vend[i].v->sample)
		return 0;
	return s->vend[i].v->sample(s->vend[i].ctx, l, want, out);
}

int gpu_health(struct gpu_sys *s, unsigned dev, struct gpu_sample *out)
{
	unsigned l;
	int i = locate(s, dev, &l);
	if (i < 0)
		return -1;
	if (!s->vend[i].v->health)
		return 0;
	return s->vend[i].v->health(s->vend[i].ctx, l, out);
}

int gpu_processes(struct gpu_sys *s, unsigned dev, struct gpu_procs *out)
{
	unsigned l;
	int i = locate(s, dev, &l);
	memset(out, 0, sizeof(*out));
	if (i < 0)
		return -1;
	if (!s->vend[i].v->processes)
		return 0;
	return s->vend[i].v->processes(s->vend[i].ctx, l, out);
}

int gpu_mig(struct gpu_sys *s, unsigned dev, struct gpu_migs *out)
{
	unsigned l;
	int i = locate(s, dev, &l);
	memset(out, 0, sizeof(*out));
	if (i < 0)
		return -1;
	if (!s->vend[i].v->mig)
		return 0;
	return s->vend[i].v->mig(s->vend[i].ctx, l, out);
}

const char *gpu_last_error(struct gpu_sys *s, char *buf, unsigned len)
{
	size_t used = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < s->n_vendors && used < len; i++) {
		const char *e =
		    s->vend[i].v->last_error ? s->vend[i].v->last_error(s->vend[i].ctx) : "";
		if (e && *e)
			used +=
			    (size_t)snprintf(buf + used, len - used, "%s%s", used ? "; " : "", e);
	}
	return buf;
}

void gpu_static_to_sample(const struct gpu_static *st, struct gpu_sample *out)
{
	if (st->valid & GPU_S_MAX_SM_CLOCK)
		gpu_sample_set(out, GPU_M_SM_CLOCK_MAX, (double)st->max_sm_clock_mhz);
	if (st->valid & GPU_S_MAX_MEM_CLOCK)
		gpu_sample_set(out, GPU_M_MEM_CLOCK_MAX, (double)st->max_mem_clock_mhz);
	if (st->valid & GPU_S_PCIE_MAX) {
		gpu_sample_set(out, GPU_M_PCIE_GEN_MAX, st->pcie_max_gen);
		gpu_sample_set(out, GPU_M_PCIE_WIDTH_MAX, st->pcie_max_width);
	}
	if (st->valid & GPU_S_SLOWDOWN_TEMP)
		gpu_sample_set(out, GPU_M_TEMP_SLOWDOWN, st->slowdown_temp_c);
	if (st->valid & GPU_S_SHUTDOWN_TEMP)
		gpu_sample_set(out, GPU_M_TEMP_SHUTDOWN, st->shutdown_temp_c);
	if (st->valid & GPU_S_MIG)
		gpu_sample_set(out, GPU_M_MIG_MODE, st->mig_mode);
}
