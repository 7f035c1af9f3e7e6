/*
 * verdict.c - one-time host work and the primary's refinement (verdict.h).
 */
#include <string.h>

#include "diagnose/verdict.h"
#include "analyze/analysis.h"
#include "diagnose/rules.h"
#include "diagnose/thresholds.h"

int an_one_time_host(const struct analysis *a, int64_t *stretch_ns, double *share)
{
	int64_t longest = 0, at = a->start_ns;
	/* compiling that keeps coming left the host idle (hostidle.h): the
	 * long gaps are compilations, not work done once */
	if (a->hostidle.recompile_ns > 0) {
		if (stretch_ns)
			*stretch_ns = 0;
		if (share)
			*share = 0;
		return 0;
	}
	/* the gaps between busy intervals, as hostside.c walks them (the
	 * trailing one after the last GPU work is outside the window) */
	for (size_t i = 0; i < a->n_busy; i++) {
		int64_t g = a->busy[i].start - at;
		if (g >= TH_HOST_WORK_NS && g > longest)
			longest = g;
		if (a->busy[i].end > at)
			at = a->busy[i].end;
	}
	int64_t host = a->idle.host_ns;
	double s = host > 0 ? (double)longest / (double)host : 0;
	s = s > 1 ? 1 : s;
	if (stretch_ns)
		*stretch_ns = longest;
	if (share)
		*share = s;
	/* the stretch alone explains a reportable share (a 4 ms stretch of a
	 * profiled step is no setup), and without it the host idle would be
	 * under the reporting floor: a
	 * loop whose first batch waits longest still waits every step (a
	 * DataLoader's workers starting, then 7 of 10 stretches ending in a
	 * batch's copy: tv_resnet_loader, H200) */
	return host > 0 && longest > 0 && s >= TH_ONE_TIME_SHARE &&
	       an_pct(a, (double)(s * (double)host)) >= TH_MIN_IMPACT_PCT &&
	       an_pct(a, (double)host * (1 - s)) < TH_MIN_IMPACT_PCT;
}

/* host-side findings whose fix is feeding the GPU per step */
static int per_step_host(const struct analysis *a, const struct finding *f)
{
	if (!rule_host_side(f->id))
		return 0;
	int hostwork = !strcmp(f->id, "host_overhead") || !strcmp(f->id, "input_pipeline");
	return !(hostwork && an_one_time_host(a, NULL, NULL));
}

void an_refine_primary(struct analysis *a)
{
	/* docs/method.md section 1: Nsight Systems before Nsight Compute: while the GPU idles
	 * a fifth of the run or more, feeding it comes first */
	if (an_pct(a, (double)a->busy_ns) >= TH_GPU_BUSY_PCT)
		return;
	const struct finding *first = a->primary;
	if (!first || rule_host_side(first->id))
		return;
	for (size_t i = 0; i < a->findings.n; i++) {
		const struct finding *f = &a->findings.v[i];
		if (f->impact_pct < TH_WARN_IMPACT_PCT || !per_step_host(a, f))
			continue;
		/* a kernel launched with 2 blocks for 68% of the run is not
		 * second to 25% of host setup */
		if (first->impact_pct >= TH_CRIT_IMPACT_PCT &&
		    first->impact_pct >= TH_REFINE_RATIO * f->impact_pct)
			return;
		a->primary = f;
		return;
	}
}

int64_t an_gpu_run_ns(const struct analysis *a)
{
	const struct trace *w = a->whole ? a->whole : a->t;
	int64_t first = INT64_MAX, last = INT64_MIN;
#define SPAN(arr, cnt)                                                                             \
	for (size_t i = 0; i < (cnt); i++) {                                                       \
		if ((arr)[i].start_ns < first)                                                     \
			first = (arr)[i].start_ns;                                                 \
		if ((arr)[i].end_ns > last)                                                        \
			last = (arr)[i].end_ns;                                                    \
	}
	SPAN(w->kernels, w->n_kernels)
	SPAN(w->copies, w->n_copies)
	SPAN(w->memsets, w->n_memsets)
#undef SPAN
	return last > first ? last - first : a->span_ns;
}
