/*
 * diagnose.c - running an analysis (diagnose.h): the window (analyze/'s
 * an_window), the engine's passes, then the diagnosis passes (the rules'
 * findings, the warnings), all through the pass runner (an_run_passes);
 * per device and for the run as a whole.
 *
 * One analysis per device, and the run they make together: each device is
 * analysed on its own part of the trace (analyze/devices.c: its warm-up,
 * its idle gaps, its SM count); the run's own analysis (`all`) keeps the
 * devices together for the tables, and its findings are the devices'
 * findings, each marked with its device, so a starving rank is not hidden
 * by a busy one in the union. Job rules (rules.h: stragglers, exposed
 * communication) read the per-device results.
 *
 * Invariants:
 *  1. With one device, or with opts.device, there is no per-device list:
 *     `all` is that device's analysis, findings unmarked (device -1).
 *  2. On error an analysis is released (zeroed) before returning.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "diagnose/diagnose.h"
#include "diagnose/rules_int.h"
#include "util/cpus.h"
#include "util/error.h"

/* The devices (ranks) one run analyses each on its own: every one costs a
 * view and an analysis (~200 KB), so a hostile 0.5 MB trace of 4,000
 * one-kernel devices took 836 MB (probe H5). The largest jobs gpuscope's
 * rank reports are meant for are well under it. */
#define AN_MAX_DEVICES 1024

/* The diagnosis after the engine: the rules read every part the engine
 * made, the warnings the findings too. */
const struct an_pass diagnose_passes[] = {
    {"rules", an_rules, AF_ALL & ~AF_WARNINGS, AF_FINDINGS},
    {"unprofiled", an_unprofiled, AF_ALL & ~AF_WARNINGS, AF_FINDINGS},
    {"warnings", an_warnings, AF_ALL & ~AF_WARNINGS, AF_WARNINGS},
};
const size_t n_diagnose_passes = sizeof(diagnose_passes) / sizeof(diagnose_passes[0]);

/* Runs the passes on t (a sorted trace or a slice of one). */
static int run(struct analysis *a, const struct trace *t, char *err)
{
	a->t = t;
	a->source = trace_source_name(t->source);
	finding_list_init(&a->findings);
	a->findings.msgids = 1; /* the rules' findings are shown in the reader's language */
	if (an_run_passes(a, an_engine_passes, an_n_engine_passes, err) < 0 ||
	    an_run_passes(a, diagnose_passes, n_diagnose_passes, err) < 0) {
		analysis_release(a);
		return -1;
	}
	return 0;
}

int analysis_run(struct analysis *a, const struct trace *t, char *err)
{
	return analysis_run_opts(a, t, NULL, 1, err);
}

int analysis_run_range(struct analysis *a, const struct trace *t, const char *range, char *err)
{
	return analysis_run_opts(a, t, range, 0, err);
}

/* ahead: the profiler estimate may start beside the passes (not where
 * devices' analyses already share the CPUs) */
static int run_opts(struct analysis *a, const struct trace *t, const char *range, int whole,
		    int nested, int ahead, const int *cancel, char *err)
{
	memset(a, 0, sizeof(*a));
	a->unprof.nested = nested;
	a->unprof.cancel = cancel;
	const struct trace *v = an_window(a, t, range, whole, err);
	if (!v) {
		analysis_release(a);
		return -1;
	}
	if (ahead)
		an_unprofiled_ahead(a, t);
	return run(a, v, err);
}

int analysis_run_opts(struct analysis *a, const struct trace *t, const char *range, int whole,
		      char *err)
{
	return run_opts(a, t, range, whole, 0, 1, NULL, err);
}

int an_run_estimate(struct analysis *a, const struct trace *t, const char *range, int whole,
		    const int *cancel, char *err)
{
	return run_opts(a, t, range, whole, 1, 0, cancel, err);
}

void analysis_release(struct analysis *a)
{
	an_unprofiled_ahead_release(a);
	an_engine_release(a);
	free(a->warnings);
	finding_list_release(&a->findings);
	memset(a, 0, sizeof(*a));
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

int analysis_result_job_rules(struct analysis_result *r, char *err)
{
	struct rule_ctx c = {.a = &r->all, .res = r};
	/* the primary by index: a finding added may move the list */
	struct analysis *a = &r->all;
	long p = a->primary ? (long)(a->primary - a->findings.v) : -1;
	int rc = 0;
	for (size_t i = 0; i < gs_n_rules && rc == 0; i++)
		if (gs_rules[i].run && gs_rules[i].scope == RULE_JOB &&
		    gs_rules[i].run(&c, &gs_rules[i], err) < 0)
			rc = -1;
	a->primary = p >= 0 ? &a->findings.v[p] : NULL;
	return rc;
}

/* The devices' analyses side by side (issue 38): each is its own view of
 * t (read only) and its own struct analysis, so they share nothing but t;
 * workers take the next device until none is left, up to one per usable
 * CPU when the trace is big. Results stay in device order, so the output
 * is the one a single thread makes (test_threads). */
struct dev_job {
	struct analysis_result *r;
	const struct trace *t;
	const struct analysis_opts *o;
	size_t n;
	size_t next; /* atomic */
	int *rc;
	char (*err)[GS_ERR_LEN];
};

static void *dev_thread(void *arg)
{
	struct dev_job *j = arg;
	size_t d;
	while ((d = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->n) {
		struct analysis_result *r = j->r;
		uint32_t id = r->all.devices[d].id;
		char e[GS_ERR_LEN] = "";
		j->rc[d] = -1;
		if (an_device_view(&r->views[d], j->t, id, e) < 0) {
			error_set(j->err[d], "device %u: %s", id, e);
			continue;
		}
		if (run_opts(&r->dev[d], &r->views[d], j->o->range, j->o->whole, 0, 0, NULL, e) <
		    0) {
			error_set(j->err[d], "device %u: %s", id, e);
			continue;
		}
		j->rc[d] = 2;
	}
	return NULL;
}

static int run_devices(struct analysis_result *r, const struct trace *t,
		       const struct analysis_opts *o, size_t nd, char *err)
{
	struct dev_job j = {r, t, o, nd, 0, calloc(nd, sizeof(int)), calloc(nd, GS_ERR_LEN)};
	if (!j.rc || !j.err) {
		free(j.rc);
		free(j.err);
		return error_set(err, "out of memory");
	}
	int cpus = t->n_kernels + t->n_apis > 65536 ? gs_cpu_count() : 1;
	pthread_t th[64];
	size_t more = 0;
	while (more + 1 < nd && (int)more + 1 < cpus && more < 64 &&
	       pthread_create(&th[more], NULL, dev_thread, &j) == 0)
		more++;
	dev_thread(&j);
	for (size_t k = 0; k < more; k++)
		pthread_join(th[k], NULL);
	/* views: every one, made or zeroed (an_device_view clears it first);
	 * analyses up to the first failure, the error of the first in device
	 * order (analysis_result_release frees n_views and n_dev of them) */
	int rc = 0;
	r->n_views = nd;
	r->n_dev = 0;
	for (size_t d = 0; d < nd; d++) {
		if (j.rc[d] == 2 && rc == 0)
			r->n_dev = d + 1;
		if (j.rc[d] < 2 && rc == 0)
			rc = error_set(err, "%s", j.err[d]);
	}
	for (size_t d = r->n_dev; d < nd; d++) /* analyses after a failure */
		if (j.rc[d] == 2)
			analysis_release(&r->dev[d]);
	free(j.rc);
	free(j.err);
	return rc;
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
	if (nd > AN_MAX_DEVICES) {
		error_set(err,
			  "%zu devices: a run is analysed per device, at most %d of them (each "
			  "takes about 200 KB): report one with --device N, or fewer rank files",
			  nd, AN_MAX_DEVICES);
		analysis_result_release(r);
		return -1;
	}
	if (nd > 1) {
		r->views = calloc(nd, sizeof(*r->views));
		r->dev = calloc(nd, sizeof(*r->dev));
		if (!r->views || !r->dev) {
			analysis_result_release(r);
			return error_set(err, "out of memory");
		}
		if (run_devices(r, t, o, nd, err) < 0) {
			analysis_result_release(r);
			return -1;
		}
		if (merge_findings(r, err) < 0) {
			analysis_result_release(r);
			return -1;
		}
	}
	/* across ranks, on what the run analysed (the warm-up cut, the range) */
	if (comm_analyze(&r->comm, r->all.t, err) < 0 || analysis_result_job_rules(r, err) < 0) {
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
