/*
 * job.c - the traces of one job as one trace: `report FILE...` and
 * `report DIR` (the ranks of a distributed run, one file each) load them in
 * parallel (trace_load_many) and merge them (trace/merge.h); one plain file
 * is analysis_load's.
 */
#include <inttypes.h>
#include <stdint.h>
#include <sys/stat.h>

#include "analyze/analysis_int.h"
#include "trace/merge.h"
#include "trace/trace_db.h"
#include "util/error.h"
#include "import/load.h"

int analysis_is_job(const char *const *paths, size_t n)
{
	struct stat st;
	return n > 1 || (n == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode));
}

/* The time a trace covers: its first to last GPU op, API call or range. */
static int trace_span(const struct trace *t, int64_t *lo, int64_t *hi)
{
	*lo = INT64_MAX;
	*hi = INT64_MIN;
#define SPAN(arr)                                                                                  \
	for (size_t i = 0; i < t->n_##arr; i++) {                                                  \
		if (t->arr[i].start_ns < *lo)                                                      \
			*lo = t->arr[i].start_ns;                                                  \
		if (t->arr[i].end_ns > *hi)                                                        \
			*hi = t->arr[i].end_ns;                                                    \
	}
	SPAN(kernels)
	SPAN(copies)
	SPAN(memsets)
	SPAN(apis)
#undef SPAN
	for (size_t i = 0; i < t->n_ranges; i++) {
		struct trace_span r = trace_range_span(t, i);
		*lo = r.start_ns < *lo ? r.start_ns : *lo;
		*hi = r.end_ns > *hi ? r.end_ns : *hi;
	}
	return *lo <= *hi;
}

/* The process that made most of a trace's API calls (of its ranges when it
 * has none); UINT32_MAX when neither. Of the first 64 pids seen. */
static uint32_t main_pid(const struct trace *t)
{
	uint32_t pid[64], n = 0, best = UINT32_MAX;
	uint64_t cnt[64] = {0}, top = 0;
	int apis = t->n_apis > 0;
	size_t m = apis ? t->n_apis : t->n_ranges;
	for (size_t i = 0; i < m; i++) {
		uint32_t p = apis ? t->apis[i].pid : trace_range_row(t, i)->pid, j = 0;
		while (j < n && pid[j] != p)
			j++;
		if (j == n) {
			if (n == 64)
				continue;
			pid[n++] = p;
		}
		if (++cnt[j] > top) {
			top = cnt[j];
			best = p;
		}
	}
	return best;
}

/* The ranks of one job run at the same time. Traces that do not overlap
 * at all are not that: successive profiles of one process (torch.profiler's
 * tensorboard_trace_handler writes a file per profiling cycle into one
 * directory) or two runs, which merged would read as devices idling
 * between them. -1 with err naming the first such pair. */
static int one_job(const struct trace_set *set, char *err)
{
	int64_t lo[2], hi[2];
	for (size_t i = 0; i < set->n; i++) {
		if (!trace_span(&set->traces[i], &lo[0], &hi[0]))
			continue;
		for (size_t j = i + 1; j < set->n; j++) {
			if (!trace_span(&set->traces[j], &lo[1], &hi[1]) ||
			    (lo[1] <= hi[0] && lo[0] <= hi[1]))
				continue;
			int later = lo[1] > hi[0]; /* j after i */
			const char *a = set->paths[later ? i : j], *b = set->paths[later ? j : i];
			double gap = (double)(later ? lo[1] - hi[0] : lo[0] - hi[1]) / 1e9;
			uint32_t p = main_pid(&set->traces[i]);
			if (p != UINT32_MAX && p == main_pid(&set->traces[j]))
				return error_set(
				    err,
				    "'%s' and '%s' are two profiles of one process (pid "
				    "%" PRIu32 ", the second %.3f s after the first), not "
				    "ranks of one job: report each, or compare them with "
				    "gpuscope diff",
				    a, b, p, gap);
			return error_set(
			    err,
			    "'%s' and '%s' do not overlap in time (the second starts "
			    "%.3f s after the first ends), so they are not ranks of one "
			    "job: report each, or compare them with gpuscope diff",
			    a, b, gap);
		}
	}
	return 0;
}

int analysis_load_job(struct trace *t, const char *const *paths, size_t n, int jobs, char *err)
{
	if (!analysis_is_job(paths, n))
		return analysis_load(t, paths[0], err);
	struct trace_set set;
	if (trace_load_many(&set, paths, n, jobs, err) < 0) {
		trace_init(t); /* the caller releases it */
		return -1;
	}
	if (one_job(&set, err) < 0) {
		trace_set_release(&set);
		trace_init(t);
		return -1;
	}
	int rc = trace_merge_set(t, &set, err);
	trace_set_release(&set);
	if (rc == 0)
		analysis_sort(t);
	return rc;
}
