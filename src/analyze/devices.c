/*
 * devices.c - a device's part of a trace, the view each device's analysis
 * reads (diagnose/diagnose.c: analysis_result_run runs them and merges
 * their findings).
 *
 * A device's part of a trace is what trace_keep_device keeps, copied into
 * a view so the trace stays as it was: the device's kernels, copies,
 * memsets, samples and allocations, the host side (API calls, syncs,
 * ranges, counters, process rows) of the processes that put work on it,
 * and its properties. Each device is analysed on its own (its warm-up, its
 * idle gaps, its SM count); the run's own analysis (`all`) keeps the
 * devices together for the tables, and its findings are the devices'
 * findings, each marked with its device, so a starving rank is not hidden
 * by a busy one in the union. Job rules (rules.h: stragglers, exposed
 * communication) read the per-device results.
 *
 * Invariants:
 *  1. A view shares the trace's strings and meta (never interns, never
 *     frees them); its event arrays are its own.
 *  2. With one device, or with opts.device, there is no per-device list:
 *     `all` is that device's analysis, findings unmarked (device -1).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "util/error.h"

static int has_id(const uint32_t *v, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == id)
			return 1;
	return 0;
}

static int add_id(uint32_t **v, size_t *n, size_t *cap, uint32_t id)
{
	if (has_id(*v, *n, id))
		return 0;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		uint32_t *p = realloc(*v, nc * sizeof(*p));
		if (!p)
			return -1;
		*v = p;
		*cap = nc;
	}
	(*v)[(*n)++] = id;
	return 0;
}

/* v->name: the elements x of t->name for which KEEP holds, in order. */
#define COPY_IF(v, t, name, KEEP)                                                                  \
	do {                                                                                       \
		size_t n_ = 0;                                                                     \
		(v)->name = malloc(((t)->n_##name ? (t)->n_##name : 1) * sizeof(*(t)->name));      \
		if (!(v)->name)                                                                    \
			goto oom;                                                                  \
		for (size_t i_ = 0; i_ < (t)->n_##name; i_++) {                                    \
			const __typeof__((t)->name[0]) *x = &(t)->name[i_];                        \
			if (KEEP)                                                                  \
				(v)->name[n_++] = *x;                                              \
		}                                                                                  \
		(v)->n_##name = (v)->cap_##name = n_;                                              \
	} while (0)

void an_device_view_release(struct trace *v)
{
	free(v->devices);
	free(v->kernels);
	free(v->copies);
	free(v->memsets);
	free(v->apis);
	free(v->syncs);
	free(v->ranges);
	free(v->allocs);
	free(v->samples);
	free(v->counters);
	free(v->processes);
	memset(v, 0, sizeof(*v));
}

/* The device ids with work, as the error names them. */
static void work_list(const struct trace *t, char *list, size_t n)
{
	uint32_t seen[16];
	size_t ns = 0, at = 0;
	list[0] = 0;
	for (size_t i = 0; i < t->n_kernels && ns < 16 && at < n; i++) {
		uint32_t d = t->kernels[i].device;
		if (!has_id(seen, ns, d)) {
			seen[ns++] = d;
			at += (size_t)snprintf(list + at, n - at, "%s%u", ns > 1 ? ", " : "", d);
		}
	}
	if (!ns)
		snprintf(list, n, "none");
}

int an_device_view(struct trace *v, const struct trace *t, uint32_t device, char *err)
{
	uint32_t *pids = NULL;
	size_t n = 0, cap = 0;
	int oom = 0;
	memset(v, 0, sizeof(*v));
	for (size_t i = 0; i < t->n_kernels; i++)
		if (t->kernels[i].device == device)
			oom |= add_id(&pids, &n, &cap, t->kernels[i].pid);
	for (size_t i = 0; i < t->n_copies; i++)
		if (t->copies[i].device == device)
			oom |= add_id(&pids, &n, &cap, t->copies[i].pid);
	for (size_t i = 0; i < t->n_memsets; i++)
		if (t->memsets[i].device == device)
			oom |= add_id(&pids, &n, &cap, t->memsets[i].pid);
	if (oom) {
		free(pids);
		return error_set(err, "out of memory");
	}
	if (!n) {
		char list[256];
		work_list(t, list, sizeof(list));
		return error_set(err, "no GPU work on device %u (devices with kernels: %s)", device,
				 list);
	}
	v->strings = t->strings;
	v->n_strings = t->n_strings;
	v->meta = t->meta;
	v->n_meta = t->n_meta;
	v->source = t->source;
	/* shared, like the strings: record's capture windows (not freed) */
	v->capture_windows = t->capture_windows;
	v->n_capture_windows = t->n_capture_windows;
	COPY_IF(v, t, kernels, x->device == device);
	COPY_IF(v, t, copies, x->device == device);
	COPY_IF(v, t, memsets, x->device == device);
	COPY_IF(v, t, samples, x->device == device);
	COPY_IF(v, t, allocs, x->device == device);
	/* a sync waits on its process's work; the host side of the processes
	 * that put work on the device */
	COPY_IF(v, t, syncs, has_id(pids, n, x->pid));
	COPY_IF(v, t, apis, has_id(pids, n, x->pid));
	COPY_IF(v, t, ranges, has_id(pids, n, x->pid));
	COPY_IF(v, t, counters, has_id(pids, n, x->pid));
	COPY_IF(v, t, processes, has_id(pids, n, x->pid));
	COPY_IF(v, t, devices, x->id == device);
	if (!v->n_devices) { /* no properties of it: keep what there is */
		free(v->devices);
		v->devices = NULL;
		COPY_IF(v, t, devices, 1);
	}
	free(pids);
	return 0;
oom:
	free(pids);
	an_device_view_release(v);
	return error_set(err, "out of memory");
}
