/*
 * series.c - the chart series of an analysis (series.h): the span in
 * bins, the idle gaps by length and cause, sampled metrics and live
 * device memory. Each pass is linear in the events it reads and spreads
 * an interval over the few bins it covers, so a 1M-kernel trace costs a
 * pass, and the result is the same size for any trace.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "analyze/series.h"
#include "gpu/metrics.h"
#include "gpu/pm_metrics.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/vec.h"

static const int64_t gap_edges[AN_GAP_BINS - 1] = {
    1000LL,	2000LL,	     5000LL,	  10000LL,     20000LL,	     50000LL,	 100000LL,
    200000LL,	500000LL,    1000000LL,	  2000000LL,   5000000LL,    10000000LL, 20000000LL,
    50000000LL, 100000000LL, 200000000LL, 500000000LL, 1000000000LL,
};

int64_t an_gap_bin_lo(int k)
{
	return k <= 0 ? 0 : gap_edges[k - 1 < AN_GAP_BINS - 1 ? k - 1 : AN_GAP_BINS - 2];
}

static int gap_bin(int64_t len)
{
	int k = 0;
	while (k < AN_GAP_BINS - 1 && len >= gap_edges[k])
		k++;
	return k;
}

/* The bins [t0, t1) overlaps, clipped to the span: *b0..*b1 inclusive;
 * 0 when it lies outside. */
static int bin_range(const struct an_series *s, int64_t t0, int64_t t1, int *b0, int *b1)
{
	int64_t end = s->start_ns + (int64_t)s->n_bins * s->bin_ns;
	if (s->n_bins <= 0 || t1 <= t0 || t1 <= s->start_ns || t0 >= end)
		return 0;
	if (t0 < s->start_ns)
		t0 = s->start_ns;
	if (t1 > end)
		t1 = end;
	*b0 = (int)((t0 - s->start_ns) / s->bin_ns);
	*b1 = (int)((t1 - 1 - s->start_ns) / s->bin_ns);
	return 1;
}

/* Time of [t0, t1) inside bin b. */
static int64_t overlap(const struct an_series *s, int b, int64_t t0, int64_t t1)
{
	int64_t lo = s->start_ns + (int64_t)b * s->bin_ns, hi = lo + s->bin_ns;
	lo = t0 > lo ? t0 : lo;
	hi = t1 < hi ? t1 : hi;
	return hi > lo ? hi - lo : 0;
}

/* Adds the time of [t0, t1) in each bin to arr[bin * stride]. */
static void spread(const struct an_series *s, int64_t *arr, int stride, int64_t t0, int64_t t1)
{
	int b0, b1;
	if (!bin_range(s, t0, t1, &b0, &b1))
		return;
	for (int b = b0; b <= b1; b++)
		arr[(size_t)b * (size_t)stride] += overlap(s, b, t0, t1);
}

int an_series_init(struct analysis *a, char *err)
{
	struct an_series *s = &a->series;
	int64_t span = a->end_ns - a->start_ns;
	s->start_ns = a->start_ns;
	if (span <= 0)
		return 0;
	int64_t want = span < AN_SERIES_BINS ? span : AN_SERIES_BINS;
	s->bin_ns = (span + want - 1) / want;
	s->n_bins = (int)((span + s->bin_ns - 1) / s->bin_ns);
	s->idle = calloc((size_t)s->n_bins * AN_IDLE_CAUSES, sizeof(*s->idle));
	if (!s->idle) {
		s->n_bins = 0;
		return error_set(err, "out of memory");
	}
	return 0;
}

void an_series_gap(struct analysis *a, int64_t g0, int64_t g1, const int64_t v[AN_IDLE_CAUSES],
		   int count)
{
	struct an_series *s = &a->series;
	if (g1 <= g0)
		return;
	int k = gap_bin(g1 - g0);
	s->gap_count[k] += count != 0;
	for (int c = 0; c < AN_IDLE_CAUSES; c++)
		s->gap_ns[k][c] += v[c];
	int b0, b1;
	if (!s->idle || !bin_range(s, g0, g1, &b0, &b1))
		return;
	double len = (double)(g1 - g0);
	for (int b = b0; b <= b1; b++) {
		double f = (double)overlap(s, b, g0, g1) / len;
		for (int c = 0; c < AN_IDLE_CAUSES; c++)
			s->idle[(size_t)b * AN_IDLE_CAUSES + (size_t)c] += (double)v[c] * f;
	}
}

void an_series_gap_part(struct analysis *a, struct an_gap_sink *k, int64_t g0, int64_t g1,
			const int64_t v[AN_IDLE_CAUSES])
{
	struct an_series *s = &a->series;
	if (g1 <= g0)
		return;
	int h = gap_bin(g1 - g0);
	k->gap_count[h]++;
	for (int c = 0; c < AN_IDLE_CAUSES; c++)
		k->gap_ns[h][c] += v[c];
	int b0, b1;
	if (!s->idle || !bin_range(s, g0, g1, &b0, &b1))
		return;
	if (!k->have_first) { /* the part's first gap in the bins */
		k->have_first = 1;
		k->first_bin = b0;
	}
	double len = (double)(g1 - g0);
	for (int b = b0; b <= b1; b++) {
		double f = (double)overlap(s, b, g0, g1) / len;
		if (b != k->first_bin) {
			for (int c = 0; c < AN_IDLE_CAUSES; c++)
				s->idle[(size_t)b * AN_IDLE_CAUSES + (size_t)c] += (double)v[c] * f;
			continue;
		}
		if (vec_reserve((void **)&k->first, &k->cap_first,
				(k->n_first + 1) * AN_IDLE_CAUSES, sizeof(*k->first)) < 0) {
			k->failed = 1;
			continue;
		}
		for (int c = 0; c < AN_IDLE_CAUSES; c++)
			k->first[k->n_first * AN_IDLE_CAUSES + (size_t)c] = (double)v[c] * f;
		k->n_first++;
	}
}

int an_series_gap_merge(struct analysis *a, struct an_gap_sink *k)
{
	struct an_series *s = &a->series;
	for (int h = 0; h < AN_GAP_BINS; h++) {
		s->gap_count[h] += k->gap_count[h];
		for (int c = 0; c < AN_IDLE_CAUSES; c++)
			s->gap_ns[h][c] += k->gap_ns[h][c];
	}
	for (size_t i = 0; i < k->n_first; i++)
		for (int c = 0; c < AN_IDLE_CAUSES; c++)
			s->idle[(size_t)k->first_bin * AN_IDLE_CAUSES + (size_t)c] +=
			    k->first[i * AN_IDLE_CAUSES + (size_t)c];
	free(k->first);
	k->first = NULL;
	k->n_first = k->cap_first = 0;
	return k->failed ? -1 : 0;
}

void an_series_gap_bounds(const struct analysis *a, size_t g, int64_t *g0, int64_t *g1)
{
	*g0 = a->start_ns;
	if (g > 0 && g <= a->n_busy && a->busy[g - 1].end > *g0)
		*g0 = a->busy[g - 1].end;
	*g1 = g < a->n_busy ? a->busy[g].start : a->end_ns;
}

/* The union of blocking syncs (API calls, else the trace's sync records, as
 * idle.c counts them) into s->sync. */
static void sync_bins(struct analysis *a)
{
	const struct trace *t = a->t;
	struct an_series *s = &a->series;
	int api = 0;
	for (size_t i = 0; i < t->n_apis && !api; i++)
		api = t->apis[i].kind == API_SYNC;
	int64_t us = 0, ue = 0;
	int open = 0;
	size_t n = api ? t->n_apis : t->n_syncs;
	for (size_t i = 0; i <= n; i++) {
		int64_t x0 = INT64_MAX, x1 = INT64_MAX;
		if (i < n && api) {
			if (t->apis[i].kind != API_SYNC)
				continue;
			x0 = t->apis[i].start_ns, x1 = t->apis[i].end_ns;
		} else if (i < n) {
			x0 = t->syncs[i].start_ns, x1 = t->syncs[i].end_ns;
		}
		if (open && x0 <= ue) {
			ue = x1 > ue ? x1 : ue;
			continue;
		}
		if (open)
			spread(s, s->sync, 1, us, ue);
		us = x0, ue = x1, open = 1;
	}
}

static int cmp_busy_desc(const void *x, const void *y, void *ctx)
{
	const struct an_stream *v = ctx;
	const size_t *i = x, *j = y;
	if (v[*i].busy_ns != v[*j].busy_ns)
		return v[*i].busy_ns > v[*j].busy_ns ? -1 : 1;
	return *i < *j ? -1 : *i > *j;
}

static int cmp_lane(const void *x, const void *y)
{
	const struct an_lane *p = x, *q = y;
	if (p->stream == UINT32_MAX || q->stream == UINT32_MAX)
		return (p->stream == UINT32_MAX) - (q->stream == UINT32_MAX);
	if (p->device != q->device)
		return p->device < q->device ? -1 : 1;
	return p->stream < q->stream ? -1 : p->stream > q->stream;
}

static uint64_t lane_key(uint32_t device, uint32_t stream)
{
	return (uint64_t)device << 32 | stream;
}

/* The lanes: the busiest streams (an_timeline's), the rest merged. */
static int make_lanes(struct analysis *a, struct u64map *map)
{
	struct an_series *s = &a->series;
	size_t n = a->n_streams, keep = n > AN_SERIES_LANES ? AN_SERIES_LANES - 1 : n;
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	if (!order)
		return -1;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_busy_desc, a->streams);
	int rc = -1;
	for (size_t i = 0; i < n; i++) {
		const struct an_stream *st = &a->streams[order[i]];
		if (i <= keep) { /* a lane of its own, or the first merged one */
			struct an_lane *l = VEC_PUSH(s->lanes, s->n_lanes, s->cap_lanes);
			if (!l)
				goto out;
			l->device = st->device;
			l->stream = i < keep ? st->stream : UINT32_MAX;
		}
		struct an_lane *l = &s->lanes[s->n_lanes - 1];
		if (l->device != st->device)
			l->device = UINT32_MAX; /* merged streams of several devices */
		l->streams++;
		l->ops += st->ops;
		l->busy_ns += st->busy_ns;
	}
	if (s->n_lanes) /* (never qsort a NULL array: UBSan) */
		qsort(s->lanes, s->n_lanes, sizeof(*s->lanes), cmp_lane);
	for (size_t i = 0; i < s->n_lanes; i++) {
		s->lanes[i].ns = calloc((size_t)s->n_bins * AN_LANE_KINDS, sizeof(int64_t));
		if (!s->lanes[i].ns)
			goto out;
	}
	size_t other =
	    s->n_lanes && s->lanes[s->n_lanes - 1].stream == UINT32_MAX ? s->n_lanes - 1 : SIZE_MAX;
	for (size_t i = 0; i < s->n_lanes; i++)
		if (i != other &&
		    u64map_put(map, lane_key(s->lanes[i].device, s->lanes[i].stream), i) < 0)
			goto out;
	rc = 0;
out:
	free(order);
	return rc;
}

/* The lane of an op: its own, else the merged one. */
static struct an_lane *lane_of(struct an_series *s, const struct u64map *map, uint32_t device,
			       uint32_t stream)
{
	uint64_t i;
	if (u64map_get(map, lane_key(device, stream), &i))
		return &s->lanes[i];
	return s->n_lanes ? &s->lanes[s->n_lanes - 1] : NULL;
}

static int lane_bins(struct analysis *a)
{
	const struct trace *t = a->t;
	struct an_series *s = &a->series;
	struct u64map map;
	if (u64map_init(&map, AN_SERIES_LANES) < 0)
		return -1;
	int rc = make_lanes(a, &map);
	for (size_t i = 0; rc == 0 && i < t->n_kernels; i++) {
		const struct trace_kernel *k = &t->kernels[i];
		struct an_lane *l = lane_of(s, &map, k->device, k->stream);
		if (l)
			spread(s, l->ns + AN_LANE_KERNEL, AN_LANE_KINDS, k->start_ns, k->end_ns);
	}
	for (size_t i = 0; rc == 0 && i < t->n_copies; i++) {
		const struct trace_copy *c = &t->copies[i];
		struct an_lane *l = lane_of(s, &map, c->device, c->stream);
		if (l)
			spread(s, l->ns + AN_LANE_COPY, AN_LANE_KINDS, c->start_ns, c->end_ns);
	}
	for (size_t i = 0; rc == 0 && i < t->n_memsets; i++) {
		const struct trace_memset *m = &t->memsets[i];
		struct an_lane *l = lane_of(s, &map, m->device, m->stream);
		if (l)
			spread(s, l->ns + AN_LANE_MEMSET, AN_LANE_KINDS, m->start_ns, m->end_ns);
	}
	u64map_release(&map);
	return rc;
}

/* Merges consecutive points of x so that at most AN_SERIES_POINTS remain:
 * windows into their time-weighted mean, readings into their mean. */
static void bound_points(struct an_sample_series *x)
{
	if (x->n <= AN_SERIES_POINTS)
		return;
	size_t g = (x->n + AN_SERIES_POINTS - 1) / AN_SERIES_POINTS, o = 0;
	for (size_t i = 0; i < x->n; i += g, o++) {
		size_t e = i + g < x->n ? i + g : x->n;
		double sum = 0, w = 0, plain = 0;
		for (size_t j = i; j < e; j++) {
			double d = (double)(x->to[j] - x->from[j]);
			sum += x->value[j] * d;
			w += d;
			plain += x->value[j];
		}
		x->from[o] = x->from[i];
		x->to[o] = x->to[e - 1];
		x->value[o] = x->windowed && w > 0 ? sum / w : plain / (double)(e - i);
	}
	x->n = o;
}

/* The sampled metrics the registry knows (a bit mask is no quantity to
 * draw), per device, shifted onto the CUPTI clock by gpm.c's lag. */
static int sample_series(struct analysis *a)
{
	const struct trace *t = a->t;
	struct an_series *s = &a->series;
	struct u64map map;
	int rc = -1;
	if (u64map_init(&map, 32) < 0)
		return -1;
	s->sample_shift_ns = a->sol.lag_ns;
	size_t *count = NULL, n_count = 0, cap_count = 0;
	for (size_t i = 0; i < t->n_samples; i++) {
		const struct trace_sample *p = &t->samples[i];
		uint64_t key = (uint64_t)p->device << 32 | p->metric_id, k;
		if (u64map_get(&map, key, &k)) {
			if (k != UINT64_MAX)
				count[k]++;
			continue;
		}
		const char *name = trace_str(t, p->metric_id);
		int m = gpu_metric_by_trace_name(name);
		int pm = m < 0 ? pm_metric_by_trace_name(name) : -1; /* record --metrics pm */
		if ((m < 0 && pm < 0) || m == GPU_M_CLOCK_EVENTS) {
			if (u64map_put(&map, key, UINT64_MAX) < 0)
				goto out;
			continue;
		}
		struct an_sample_series *x = VEC_PUSH(s->samples, s->n_samples, s->cap_samples);
		size_t *c = VEC_PUSH(count, n_count, cap_count);
		if (!x || !c || u64map_put(&map, key, s->n_samples - 1) < 0)
			goto out;
		x->metric = m >= 0 ? gpu_metrics[m].trace_name : pm_trace_name(pm);
		x->device = p->device;
		x->windowed = strncmp(name, "gpm_", 4) == 0 || pm >= 0;
		*c = 1;
	}
	for (size_t k = 0; k < s->n_samples; k++) {
		struct an_sample_series *x = &s->samples[k];
		x->from = malloc(count[k] * sizeof(*x->from));
		x->to = malloc(count[k] * sizeof(*x->to));
		x->value = malloc(count[k] * sizeof(*x->value));
		if (!x->from || !x->to || !x->value)
			goto out;
	}
	int64_t end = a->end_ns, shift = s->sample_shift_ns;
	for (size_t i = 0; i < t->n_samples; i++) {
		const struct trace_sample *p = &t->samples[i];
		uint64_t k;
		if (!u64map_get(&map, (uint64_t)p->device << 32 | p->metric_id, &k) ||
		    k == UINT64_MAX)
			continue;
		struct an_sample_series *x = &s->samples[k];
		int64_t to = p->ts_ns - shift;
		int64_t from = x->n ? x->to[x->n - 1] : to;
		if (x->n && x->to[x->n - 1] <= a->start_ns) /* the last one before the span */
			x->n--;
		if (from >= end && x->n)
			continue;
		x->from[x->n] = from;
		x->to[x->n] = to;
		x->value[x->n++] = p->value;
	}
	for (size_t k = 0; k < s->n_samples; k++)
		bound_points(&s->samples[k]);
	rc = 0;
out:
	free(count);
	u64map_release(&map);
	return rc;
}

static struct an_mem_series *mem_of(struct an_series *s, uint32_t device)
{
	for (size_t i = 0; i < s->n_mem; i++)
		if (s->mem[i].device == device)
			return &s->mem[i];
	struct an_mem_series *m = VEC_PUSH(s->mem, s->n_mem, s->cap_mem);
	if (!m)
		return NULL;
	m->device = device;
	m->max = calloc((size_t)s->n_bins, sizeof(*m->max));
	return m->max ? m : NULL;
}

/* Live cudaMalloc'd device memory: the allocations (all of them: the view
 * of a slice keeps every one) summed in time order, the most in each bin. */
static int memory_series(struct analysis *a)
{
	const struct trace *t = a->t;
	struct an_series *s = &a->series;
	struct live {
		int64_t bytes;
		int last; /* bins before it are filled */
	} *lv = NULL;
	int rc = -1;
	for (size_t i = 0; i < t->n_allocs; i++) {
		const struct trace_alloc *x = &t->allocs[i];
		if (x->mem_kind != MEM_DEVICE)
			continue;
		size_t before = s->n_mem;
		struct an_mem_series *m = mem_of(s, x->device);
		if (!m)
			goto out;
		size_t d = (size_t)(m - s->mem);
		if (s->n_mem != before) {
			struct live *g = realloc(lv, s->n_mem * sizeof(*lv));
			if (!g)
				goto out;
			lv = g;
			lv[d] = (struct live){0, 0};
		}
		int b = x->ts_ns < s->start_ns ? -1 : (int)((x->ts_ns - s->start_ns) / s->bin_ns);
		if (b >= s->n_bins)
			break;
		for (; b >= 0 && lv[d].last <= b; lv[d].last++)
			m->max[lv[d].last] = lv[d].bytes;
		lv[d].bytes += x->bytes;
		if (b < 0)
			m->start_bytes = lv[d].bytes;
		else if (lv[d].bytes > m->max[b])
			m->max[b] = lv[d].bytes;
	}
	for (size_t d = 0; d < s->n_mem; d++) {
		struct an_mem_series *m = &s->mem[d];
		for (; lv[d].last < s->n_bins; lv[d].last++)
			m->max[lv[d].last] = lv[d].bytes;
		m->peak_bytes = m->start_bytes;
		for (int b = 0; b < s->n_bins; b++)
			m->peak_bytes = m->max[b] > m->peak_bytes ? m->max[b] : m->peak_bytes;
	}
	rc = 0;
out:
	free(lv);
	return rc;
}

int an_series_build(struct analysis *a, char *err)
{
	struct an_series *s = &a->series;
	if (s->n_bins <= 0)
		return 0;
	s->busy = calloc((size_t)s->n_bins, sizeof(*s->busy));
	s->sync = calloc((size_t)s->n_bins, sizeof(*s->sync));
	if (!s->busy || !s->sync)
		return error_set(err, "out of memory");
	for (size_t i = 0; i < a->n_busy; i++)
		spread(s, s->busy, 1, a->busy[i].start, a->busy[i].end);
	sync_bins(a);
	if (lane_bins(a) < 0 || sample_series(a) < 0 || memory_series(a) < 0)
		return error_set(err, "out of memory");
	return 0;
}

void an_series_release(struct an_series *s)
{
	free(s->busy);
	free(s->sync);
	free(s->idle);
	for (size_t i = 0; i < s->n_lanes; i++)
		free(s->lanes[i].ns);
	free(s->lanes);
	for (size_t i = 0; i < s->n_samples; i++) {
		free(s->samples[i].from);
		free(s->samples[i].to);
		free(s->samples[i].value);
	}
	free(s->samples);
	for (size_t i = 0; i < s->n_mem; i++)
		free(s->mem[i].max);
	free(s->mem);
	memset(s, 0, sizeof(*s));
}
