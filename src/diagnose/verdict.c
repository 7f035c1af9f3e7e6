/*
 * verdict.c - one-time host work and the primary's refinement (verdict.h).
 */
#include <stdlib.h>
#include <string.h>

#include "diagnose/verdict.h"
#include "analyze/analysis.h"
#include "diagnose/rules.h"
#include "diagnose/thresholds.h"
#include "util/sort.h"

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

/* The window's quiet stretches: runs of GPU gaps of TH_QUIET_GAP_NS or more,
 * merged while the GPU work between them stays within TH_QUIET_BUSY of the
 * run (a torch.save of GPU tensors copies them one by one: hundreds of
 * short copies and syncs inside one long wait; torch_ckpt_every, H100).
 * Fills len[] and at[] (start) of each; returns how many. */
static size_t quiet_stretches(const struct analysis *a, int64_t *len, int64_t *at)
{
	size_t m = 0;
	int have = 0;
	int64_t cs = 0, ce = 0, cb = 0, pend = 0;
	for (size_t i = 0; i + 1 < a->n_busy; i++) {
		if (have)
			pend += a->busy[i].end - a->busy[i].start;
		int64_t g0 = a->busy[i].end, g1 = a->busy[i + 1].start;
		if (g1 - g0 < TH_QUIET_GAP_NS)
			continue;
		if (have && (double)(cb + pend) <= TH_QUIET_BUSY * (double)(g1 - cs)) {
			ce = g1;
			cb += pend;
			pend = 0;
			continue;
		}
		if (have) {
			len[m] = ce - cs;
			at[m++] = cs;
		}
		have = 1;
		cs = g0;
		ce = g1;
		cb = pend = 0;
	}
	if (have) {
		len[m] = ce - cs;
		at[m++] = cs;
	}
	return m;
}

int an_periodic_stall(const struct analysis *a, struct an_periodic *p)
{
	memset(p, 0, sizeof(*p));
	/* compiling that keeps coming is recompilation's (hostidle.h) */
	if (a->n_busy < 2 * TH_PERIODIC_MIN || a->hostidle.recompile_ns > 0)
		return 0;
	size_t n = a->n_busy - 1;
	int64_t *len = malloc(n * sizeof(*len)), *at = malloc(n * sizeof(*at)), *tmp = NULL;
	int ok = 0;
	if (!len || !at)
		goto out;
	size_t nq = quiet_stretches(a, len, at);
	/* the candidates first: most windows have none, and then the gaps'
	 * median (a sort of every gap) is not needed */
	size_t k = 0, host = 0;
	for (size_t i = 0; i < nq; i++) {
		host += len[i] >= TH_HOST_WORK_NS;
		if (len[i] >= TH_PERIODIC_STALL_NS) {
			len[k] = len[i];
			at[k++] = at[i];
		}
	}
	if (k < TH_PERIODIC_MIN || !(tmp = malloc(n * sizeof(*tmp))))
		goto out;
	for (size_t i = 0; i < n; i++)
		tmp[i] = a->busy[i + 1].start - a->busy[i].end;
	double floor = TH_PERIODIC_RATIO * (double)sort_median_i64(tmp, n);
	size_t m = 0;
	int64_t total = 0;
	for (size_t i = 0; i < k; i++)
		if ((double)len[i] >= floor) {
			tmp[m] = len[i];
			at[m++] = at[i];
			total += len[i];
		}
	k = m;
	/* a few stalls among many steps, not every step's wait */
	if (k < TH_PERIODIC_MIN || 3 * k > n || an_pct(a, (double)total) < TH_MIN_IMPACT_PCT)
		goto out;
	p->median_ns = sort_median_i64(tmp, k);
	/* the pace: the intervals from one stall's start to the next */
	for (size_t i = 0; i + 1 < k; i++)
		tmp[i] = at[i + 1] - at[i];
	memcpy(len, tmp, (k - 1) * sizeof(*len));
	int64_t every = sort_median_i64(len, k - 1);
	size_t steady = 0;
	for (size_t i = 0; i + 1 < k; i++)
		if ((double)llabs(tmp[i] - every) <= TH_PERIODIC_JITTER * (double)every)
			steady++;
	if (3 * steady < 2 * (k - 1))
		goto out;
	/* every step's own wait (a loader, a read-back) is not periodic: the
	 * stalls are a third of the host's waits or fewer, or, where the
	 * host waits nowhere else, the GPU works between two of them
	 * TH_PERIODIC_SPACING times as long as one lasts */
	if (3 * k > host && (double)every < TH_PERIODIC_SPACING * (double)p->median_ns)
		goto out;
	p->stalls = k;
	p->every_ns = every;
	p->total_ns = total;
	ok = 1;
out:
	free(len);
	free(at);
	free(tmp);
	if (!ok)
		memset(p, 0, sizeof(*p));
	return ok;
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
