/*
 * timeline.c - interval unions over the GPU timeline.
 *
 * Kernels, copies and memsets are each sorted by start (trace_sort), so one
 * three-way merge visits every GPU op in start order; a running union
 * interval per category, per device and per stream then gives exact busy
 * time with concurrent work counted once, in one linear pass and with no
 * per-op allocation. The union of all GPU work is kept as a sorted array of
 * disjoint intervals: its gaps are the GPU's idle time (idle.c breaks them
 * down) and binary searches over it answer "busy between t0 and t1". The
 * sweep itself, whole or in parts on several CPUs, is timeline_parts.c's.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "analyze/analysis_int.h"
#include "analyze/timeline_int.h"
#include "trace/capture.h"
#include "util/cpus.h"
#include "util/error.h"

static int map_grow(struct slot_map *m, size_t want)
{
	size_t cap = 64;
	while (cap < want * 2)
		cap *= 2;
	uint64_t *k = calloc(cap, sizeof(*k));
	uint32_t *v = calloc(cap, sizeof(*v));
	if (!k || !v) {
		free(k);
		free(v);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t h = an_mix(m->keys[i]) & (cap - 1);
		while (k[h])
			h = (h + 1) & (cap - 1);
		k[h] = m->keys[i];
		v[h] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = k;
	m->vals = v;
	m->cap = cap;
	return 0;
}

/* Returns the value slot for key, inserting `fresh` when new; NULL on OOM. */
uint32_t *an_slot_map_get(struct slot_map *m, uint64_t key, uint32_t fresh, int *inserted)
{
	if ((m->n + 1) * 2 > m->cap && map_grow(m, m->n + 1) < 0)
		return NULL;
	size_t h = an_mix(key + 1) & (m->cap - 1);
	while (m->keys[h] && m->keys[h] != key + 1)
		h = (h + 1) & (m->cap - 1);
	*inserted = !m->keys[h];
	if (*inserted) {
		m->keys[h] = key + 1;
		m->vals[h] = fresh;
		m->n++;
	}
	return &m->vals[h];
}

double an_pct(const struct analysis *a, double ns)
{
	return a->span_ns > 0 ? 100.0 * ns / (double)a->span_ns : 0.0;
}

void an_op_span(const struct analysis *a, uint32_t ref, int64_t *start, int64_t *end)
{
	uint32_t i = AN_OP_INDEX(ref);
	switch (AN_OP_KIND(ref)) {
	case AN_OP_KERNEL:
		*start = a->t->kernels[i].start_ns;
		*end = a->t->kernels[i].end_ns;
		break;
	case AN_OP_COPY:
		*start = a->t->copies[i].start_ns;
		*end = a->t->copies[i].end_ns;
		break;
	default:
		*start = a->t->memsets[i].start_ns;
		*end = a->t->memsets[i].end_ns;
		break;
	}
}

uint32_t an_corr_find(const struct analysis *a, uint32_t pid, uint32_t corr)
{
	if (a->corr_dir)
		return corr < a->corr_dir_n ? a->corr_dir[corr] : AN_OP_NONE;
	if (a->corr_ix) {
		size_t b = corr >> a->corr_shift;
		if (pid != a->corr_pid || !corr || b >= a->corr_ix_n)
			return AN_OP_NONE;
		for (uint32_t k = a->corr_ix[b]; k < a->corr_ix[b + 1]; k++)
			if (a->corr_ids[k] == corr)
				return a->corr_vals[k];
		return AN_OP_NONE;
	}
	if (!a->corr_cap || !corr)
		return AN_OP_NONE;
	uint64_t key = ((uint64_t)pid << 32 | corr) + 1;
	size_t h = an_mix(key) & (a->corr_cap - 1);
	while (a->corr_keys[h]) {
		if (a->corr_keys[h] == key)
			return a->corr_vals[h];
		h = (h + 1) & (a->corr_cap - 1);
	}
	return AN_OP_NONE;
}

static void corr_put(struct analysis *a, uint32_t pid, uint32_t corr, uint32_t ref)
{
	if (!corr)
		return;
	if (a->corr_dir) {
		if (corr < a->corr_dir_n && a->corr_dir[corr] == AN_OP_NONE)
			a->corr_dir[corr] = ref;
		return;
	}
	uint64_t key = ((uint64_t)pid << 32 | corr) + 1;
	size_t h = an_mix(key) & (a->corr_cap - 1);
	while (a->corr_keys[h] && a->corr_keys[h] != key)
		h = (h + 1) & (a->corr_cap - 1);
	if (!a->corr_keys[h]) {
		a->corr_keys[h] = key;
		a->corr_vals[h] = ref;
	}
}

/* The largest bucket corr_buckets makes (else the hash table): the ids of
 * one launch share one, so a graph of many kernels would be scanned. */
#define CORR_BUCKET_MAX 64

/* One process's ops by id >> shift, each bucket in put order, so that the
 * first op of an id is found as corr_put's first-come table would: a
 * bucket of about one op, near the last one looked up (calls come in id
 * order), where the hash table's probes go anywhere. 1 when made, 0 when
 * a bucket would pass CORR_BUCKET_MAX, -1 out of memory. */
static int corr_buckets(struct analysis *a, uint32_t pid, uint32_t maxc, size_t n, char *err)
{
	const struct trace *t = a->t;
	unsigned s = 0;
	while (((size_t)maxc >> s) + 1 > n)
		s++;
	size_t nb = ((size_t)maxc >> s) + 1;
	uint32_t *ix = calloc(nb + 1, sizeof(*ix));
	if (!ix)
		return error_set(err, "out of memory");
#define COUNT(arr, cnt)                                                                            \
	for (size_t i = 0; i < (cnt); i++)                                                         \
		if ((arr)[i].correlation)                                                          \
			ix[((arr)[i].correlation >> s) + 1]++;
	COUNT(t->kernels, t->n_kernels)
	COUNT(t->copies, t->n_copies)
	COUNT(t->memsets, t->n_memsets)
#undef COUNT
	for (size_t b = 1; b <= nb; b++) {
		if (ix[b] > CORR_BUCKET_MAX) {
			free(ix);
			return 0;
		}
		ix[b] += ix[b - 1];
	}
	size_t m = ix[nb];
	a->corr_ids = malloc((m ? m : 1) * sizeof(*a->corr_ids));
	a->corr_vals = malloc((m ? m : 1) * sizeof(*a->corr_vals));
	if (!a->corr_ids || !a->corr_vals) {
		free(ix);
		return error_set(err, "out of memory");
	}
	/* ix[b] is each bucket's next slot, then (moved up one) its start */
#define PLACE(arr, cnt, kind)                                                                      \
	for (size_t i = 0; i < (cnt); i++)                                                         \
		if ((arr)[i].correlation) {                                                        \
			uint32_t k = ix[(arr)[i].correlation >> s]++;                              \
			a->corr_ids[k] = (arr)[i].correlation;                                     \
			a->corr_vals[k] = (kind) << 30 | (uint32_t)i;                              \
		}
	PLACE(t->kernels, t->n_kernels, AN_OP_KERNEL)
	PLACE(t->copies, t->n_copies, AN_OP_COPY)
	PLACE(t->memsets, t->n_memsets, AN_OP_MEMSET)
#undef PLACE
	memmove(ix + 1, ix, nb * sizeof(*ix));
	ix[0] = 0;
	a->corr_ix = ix;
	a->corr_ix_n = nb;
	a->corr_shift = s;
	a->corr_pid = pid;
	return 1;
}

/* Builds the correlation table: direct when one process and dense ids,
 * buckets when one process and sparse ids, else a hash table. */
static int corr_build(struct analysis *a, char *err)
{
	const struct trace *t = a->t;
	size_t n = t->n_kernels + t->n_copies + t->n_memsets;
	uint32_t maxc = 0, pid0 = 0;
	int one_pid = 1, have = 0;
#define SCAN(arr, cnt)                                                                             \
	for (size_t i = 0; i < (cnt); i++) {                                                       \
		if (!have) {                                                                       \
			pid0 = (arr)[i].pid;                                                       \
			have = 1;                                                                  \
		}                                                                                  \
		one_pid &= (arr)[i].pid == pid0;                                                   \
		if ((arr)[i].correlation > maxc)                                                   \
			maxc = (arr)[i].correlation;                                               \
	}
	SCAN(t->kernels, t->n_kernels)
	SCAN(t->copies, t->n_copies)
	SCAN(t->memsets, t->n_memsets)
#undef SCAN
	for (size_t i = 0; one_pid && have && i < t->n_apis; i++)
		one_pid &= t->apis[i].pid == pid0;
	if (n == 0)
		return 0;
	if (one_pid && (uint64_t)maxc <= 4 * (uint64_t)n + (1u << 20)) {
		a->corr_dir_n = (size_t)maxc + 1;
		a->corr_dir = malloc(a->corr_dir_n * sizeof(*a->corr_dir));
		if (!a->corr_dir)
			return error_set(err, "out of memory");
		memset(a->corr_dir, 0xff, a->corr_dir_n * sizeof(*a->corr_dir));
	} else if (one_pid && have) {
		int made = corr_buckets(a, pid0, maxc, n, err);
		if (made != 0)
			return made < 0 ? -1 : 0;
	}
	if (!a->corr_dir) {
		size_t cap = 64;
		while (cap < n + n / 2)
			cap *= 2;
		a->corr_keys = calloc(cap, sizeof(*a->corr_keys));
		a->corr_vals = calloc(cap, sizeof(*a->corr_vals));
		if (!a->corr_keys || !a->corr_vals)
			return error_set(err, "out of memory");
		a->corr_cap = cap;
	}
	for (size_t i = 0; i < t->n_kernels; i++)
		corr_put(a, t->kernels[i].pid, t->kernels[i].correlation,
			 AN_OP_KERNEL << 30 | (uint32_t)i);
	for (size_t i = 0; i < t->n_copies; i++)
		corr_put(a, t->copies[i].pid, t->copies[i].correlation,
			 AN_OP_COPY << 30 | (uint32_t)i);
	for (size_t i = 0; i < t->n_memsets; i++)
		corr_put(a, t->memsets[i].pid, t->memsets[i].correlation,
			 AN_OP_MEMSET << 30 | (uint32_t)i);
	return 0;
}

struct corr_job {
	struct analysis *a;
	char err[GS_ERR_LEN];
	int rc;
};

static void *corr_thread(void *arg)
{
	struct corr_job *j = arg;
	j->rc = corr_build(j->a, j->err);
	return NULL;
}

static void span_of(struct analysis *a)
{
	const struct trace *t = a->t;
	int64_t s = INT64_MAX, e = INT64_MIN;
#define SPAN(arr, cnt)                                                                             \
	if ((cnt) > 0 && (arr)[0].start_ns < s)                                                    \
		s = (arr)[0].start_ns;                                                             \
	for (size_t i = 0; i < (cnt); i++)                                                         \
		if ((arr)[i].end_ns > e)                                                           \
			e = (arr)[i].end_ns;
	SPAN(t->kernels, t->n_kernels)
	SPAN(t->copies, t->n_copies)
	SPAN(t->memsets, t->n_memsets)
	SPAN(t->apis, t->n_apis)
#undef SPAN
	if (s == INT64_MAX) {
		s = e = 0;
	}
	a->start_ns = a->trace_start_ns = s;
	a->end_ns = a->trace_end_ns = e;
	a->span_ns = e - s;
}

/* The device and stream slots of (dev, stream), made on first sight: 0, or
 * -1 when out of memory. Slots are full 32-bit indices (a trace may hold
 * more than 65,536 streams: probe C1), their arrays grown by vec_reserve. */
int an_sweep_slot(struct analysis *a, struct sweep *w, uint32_t dev, uint32_t stream, uint32_t *ds,
		  uint32_t *ss)
{
	int ins;
	uint32_t *d = an_slot_map_get(&w->dmap, dev, (uint32_t)a->n_devices, &ins);
	if (!d)
		return -1;
	size_t nd = a->n_devices + 1, ns;
	if (ins && (vec_reserve((void **)&a->devices, &w->cap_dev, nd, sizeof(*a->devices)) < 0 ||
		    vec_reserve((void **)&w->dev, &w->cap_dev_run, nd, sizeof(*w->dev)) < 0))
		return -1;
	if (ins) {
		struct an_device *v = a->devices;
		memset(&v[a->n_devices], 0, sizeof(*v));
		memset(&w->dev[a->n_devices], 0, sizeof(*w->dev));
		v[a->n_devices].id = dev;
		for (size_t i = 0; i < a->t->n_devices; i++)
			if (a->t->devices[i].id == dev)
				v[a->n_devices].sm_count = a->t->devices[i].sm_count;
		a->n_devices++;
	}
	uint32_t *s =
	    an_slot_map_get(&w->smap, (uint64_t)dev << 32 | stream, (uint32_t)a->n_streams, &ins);
	if (!s)
		return -1;
	ns = a->n_streams + 1;
	if (ins && (vec_reserve((void **)&a->streams, &w->cap_str, ns, sizeof(*a->streams)) < 0 ||
		    vec_reserve((void **)&w->str, &w->cap_str_run, ns, sizeof(*w->str)) < 0))
		return -1;
	if (ins) {
		struct an_stream *v = a->streams;
		memset(&v[a->n_streams], 0, sizeof(*v));
		memset(&w->str[a->n_streams], 0, sizeof(*w->str));
		v[a->n_streams].device = dev;
		v[a->n_streams].stream = stream;
		a->n_streams++;
	}
	*ds = *d;
	*ss = *s;
	return 0;
}

/* The GPU's gaps' time outside record's capture windows (trace/capture.h):
 * not recorded, so neither busy nor idle; it goes out of the span (the
 * idle breakdown splits the gaps by the same windows). Here, not in the
 * idle pass, so that the span every later pass reads is final when the
 * timeline is. */
static void uncaptured(struct analysis *a)
{
	const struct trace *t = a->t;
	if (!t->n_capture_windows)
		return;
	int64_t at = a->start_ns;
	for (size_t g = 0; g <= a->n_busy; g++) {
		int64_t g0 = at, g1 = g < a->n_busy ? a->busy[g].start : a->end_ns;
		if (g < a->n_busy && a->busy[g].end > at)
			at = a->busy[g].end;
		if (g1 <= g0)
			continue;
		int64_t in = 0;
		for (size_t i = trace_capture_first(t, g0);
		     i < t->n_capture_windows && t->capture_windows[i].start_ns < g1; i++) {
			const struct trace_capture_window *w = &t->capture_windows[i];
			int64_t s = w->start_ns > g0 ? w->start_ns : g0,
				e = w->end_ns < g1 ? w->end_ns : g1;
			if (e > s)
				in += e - s;
		}
		a->uncaptured_ns += (g1 - g0) - in;
	}
	a->span_ns -= a->uncaptured_ns;
}

int an_timeline(struct analysis *a, char *err)
{
	const struct trace *t = a->t;
	struct sweep w;
	memset(&w, 0, sizeof(w));
	int rc = -1;

	span_of(a);
	/* the correlation table (its own fields, read only by later passes)
	 * on a second CPU while the sweep runs here */
	struct corr_job cj = {.a = a};
	pthread_t th;
	int two = t->n_kernels + t->n_copies + t->n_memsets > 65536 && gs_cpu_count() > 1 &&
		  pthread_create(&th, NULL, corr_thread, &cj) == 0;
	if (!two && corr_build(a, err) < 0)
		return -1;
	a->n_kernels = t->n_kernels;
	a->n_copies = t->n_copies;
	a->n_memsets = t->n_memsets;
	a->n_apis = t->n_apis;
	if (an_sweep(a, &w, two ? gs_cpu_count() : 1) < 0) {
		error_set(err, "out of memory");
		goto out;
	}
	a->busy_cum = malloc((a->n_busy + 1) * sizeof(*a->busy_cum));
	if (!a->busy_cum) {
		error_set(err, "out of memory");
		goto out;
	}
	a->busy_cum[0] = 0;
	for (size_t i = 0; i < a->n_busy; i++) {
		a->busy_ns += a->busy[i].end - a->busy[i].start;
		a->busy_cum[i + 1] = a->busy_ns;
	}
	/* The analysed window runs from the first to the last GPU work: process
	 * start, CUDA context creation, module loading and the first
	 * allocations before it (and frees after it) are startup and teardown,
	 * shown apart, not charged to the steady state as idle time. */
	if (a->n_busy) {
		a->start_ns = a->busy[0].start;
		a->end_ns = a->busy[a->n_busy - 1].end;
		if (a->end_ns < a->start_ns)
			a->end_ns = a->start_ns;
		a->startup_ns = a->start_ns - a->trace_start_ns;
		a->teardown_ns = a->trace_end_ns - a->end_ns;
		a->span_ns = a->end_ns - a->start_ns;
	}
	uncaptured(a);
	a->kernel_ns = w.k.sum;
	a->copy_ns = w.c.sum;
	a->memset_ns = w.m.sum;
	a->copy.union_ns = a->copy_ns;
	a->copy.not_overlapped_ns = w.kc.sum - a->kernel_ns;
	for (int i = 0; i < 6; i++)
		a->copy_kind_ns[i] = w.ck[i].sum;
	for (size_t i = 0; i < a->n_devices; i++)
		a->devices[i].busy_ns = w.dev[i].sum;
	for (size_t i = 0; i < a->n_streams; i++)
		a->streams[i].busy_ns = w.str[i].sum;
	rc = 0;
out:
	if (two) {
		pthread_join(th, NULL);
		if (rc == 0 && cj.rc < 0)
			rc = error_set(err, "%s", cj.err);
	}
	free(w.dev);
	free(w.str);
	free(w.dmap.keys);
	free(w.dmap.vals);
	free(w.smap.keys);
	free(w.smap.vals);
	return rc;
}

/* the first busy interval in [lo, hi) ending after ts (hi when none) */
static size_t busy_search(const struct analysis *a, size_t lo, size_t hi, int64_t ts)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->busy[mid].end <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t an_busy_index(const struct analysis *a, int64_t ts)
{
	return busy_search(a, 0, a->n_busy, ts);
}

int an_is_busy(const struct analysis *a, int64_t ts)
{
	size_t i = an_busy_index(a, ts);
	return i < a->n_busy && a->busy[i].start <= ts;
}

int64_t an_next_busy(const struct analysis *a, int64_t ts)
{
	size_t i = an_busy_index(a, ts);
	if (i == a->n_busy)
		return INT64_MAX;
	return a->busy[i].start > ts ? a->busy[i].start : ts;
}

/* Busy time of the union before ts, in O(log n) from the prefix sums. */
static int64_t busy_before(const struct analysis *a, int64_t ts)
{
	size_t i = an_busy_index(a, ts);
	int64_t sum = a->busy_cum[i];
	if (i < a->n_busy && a->busy[i].start < ts)
		sum += ts - a->busy[i].start;
	return sum;
}

int64_t an_busy_between(const struct analysis *a, int64_t t0, int64_t t1)
{
	if (t1 <= t0 || !a->busy_cum)
		return 0;
	return busy_before(a, t1) - busy_before(a, t0);
}

/* an_busy_index(a, ts) where it is at least from (busy[from - 1] ends at
 * or before ts): doubling steps from there, then a binary search */
static size_t busy_index_from(const struct analysis *a, size_t from, int64_t ts)
{
	size_t n = a->n_busy, lo = from, step = 1;
	if (lo >= n || a->busy[lo].end > ts)
		return lo;
	while (step < n - lo && a->busy[lo + step].end <= ts) {
		lo += step;
		step <<= 1;
	}
	/* busy[lo] ends at or before ts, busy[lo + step] after it (or is n) */
	return busy_search(a, lo + 1, step < n - lo ? lo + step : n, ts);
}

static int64_t busy_before_at(const struct analysis *a, size_t i, int64_t ts)
{
	int64_t sum = a->busy_cum[i];
	if (i < a->n_busy && a->busy[i].start < ts)
		sum += ts - a->busy[i].start;
	return sum;
}

int64_t an_busy_between_from(const struct analysis *a, size_t *at, int64_t t0, int64_t t1)
{
	if (t1 <= t0 || !a->busy_cum)
		return 0;
	size_t i0 = busy_index_from(a, *at, t0), i1 = busy_index_from(a, i0, t1);
	*at = i0;
	return busy_before_at(a, i1, t1) - busy_before_at(a, i0, t0);
}
