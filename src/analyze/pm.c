/*
 * pm.c - record --metrics pm's samples (CUPTI PM sampling, src/gpu/pm_metrics.h)
 * summed up beside GPM's: per metric the windows, their mean, and the mean
 * of the windows the GPU was busy for at least half of (busy time from the
 * timeline's union of GPU work, all devices). A window runs from the
 * previous sample of the same metric and device to its own; the first of a
 * series, or one after a gap of more than PM_MAX_WINDOW_NS, counts in the
 * mean but not as busy or idle.
 */
#include <math.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "gpu/pm_metrics.h"

#define PM_MAX_WINDOW_NS 100000000LL
#define PM_MAX_DEV 64

int an_pm_stats(struct analysis *a, char *err)
{
	(void)err;
	const struct trace *t = a->t;
	double sum[PM_COUNT] = {0}, sum_busy[PM_COUNT] = {0};
	int64_t prev[PM_COUNT][PM_MAX_DEV];
	for (int m = 0; m < PM_COUNT; m++) {
		memset(&a->pm[m], 0, sizeof(a->pm[m]));
		a->pm[m].name = pm_trace_name(m);
		for (int d = 0; d < PM_MAX_DEV; d++)
			prev[m][d] = INT64_MIN;
	}
	int64_t cache_id[PM_COUNT];
	for (int m = 0; m < PM_COUNT; m++)
		cache_id[m] = -1;
	for (size_t i = 0; i < t->n_samples; i++) {
		const struct trace_sample *s = &t->samples[i];
		int m = -1;
		for (int k = 0; k < PM_COUNT && m < 0; k++)
			if (cache_id[k] == (int64_t)s->metric_id)
				m = k;
		if (m < 0) {
			const char *nm = trace_str(t, s->metric_id);
			if (strncmp(nm, "pm_", 3) != 0 || (m = pm_metric_by_trace_name(nm)) < 0)
				continue;
			cache_id[m] = s->metric_id;
		}
		if (!isfinite(s->value) || s->ts_ns < a->start_ns || s->ts_ns > a->end_ns)
			continue;
		struct an_metric *x = &a->pm[m];
		x->valid = 1;
		x->n++;
		sum[m] += s->value;
		if (s->device >= PM_MAX_DEV)
			continue;
		int64_t from = prev[m][s->device], to = s->ts_ns;
		prev[m][s->device] = to;
		if (from == INT64_MIN || to <= from || to - from > PM_MAX_WINDOW_NS)
			continue;
		if (2 * an_busy_between(a, from, to) >= to - from) {
			x->n_busy++;
			sum_busy[m] += s->value;
		}
	}
	for (int m = 0; m < PM_COUNT; m++) {
		struct an_metric *x = &a->pm[m];
		x->mean = x->n ? sum[m] / (double)x->n : 0;
		x->mean_busy = x->n_busy ? sum_busy[m] / (double)x->n_busy : 0;
	}
	return 0;
}
