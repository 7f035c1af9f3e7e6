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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/unprofile.h"
#include "diagnose/rules_int.h"
#include "util/error.h"
#include "util/i18n.h"

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

int an_unprofiled(struct analysis *a, char *err)
{
	struct an_unprof *u = &a->unprof;
	if (u->nested || !(trace_source_caps(a->t->source) & TRACE_CAP_PROFILER_COST) ||
	    !a->primary || !rule_host_side(a->primary->id))
		return 0;
	const struct trace *w = a->whole ? a->whole : a->t;
	struct trace v;
	struct an_unprofile_stats st;
	if (an_unprofile_view(&v, w, TH_PROFILER_EVENT_NS, &st, err) < 0)
		return -1;
	if (!st.events) {
		an_unprofile_view_release(&v);
		return 0;
	}
	struct analysis *e = calloc(1, sizeof(*e));
	if (!e) {
		an_unprofile_view_release(&v);
		return error_set(err, "out of memory");
	}
	/* the same window: the range, the steady state when one was cut,
	 * else all of it */
	if (an_run_estimate(e, &v, a->range[0] ? a->range : NULL, a->range[0] || a->whole ? 0 : 1,
			    err) < 0) {
		free(e);
		an_unprofile_view_release(&v);
		return -1;
	}
	int rc = 0;
	u->ran = 1;
	u->events = st.events;
	u->per_event_ns = TH_PROFILER_EVENT_NS;
	u->removed_ns = st.removed_ns;
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
	analysis_release(e);
	free(e);
	an_unprofile_view_release(&v);
	return rc;
}
