/*
 * unprofiled.c - one verdict whichever source (issue #36 item 8): a
 * torch.profiler trace whose primary is host-side is analysed again as its
 * program would have run without the profiler's own host cost
 * (analyze/unprofile.h: TH_PROFILER_EVENT_NS a record), and the primary is
 * the estimate's. Where the two differ, the estimate's primary finding
 * (its figures, its title marked as estimated) replaces the trace's finding
 * of that id or joins the list; every host-side finding carries the
 * estimate's impact of its id (without_profiler_pct), and the warning
 * (warnings.c) says what was estimated. The trace's own figures (summary,
 * tables, the other findings) stay as traced.
 *
 * Why: the same program recorded by gpuscope and profiled gave different
 * primaries (hf_llama_train: gpu_busy vs launch_overhead), the profile
 * host-bound by the profiler's own cost, ~25 us a launch there.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/unprofile.h"
#include "diagnose/rules_int.h"
#include "util/cpus.h"
#include "util/error.h"
#include "util/i18n.h"
#include "util/timing.h"

/* a trace's estimate is made ahead, beside the report's passes, from
 * this many kernels and calls on (smaller ones take milliseconds) */
#define AHEAD_MIN_EVENTS 65536

/* the estimate's title: the title within this message */
#define ESTIMATED N_("%s (estimated without torch.profiler's own cost)")

/* The estimate's primary into a's findings (replacing a finding of its id,
 * or added); the new primary's index, -1 when out of memory. */
static long take_primary(struct analysis *a, const struct finding *p)
{
	size_t i;
	for (i = 0; i < a->findings.n; i++)
		if (!strcmp(a->findings.v[i].id, p->id))
			break;
	if (i == a->findings.n && !finding_add(&a->findings, p->id, p->severity, "%s", p->title))
		return -1;
	struct finding *f = &a->findings.v[i];
	*f = *p;
	char title[sizeof(f->title)];
	if (snprintf(title, sizeof(title), ESTIMATED, p->title) < 0) /* cut at the title's size */
		title[0] = 0;
	snprintf(f->title, sizeof(f->title), "%s", title);
	f->title_wrap = ESTIMATED; /* shown around the title in the reader's words */
	return (long)i;
}

/* The estimate made ahead (an_unprofiled_ahead): on its own thread from
 * the window on, beside the report's passes, its view and then its own
 * analysis. It reads the trace alone (never the analysis, which the
 * passes are writing); an_unprofiled takes the estimate, or cancels it
 * when the primary is not host-side: the view's sweep stops within 65536
 * items, the estimate's passes before the next pass starts (an analysis
 * pass takes 0.2 s at most on a 1 GB trace). Made after the report's
 * passes instead, the estimate's passes were the analysis' serial tail:
 * more CPUs did not shorten it (issue 38). */
struct an_unprof_ahead {
	pthread_t th;
	const struct trace *w; /* the trace the view is made of */
	char range[128];       /* the window: an_run_estimate's arguments */
	int whole;
	int cancel; /* atomic: 1 once the estimate is not wanted */
	int joined;
	int rc; /* 0 made, 1 cancelled or nothing to estimate, -1 with err */
	char err[GS_ERR_LEN];
	struct trace v; /* the view, when rc is 0 (until taken) */
	struct an_unprofile_stats st;
	struct analysis *e; /* its estimate, when rc is 0 and it was made ahead too */
};

/* The estimate of view v (made: taken, released here unless *e): *e, NULL
 * when it has no events; -1 with err (cancelled: "cancelled") */
static int estimate_of(struct trace *v, const struct an_unprofile_stats *st, struct analysis **e,
		       const char *range, int whole, const int *cancel, char *err)
{
	*e = NULL;
	if (!st->events) {
		an_unprofile_view_release(v);
		return 0;
	}
	struct analysis *x = calloc(1, sizeof(*x));
	if (!x) {
		an_unprofile_view_release(v);
		return error_set(err, "out of memory");
	}
	if (an_run_estimate(x, v, range, whole, cancel, err) < 0) {
		free(x);
		an_unprofile_view_release(v);
		return -1;
	}
	*e = x;
	return 0;
}

/* v, st and e (NULL when no events); -1 with err (all released) */
static int estimate(struct trace *v, struct an_unprofile_stats *st, struct analysis **e,
		    const struct trace *w, const char *range, int whole, char *err)
{
	*e = NULL;
	if (an_unprofile_view(v, w, TH_PROFILER_EVENT_NS, st, err) < 0)
		return -1;
	return estimate_of(v, st, e, range, whole, NULL, err);
}

static void *ahead_thread(void *arg)
{
	struct an_unprof_ahead *h = arg;
	struct timing_mark t0, t1;
	timing_now(&t0, 1);
	h->rc =
	    an_unprofile_view_until(&h->v, h->w, TH_PROFILER_EVENT_NS, &h->cancel, &h->st, h->err);
	if (timing_passes()) { /* the view's sweep, as a pass line of its own */
		static const char *const name[] = {"estimate_view"};
		timing_now(&t1, 1);
		const double span[1][3] = {{0, t1.wall - t0.wall, t1.cpu - t0.cpu}};
		timing_pass_line(name, span, 1);
	}
	if (h->rc != 0)
		return NULL;
	/* then its analysis; the view is released when that fails or has
	 * nothing to estimate */
	if (estimate_of(&h->v, &h->st, &h->e, h->range[0] ? h->range : NULL, h->whole, &h->cancel,
			h->err) < 0)
		h->rc = __atomic_load_n(&h->cancel, __ATOMIC_RELAXED) ? 1 : -1;
	else if (!h->e)
		h->rc = 1;
	return NULL;
}

/* the window's estimate: of the whole trace, over the same range, the
 * steady state when one was cut, else all of it */
static const struct trace *est_trace(const struct analysis *a, const struct trace *t)
{
	return a->whole ? a->whole : t;
}

static int est_whole(const struct analysis *a)
{
	return a->range[0] || a->whole ? 0 : 1;
}

void an_unprofiled_ahead(struct analysis *a, const struct trace *t)
{
	if (a->unprof.nested || !(trace_source_caps(t->source) & TRACE_CAP_PROFILER_COST) ||
	    t->n_kernels + t->n_apis <= AHEAD_MIN_EVENTS || gs_cpu_count() < 2)
		return;
	struct an_unprof_ahead *h = calloc(1, sizeof(*h));
	if (!h)
		return; /* made when needed, as without a second CPU */
	h->w = est_trace(a, t);
	snprintf(h->range, sizeof(h->range), "%s", a->range);
	h->whole = est_whole(a);
	if (pthread_create(&h->th, NULL, ahead_thread, h) != 0) {
		free(h);
		return;
	}
	a->unprof.ahead = h;
}

/* joins the view made ahead; released unless kept */
static void ahead_join(struct an_unprof *u, int keep)
{
	struct an_unprof_ahead *h = u->ahead;
	if (!keep)
		__atomic_store_n(&h->cancel, 1, __ATOMIC_RELAXED);
	if (!h->joined)
		pthread_join(h->th, NULL);
	h->joined = 1;
	if (keep || h->rc != 0)
		return;
	if (h->e) {
		analysis_release(h->e);
		free(h->e);
		h->e = NULL;
	}
	an_unprofile_view_release(&h->v);
	h->rc = 1; /* nothing left */
}

void an_unprofiled_ahead_release(struct analysis *a)
{
	struct an_unprof_ahead *h = a->unprof.ahead;
	if (!h)
		return;
	ahead_join(&a->unprof, 0);
	free(h);
	a->unprof.ahead = NULL;
}

/* a's verdict against the estimate e (of st.events records) */
static int compare(struct analysis *a, const struct analysis *e,
		   const struct an_unprofile_stats *st, char *err)
{
	struct an_unprof *u = &a->unprof;
	int rc = 0;
	u->ran = 1;
	u->events = st->events;
	u->per_event_ns = TH_PROFILER_EVENT_NS;
	u->removed_ns = st->removed_ns;
	u->busy_pct = an_pct(e, (double)e->busy_ns);
	u->traced_busy_pct = an_pct(a, (double)a->busy_ns);
	snprintf(u->traced_primary, sizeof(u->traced_primary), "%s", a->primary->id);
	u->traced_impact_pct = a->primary->impact_pct;
	const struct finding *same = finding_find(&e->findings, a->primary->id);
	u->estimated_impact_pct = same ? same->impact_pct : 0;
	/* the host-side findings' impacts without the profiler */
	for (size_t i = 0; i < a->findings.n; i++) {
		struct finding *f = &a->findings.v[i];
		if (!rule_host_side(f->id))
			continue;
		const struct finding *x = finding_find(&e->findings, f->id);
		finding_num(f, "without_profiler_pct", x ? x->impact_pct : 0);
	}
	if (e->primary && strcmp(e->primary->id, a->primary->id) != 0) {
		char id[sizeof(e->primary->id)];
		snprintf(id, sizeof(id), "%s", e->primary->id);
		if (take_primary(a, e->primary) < 0) {
			rc = error_set(err, "out of memory");
		} else {
			finding_list_sort(&a->findings);
			a->primary = finding_find(&a->findings, id);
			u->changed = 1;
		}
	}
	return rc;
}

int an_unprofiled(struct analysis *a, char *err)
{
	struct an_unprof *u = &a->unprof;
	struct an_unprof_ahead *h = u->ahead;
	if (u->nested || !(trace_source_caps(a->t->source) & TRACE_CAP_PROFILER_COST) ||
	    !a->primary || !rule_host_side(a->primary->id)) {
		an_unprofiled_ahead_release(a);
		return 0;
	}
	struct trace vv, *v = &vv;
	struct an_unprofile_stats st0, *st = &st0;
	struct analysis *e;
	int rc;
	if (h) {
		ahead_join(u, 1);
		v = &h->v, st = &h->st, e = h->e, rc = h->rc;
		h->e = NULL;
		if (rc < 0)
			error_set(err, "%s", h->err);
		else if (rc == 1)
			rc = 0; /* nothing to estimate (only ahead_join cancels: not so) */
		h->rc = 1;	/* the view and the estimate, taken */
	} else {
		rc = estimate(v, st, &e, est_trace(a, a->t), a->range[0] ? a->range : NULL,
			      est_whole(a), err);
	}
	if (rc == 0 && e) {
		rc = compare(a, e, st, err);
		analysis_release(e);
		free(e);
		an_unprofile_view_release(v);
	}
	an_unprofiled_ahead_release(a);
	return rc;
}
