/*
 * replay.c - takes kernel-replay time out of a recording made with
 * `record --metrics kernels` (trace.h: trace_remove_replay).
 *
 * A profiled launch is replayed once per counter pass inside its launch
 * call (src/inject/counters.h): on the H200 a 134 us kernel's
 * cudaLaunchKernel lasted 257 ms, and CUPTI gives the kernel's activity
 * record no timestamps. Left as it is, the timeline of such a recording
 * is the profiler's, not the program's: every replay reads as a quarter
 * second of GPU idle inside a launch call. So each profiled launch's call
 * (widened to the profiler's own work around it: set-up before the call,
 * decoding after it, which the injected library timestamps) is shrunk to
 * the kernel's own duration (its gpu__time_duration counter),
 * the kernel is placed inside it, and every later timestamp moves earlier
 * by the time removed; NVML/GPM samples taken during a replay measured the
 * replay and are dropped. The mapping is monotone, so order is kept; the
 * meta keys kernel_replay_removed_ns and kernel_replay_launches say what
 * was done. Kernels without timestamps that were not profiled stay out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

#define DURATION_METRIC "gpu__time_duration.sum"
/* written by the injected library around its work on a profiled launch:
 * CUPTI clock, as doubles (256 ns steps at today's epoch times) */
#define BEGIN_METRIC "gpuscope__profile_begin_ns"
#define END_METRIC "gpuscope__profile_end_ns"

struct window {
	int64_t start, end, keep; /* keep: the kernel's duration, kept of [start, end) */
	uint32_t pid, corr;
	int64_t removed_before; /* time removed by earlier windows */
};

struct replay {
	struct window *w;
	size_t n;
};

static int cmp_window(const void *x, const void *y)
{
	const struct window *a = x, *b = y;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The duration counter of (pid, corr), -1 when the launch was not
 * profiled. Counters are few (tens per profiled launch): a linear scan per
 * launch call of a profiled pid is cheap next to the replay itself. */
struct ids {
	uint32_t dur, begin, end;
};

static int64_t duration_of(const struct trace *t, const struct ids *id, uint32_t pid, uint32_t corr,
			   int *profiled, int64_t *begin, int64_t *end)
{
	*profiled = 0;
	int64_t d = 0;
	for (size_t i = 0; i < t->n_counters; i++) {
		const struct trace_counter *c = &t->counters[i];
		if (c->pid != pid || c->correlation != corr)
			continue;
		*profiled = 1;
		int ok = c->value > 0 && c->value < 9e18;
		if (c->metric_id == id->dur && ok && c->value < 1e15)
			d = (int64_t)c->value;
		else if (c->metric_id == id->begin && ok && begin)
			*begin = (int64_t)c->value;
		else if (c->metric_id == id->end && ok && end)
			*end = (int64_t)c->value;
	}
	return d;
}

/* Where time ts goes: earlier by what the windows before it removed; a time
 * inside a window keeps at most the window's kept part. */
static int64_t map(const struct replay *r, int64_t ts, int *inside)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) { /* the last window starting at or before ts */
		size_t mid = lo + (hi - lo) / 2;
		if (r->w[mid].start <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	*inside = 0;
	if (lo == 0)
		return ts;
	const struct window *w = &r->w[lo - 1];
	int64_t base = w->start - w->removed_before;
	if (ts < w->end) {
		int64_t off = ts - w->start;
		*inside = off > w->keep;
		return base + (off < w->keep ? off : w->keep);
	}
	return ts - w->removed_before - (w->end - w->start - w->keep);
}

#define MAP_SPAN(arr, cnt)                                                                         \
	for (size_t i_ = 0; i_ < (cnt); i_++) {                                                    \
		int in_;                                                                           \
		(arr)[i_].start_ns = map(&r, (arr)[i_].start_ns, &in_);                            \
		(arr)[i_].end_ns = map(&r, (arr)[i_].end_ns, &in_);                                \
	}

/* Gives each profiled kernel without timestamps the start of its launch
 * call and its measured duration; drops other kernels without timestamps. */
static void place_kernels(struct trace *t, const struct replay *r, const struct ids *id,
			  uint64_t *placed, uint64_t *left_out)
{
	size_t nk = 0;
	for (size_t i = 0; i < t->n_kernels; i++) {
		struct trace_kernel *k = &t->kernels[i];
		if (k->start_ns == 0 && k->end_ns == 0) {
			const struct window *w = NULL;
			for (size_t j = 0; j < r->n && !w; j++)
				if (r->w[j].pid == k->pid && r->w[j].corr == k->correlation)
					w = &r->w[j];
			if (!w) {
				(*left_out)++;
				continue;
			}
			int profiled;
			k->start_ns = w->start;
			k->end_ns = w->start + duration_of(t, id, k->pid, k->correlation, &profiled,
							   NULL, NULL);
			(*placed)++;
		}
		t->kernels[nk++] = *k;
	}
	t->n_kernels = nk;
}

int trace_remove_replay(struct trace *t, int64_t *removed_ns, uint64_t *placed, uint64_t *left_out)
{
	*removed_ns = 0;
	*placed = *left_out = 0;
	if (!t->n_counters)
		return 0;
	struct ids id = {0, 0, 0};
	for (size_t i = 1; i < t->n_strings; i++) {
		if (strcmp(t->strings[i], DURATION_METRIC) == 0)
			id.dur = (uint32_t)i;
		else if (strcmp(t->strings[i], BEGIN_METRIC) == 0)
			id.begin = (uint32_t)i;
		else if (strcmp(t->strings[i], END_METRIC) == 0)
			id.end = (uint32_t)i;
	}
	struct replay r = {calloc(t->n_apis + 1, sizeof(struct window)), 0};
	if (!r.w)
		return -1;
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *a = &t->apis[i];
		if (a->kind != API_LAUNCH || a->end_ns <= a->start_ns)
			continue;
		int profiled;
		int64_t s0 = a->start_ns, e0 = a->end_ns;
		int64_t d = duration_of(t, &id, a->pid, a->correlation, &profiled, &s0, &e0);
		if (!profiled)
			continue;
		/* the profiler's own work, when timestamped, widens the window (but
		 * never by more than a minute: a bad stamp must not eat the run) */
		s0 = s0 < a->start_ns && a->start_ns - s0 < 60000000000LL ? s0 : a->start_ns;
		e0 = e0 > a->end_ns && e0 - a->end_ns < 60000000000LL ? e0 : a->end_ns;
		int64_t len = e0 - s0;
		r.w[r.n++] = (struct window){s0, e0, d < len ? d : len, a->pid, a->correlation, 0};
	}
	qsort(r.w, r.n, sizeof(*r.w), cmp_window);
	place_kernels(t, &r, &id, placed, left_out);
	/* overlapping windows (launches of two threads) merge into one */
	size_t m = 0;
	for (size_t i = 0; i < r.n; i++) {
		if (m && r.w[i].start < r.w[m - 1].end) {
			if (r.w[i].end > r.w[m - 1].end)
				r.w[m - 1].end = r.w[i].end;
			continue;
		}
		r.w[m++] = r.w[i];
	}
	r.n = m;
	int64_t removed = 0;
	for (size_t i = 0; i < m; i++) {
		r.w[i].removed_before = removed;
		removed += r.w[i].end - r.w[i].start - r.w[i].keep;
	}
	MAP_SPAN(t->kernels, t->n_kernels);
	MAP_SPAN(t->copies, t->n_copies);
	MAP_SPAN(t->memsets, t->n_memsets);
	MAP_SPAN(t->apis, t->n_apis);
	MAP_SPAN(t->syncs, t->n_syncs);
	MAP_SPAN(t->ranges, t->n_ranges);
	MAP_SPAN(t->processes, t->n_processes);
	MAP_SPAN(t->uvm, t->n_uvm);
	for (size_t i = 0; i < t->n_allocs; i++) {
		int in;
		t->allocs[i].ts_ns = map(&r, t->allocs[i].ts_ns, &in);
	}
	size_t ns = 0;
	for (size_t i = 0; i < t->n_samples; i++) {
		int in;
		int64_t ts = map(&r, t->samples[i].ts_ns, &in);
		if (in)
			continue; /* measured the replay */
		t->samples[ns] = t->samples[i];
		t->samples[ns++].ts_ns = ts;
	}
	t->n_samples = ns;
	free(r.w);
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", (long long)removed);
	if (trace_set_meta(t, "kernel_replay_removed_ns", buf) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%zu", m);
	if (trace_set_meta(t, "kernel_replay_launches", buf) < 0)
		return -1;
	trace_sort(t);
	*removed_ns = removed;
	return 0;
}
