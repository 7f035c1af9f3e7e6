/*
 * kineto_post.c - the PyTorch importer's post passes, run once the stream
 * is parsed: flow events fill missing correlation ids, GPU rows get the
 * process pid, synchronizing API calls become sync rows where kineto
 * recorded no cuda_sync event, ranges get their depth, baseTimeNanoseconds
 * is added to relative times, and the import meta is written.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/kineto_int.h"
#include "util/cpus.h"
#include "util/hmap.h"

static uint64_t flow_key(int64_t pid, int64_t tid, int64_t ts)
{
	return hash_u64((uint64_t)pid * 0x9E3779B97F4A7C15ULL ^ hash_u64((uint64_t)tid) ^
			hash_u64((uint64_t)ts * 31));
}

/* Fills correlation ids that the events lack from their ac2g flow ends. */
static int fill_from_flows(struct ksink *p)
{
	struct trace *t = p->t;
	if (!p->n_flows)
		return 0;
	struct u64map fs = {0}, ff = {0};
	/* each map sized for its own ends (for both: twice the memory, the
	 * import's peak) */
	size_t n_s = 0;
	for (size_t i = 0; i < p->n_flows; i++)
		n_s += p->flows[i].ph == 's';
	int oom = u64map_init(&fs, n_s) < 0 || u64map_init(&ff, p->n_flows - n_s) < 0;
	for (size_t i = 0; i < p->n_flows && !oom; i++) {
		const struct kflow *f = &p->flows[i];
		oom = u64map_put(f->ph == 's' ? &fs : &ff, flow_key(f->pid, f->tid, f->ts),
				 (uint64_t)f->id) < 0;
	}
	if (oom) {
		u64map_release(&fs);
		u64map_release(&ff);
		return error_set(p->err, "out of memory");
	}
	uint64_t id;
	for (size_t i = 0; i < t->n_kernels; i++) {
		struct trace_kernel *k = &t->kernels[i];
		if (!k->correlation &&
		    u64map_get(&ff, flow_key(k->device, k->stream, k->start_ns), &id))
			k->correlation = (uint32_t)id;
	}
	for (size_t i = 0; i < t->n_copies; i++) {
		struct trace_copy *c = &t->copies[i];
		if (!c->correlation &&
		    u64map_get(&ff, flow_key(c->device, c->stream, c->start_ns), &id))
			c->correlation = (uint32_t)id;
	}
	for (size_t i = 0; i < t->n_memsets; i++) {
		struct trace_memset *m = &t->memsets[i];
		if (!m->correlation &&
		    u64map_get(&ff, flow_key(m->device, m->stream, m->start_ns), &id))
			m->correlation = (uint32_t)id;
	}
	for (size_t i = 0; i < t->n_apis; i++) {
		struct trace_api *a = &t->apis[i];
		if (!a->correlation && u64map_get(&fs, flow_key(a->pid, a->tid, a->start_ns), &id))
			a->correlation = (uint32_t)id;
	}
	u64map_release(&fs);
	u64map_release(&ff);
	return 0;
}

/* API-derived sync rows, except where a cuda_sync event has the same
 * correlation (CUPTI's own record is the better one). */
static int merge_api_syncs(struct ksink *p)
{
	struct trace *t = p->t;
	if (!p->n_api_syncs)
		return 0;
	struct u64map seen;
	int oom = u64map_init(&seen, t->n_syncs + 1) < 0;
	for (size_t i = 0; i < t->n_syncs && !oom; i++)
		if (t->syncs[i].correlation)
			oom = u64map_put(&seen, t->syncs[i].correlation, 1) < 0;
	if (oom) {
		u64map_release(&seen);
		return error_set(p->err, "out of memory");
	}
	uint64_t v;
	for (size_t i = 0; i < p->n_api_syncs; i++) {
		const struct trace_sync *s = &p->api_syncs[i];
		if (s->correlation && u64map_get(&seen, s->correlation, &v))
			continue;
		struct trace_sync *n = trace_add_sync(t);
		if (!n) {
			u64map_release(&seen);
			return error_set(p->err, "out of memory");
		}
		*n = *s;
		n->stream = UINT32_MAX;
	}
	u64map_release(&seen);
	return 0;
}

static int cmp_range_idx(const void *a, const void *b, void *base)
{
	const struct trace_range *x = (const struct trace_range *)base + *(const size_t *)a;
	const struct trace_range *y = (const struct trace_range *)base + *(const size_t *)b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->end_ns != y->end_ns)
		return x->end_ns > y->end_ns ? -1 : 1;
	return 0;
}

/* Nesting depth per thread: the number of enclosing ranges still open. */
static int compute_depths(struct trace *t, char *err)
{
	if (!t->n_ranges)
		return 0;
	size_t *idx = malloc(t->n_ranges * sizeof(*idx));
	int64_t *stack = malloc(t->n_ranges * sizeof(*stack));
	if (!idx || !stack) {
		free(idx);
		free(stack);
		return error_set(err, "out of memory");
	}
	for (size_t i = 0; i < t->n_ranges; i++)
		idx[i] = i;
	qsort_r(idx, t->n_ranges, sizeof(*idx), cmp_range_idx, t->ranges);
	size_t sp = 0;
	for (size_t i = 0; i < t->n_ranges; i++) {
		struct trace_range *r = &t->ranges[idx[i]];
		if (i > 0) {
			const struct trace_range *q = &t->ranges[idx[i - 1]];
			if (q->pid != r->pid || q->tid != r->tid)
				sp = 0;
		}
		while (sp > 0 && stack[sp - 1] <= r->start_ns)
			sp--;
		r->depth = (uint32_t)sp;
		stack[sp++] = r->end_ns;
	}
	free(idx);
	free(stack);
	return 0;
}

static int shift_all(struct trace *t, int64_t off)
{
#define SHIFT(arr, n, a, b)                                                                        \
	for (size_t i = 0; i < t->n; i++)                                                          \
		if (__builtin_add_overflow(t->arr[i].a, off, &t->arr[i].a) ||                      \
		    __builtin_add_overflow(t->arr[i].b, off, &t->arr[i].b))                        \
			return -1;
	SHIFT(kernels, n_kernels, start_ns, end_ns)
	SHIFT(copies, n_copies, start_ns, end_ns)
	SHIFT(memsets, n_memsets, start_ns, end_ns)
	SHIFT(apis, n_apis, start_ns, end_ns)
	SHIFT(syncs, n_syncs, start_ns, end_ns)
	SHIFT(ranges, n_ranges, start_ns, end_ns)
#undef SHIFT
	for (size_t i = 0; i < t->n_samples; i++)
		if (__builtin_add_overflow(t->samples[i].ts_ns, off, &t->samples[i].ts_ns))
			return -1;
	for (size_t i = 0; i < t->n_allocs; i++)
		if (__builtin_add_overflow(t->allocs[i].ts_ns, off, &t->allocs[i].ts_ns))
			return -1;
	return 0;
}

/* the ranges' pass: their pid, then their depth (it reads only ranges) */
struct ranges_job {
	struct trace *t;
	uint32_t pid;
	int rc;
	char err[GS_ERR_LEN];
};

static void *ranges_pass(void *arg)
{
	struct ranges_job *j = arg;
	struct trace *t = j->t;
	for (size_t i = 0; i < t->n_ranges; i++)
		if (t->ranges[i].pid == UINT32_MAX)
			t->ranges[i].pid = j->pid;
	j->rc = compute_depths(t, j->err);
	return NULL;
}

int kineto_finish(struct ksink *p, int64_t base_ns, int has_base)
{
	struct trace *t = p->t;
	uint32_t pid = 0;
	if (p->has_proc_pid)
		(void)kineto_to_u32(p->proc_pid, &pid);
	/* the ranges on a second thread while the flows, syncs and the GPU
	 * rows' pids are done here: they touch disjoint arrays */
	struct ranges_job rj = {t, pid, 0, ""};
	pthread_t th;
	int two = t->n_ranges > 65536 && gs_cpu_count() > 1 &&
		  pthread_create(&th, NULL, ranges_pass, &rj) == 0;
	int rc = fill_from_flows(p) < 0 || merge_api_syncs(p) < 0 ? -1 : 0;
	if (two)
		pthread_join(th, NULL);
	if (rc < 0)
		return -1;
	if (!two)
		ranges_pass(&rj);
	if (rj.rc < 0)
		return error_set(p->err, "%s", rj.err);
	for (size_t i = 0; i < t->n_kernels; i++)
		t->kernels[i].pid = pid;
	for (size_t i = 0; i < t->n_copies; i++)
		t->copies[i].pid = pid;
	for (size_t i = 0; i < t->n_memsets; i++)
		t->memsets[i].pid = pid;
	for (size_t i = 0; i < t->n_syncs; i++)
		if (!t->syncs[i].pid)
			t->syncs[i].pid = pid;
	/* after the flows (it reads the launches' correlations); it adds
	 * kernels, not ranges, so the ranges' thread is done with nothing of it */
	if (kineto_pair_ranges(p, pid) < 0)
		return -1;
	int relative = has_base && (!p->has_min_ts || p->min_ts < RELATIVE_TS_LIMIT_NS);
	if (relative && shift_all(t, base_ns) < 0)
		return error_set(p->err,
				 "timestamps out of range after adding baseTimeNanoseconds");

	int64_t lo = INT64_MAX, hi = INT64_MIN;
#define SPAN(arr, n)                                                                               \
	for (size_t i = 0; i < t->n; i++) {                                                        \
		if (t->arr[i].start_ns < lo)                                                       \
			lo = t->arr[i].start_ns;                                                   \
		if (t->arr[i].end_ns > hi)                                                         \
			hi = t->arr[i].end_ns;                                                     \
	}
	SPAN(kernels, n_kernels)
	SPAN(copies, n_copies)
	SPAN(memsets, n_memsets)
	SPAN(apis, n_apis)
	SPAN(ranges, n_ranges)
#undef SPAN
	if (p->has_proc_pid) {
		struct trace_process *pr = trace_add_process(t);
		if (!pr)
			return error_set(p->err, "out of memory");
		pr->pid = pid;
		pr->start_ns = lo == INT64_MAX ? 0 : lo;
		pr->end_ns = hi == INT64_MIN ? 0 : hi;
	}

	char buf[2048];
	size_t off = 0;
	buf[0] = '\0';
	/* the first MAX_UNKNOWN kinds by first sight, the rest as "other" */
	uint64_t other = p->unknown_other;
	for (size_t i = MAX_UNKNOWN; i < p->n_unknown; i++)
		other += p->unknown[i].n;
	for (size_t i = 0; i < p->n_unknown && i < MAX_UNKNOWN && off < sizeof(buf) - 100; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s:%" PRIu64,
					off ? "," : "", p->unknown[i].what, p->unknown[i].n);
	if (other && off < sizeof(buf) - 40)
		snprintf(buf + off, sizeof(buf) - off, "%sother:%" PRIu64, off ? "," : "", other);
	char num[32];
	snprintf(num, sizeof(num), "%" PRIu64, p->n_events);
	char flows[32];
	snprintf(flows, sizeof(flows), "%zu", p->n_flows);
	char base[32];
	snprintf(base, sizeof(base), "%" PRId64, has_base ? base_ns : 0);
	if (trace_set_meta(t, "source", "pytorch") < 0 ||
	    trace_set_meta(t, "clock_domain", "pytorch") < 0 ||
	    trace_set_meta(t, "import.unknown", buf) < 0 ||
	    trace_set_meta(t, "import.events", num) < 0 ||
	    trace_set_meta(t, "import.flows", flows) < 0 ||
	    (has_base && trace_set_meta(t, "kineto.base_time_ns", base) < 0))
		return error_set(p->err, "out of memory");
	t->source = "pytorch";
	return 0;
}

void kineto_sink_release(struct ksink *k)
{
	free(k->flows);
	free(k->api_syncs);
	free(k->unknown);
	free(k->pranges);
	k->pranges = NULL;
	k->flows = NULL;
	k->api_syncs = NULL;
	k->unknown = NULL;
}
