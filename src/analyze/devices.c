/*
 * devices.c - one analysis per device, and the run they make together
 * (analysis.h: analysis_result_run).
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

#include "analyze/analysis.h"
#include "diagnose/rules.h"
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

/* all's findings become the devices' (each marked with its device); the
 * primary is the device primary of the highest severity, then impact. */
static int merge_findings(struct analysis_result *r, char *err)
{
	struct analysis *a = &r->all;
	finding_list_release(&a->findings);
	a->primary = NULL;
	const struct analysis *best = NULL;
	for (size_t d = 0; d < r->n_dev; d++) {
		const struct analysis *x = &r->dev[d];
		for (size_t i = 0; i < x->findings.n; i++) {
			struct finding *f =
			    finding_add(&a->findings, x->findings.v[i].id,
					x->findings.v[i].severity, "%s", x->findings.v[i].title);
			if (!f)
				return error_set(err, "out of memory");
			*f = x->findings.v[i];
			f->device = (int)x->devices[0].id;
		}
		/* a problem on one rank outranks a healthy other: by severity, then
		 * impact (gpu_busy is info) */
		const struct finding *p = x->primary, *b = best ? best->primary : NULL;
		if (p && (!b || p->severity > b->severity ||
			  (p->severity == b->severity && p->impact_pct > b->impact_pct)))
			best = x;
	}
	finding_list_sort(&a->findings);
	for (size_t i = 0; best && i < a->findings.n; i++) {
		const struct finding *f = &a->findings.v[i];
		if (f->device == (int)best->devices[0].id && !strcmp(f->id, best->primary->id) &&
		    f->impact_pct == best->primary->impact_pct)
			a->primary = f;
	}
	return 0;
}

static int job_rules(struct analysis_result *r, char *err)
{
	struct rule_ctx c = {.a = &r->all, .res = r};
	for (size_t i = 0; i < gs_n_rules; i++)
		if (gs_rules[i].run && gs_rules[i].scope == RULE_JOB &&
		    gs_rules[i].run(&c, &gs_rules[i], err) < 0)
			return -1;
	return 0;
}

int analysis_result_run(struct analysis_result *r, const struct trace *t,
			const struct analysis_opts *o, char *err)
{
	memset(r, 0, sizeof(*r));
	r->comm.straggler = -1;
	r->device = o->device;
	if (o->device >= 0) {
		r->views = calloc(1, sizeof(*r->views));
		if (!r->views)
			return error_set(err, "out of memory");
		r->n_views = 1;
		if (an_device_view(r->views, t, (uint32_t)o->device, err) < 0 ||
		    analysis_run_opts(&r->all, r->views, o->range, o->whole, err) < 0) {
			analysis_result_release(r);
			return -1;
		}
		return 0;
	}
	if (analysis_run_opts(&r->all, t, o->range, o->whole, err) < 0)
		return -1;
	size_t nd = r->all.n_devices;
	if (nd > 1) {
		r->views = calloc(nd, sizeof(*r->views));
		r->dev = calloc(nd, sizeof(*r->dev));
		if (!r->views || !r->dev) {
			analysis_result_release(r);
			return error_set(err, "out of memory");
		}
		for (size_t d = 0; d < nd; d++) {
			uint32_t id = r->all.devices[d].id;
			char e[GS_ERR_LEN] = "";
			r->n_views = d + 1;
			if (an_device_view(&r->views[d], t, id, e) < 0 ||
			    analysis_run_opts(&r->dev[d], &r->views[d], o->range, o->whole, e) <
				0) {
				error_set(err, "device %u: %s", id, e);
				analysis_result_release(r);
				return -1;
			}
			r->n_dev = d + 1;
		}
		if (merge_findings(r, err) < 0) {
			analysis_result_release(r);
			return -1;
		}
	}
	/* across ranks, on what the run analysed (the warm-up cut, the range) */
	if (comm_analyze(&r->comm, r->all.t, err) < 0 || job_rules(r, err) < 0) {
		analysis_result_release(r);
		return -1;
	}
	return 0;
}

void analysis_result_release(struct analysis_result *r)
{
	for (size_t d = 0; d < r->n_dev; d++)
		analysis_release(&r->dev[d]);
	free(r->dev);
	comm_release(&r->comm);
	analysis_release(&r->all);
	for (size_t v = 0; v < r->n_views; v++)
		an_device_view_release(&r->views[v]);
	free(r->views);
	memset(r, 0, sizeof(*r));
}

const struct analysis *analysis_result_device(const struct analysis_result *r, uint32_t id)
{
	for (size_t d = 0; d < r->n_dev; d++)
		if (r->dev[d].n_devices && r->dev[d].devices[0].id == id)
			return &r->dev[d];
	return NULL;
}
