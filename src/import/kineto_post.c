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
#include "util/sort.h"
#include "util/vec.h"

static uint64_t flow_key(int64_t pid, int64_t tid, int64_t ts)
{
	return hash_u64((uint64_t)pid * 0x9E3779B97F4A7C15ULL ^ hash_u64((uint64_t)tid) ^
			hash_u64((uint64_t)ts * 31));
}

/* Whether a GPU row (gpu) or an API call (!gpu) lacks its correlation id. */
static int lacks_correlation(const struct trace *t, int gpu)
{
	if (!gpu) {
		for (size_t i = 0; i < t->n_apis; i++)
			if (!t->apis[i].correlation)
				return 1;
		return 0;
	}
	for (size_t i = 0; i < t->n_kernels; i++)
		if (!t->kernels[i].correlation)
			return 1;
	for (size_t i = 0; i < t->n_copies; i++)
		if (!t->copies[i].correlation)
			return 1;
	for (size_t i = 0; i < t->n_memsets; i++)
		if (!t->memsets[i].correlation)
			return 1;
	return 0;
}

/* Fills correlation ids that the events lack from their ac2g flow ends.
 * Kineto gives every launch and GPU row its correlation, so the maps are
 * made only for a side where one lacks it (each map is as large as its
 * flow ends: 2 x 33 MiB and 0.1 s for the 1.22M flows of the 1.09 GB trace
 * of bench/README-report-speed.md). */
static int fill_from_flows(struct ksink *p)
{
	struct trace *t = p->t;
	if (!p->n_flows)
		return 0;
	int need_f = lacks_correlation(t, 1), need_s = lacks_correlation(t, 0);
	if (!need_f && !need_s)
		return 0;
	struct u64map fs = {0}, ff = {0};
	/* each map sized for its own ends (for both: twice the memory, the
	 * import's peak) */
	size_t n_s = 0;
	for (size_t i = 0; i < p->n_flows; i++)
		n_s += p->flows[i].ph == 's';
	int oom = (need_s && u64map_init(&fs, n_s) < 0) ||
		  (need_f && u64map_init(&ff, p->n_flows - n_s) < 0);
	for (size_t i = 0; i < p->n_flows && !oom; i++) {
		const struct kflow *f = &p->flows[i];
		if (f->ph == 's' ? need_s : need_f)
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

/*
 * Range depths. A range's depth is the number of ranges of its thread still
 * open when it starts, the thread's ranges taken in depth order: by start,
 * the longer of equal starts first, then in file order (cmp_range_idx, a
 * stable sort). Kineto writes each thread's ranges in that order already,
 * so one walk in file order with a stack per thread gives the depths; a
 * thread whose ranges come out of that order is marked, and its ranges
 * alone are sorted and walked again, which is the same computation.
 */

#define MAX_WALK_THREADS 4096 /* more threads than this: sort all ranges */

struct kthread {
	int64_t *open; /* ends of the ranges still open, innermost last */
	size_t n_open, cap_open;
	int64_t last_start, last_end;
	int seen, unordered;
};

struct ranges_job {
	struct trace *t;
	uint32_t pid;
	int64_t off;	/* added to every time: baseTimeNanoseconds or 0 */
	int64_t lo, hi; /* the ranges' span after it */
	int overflow;	/* a time out of range after adding off */
	int rc;
	char err[GS_ERR_LEN];
};

static uint64_t thread_key(const struct trace_range *r)
{
	return (uint64_t)r->pid << 32 | r->tid;
}

/* The ranges of the threads marked unordered, sorted and walked (all of
 * them when every is set). */
/* whether range i's thread is one depths_sorted sorts; *key and *in: the
 * last range's thread and answer (ranges come in runs of one thread: one
 * lookup a run) */
static int sorted_thread(const struct trace *t, const struct u64map *tmap, const struct kthread *th,
			 size_t i, uint64_t *key, int *in)
{
	uint64_t k = thread_key(&t->ranges[i]), x;
	if (*in < 0 || k != *key) {
		*key = k;
		*in = u64map_get(tmap, k, &x) && th[x].unordered;
	}
	return *in;
}

static int depths_sorted(struct trace *t, struct u64map *tmap, const struct kthread *th, int every)
{
	size_t n = 0;
	uint64_t key = 0;
	int in = -1;
	for (size_t i = 0; i < t->n_ranges; i++)
		n += every || sorted_thread(t, tmap, th, i, &key, &in);
	size_t *idx = malloc((n + 1) * sizeof(*idx));
	int64_t *stack = malloc((n + 1) * sizeof(*stack));
	if (!idx || !stack) {
		free(idx);
		free(stack);
		return -1;
	}
	n = 0;
	in = -1;
	for (size_t i = 0; i < t->n_ranges; i++)
		if (every || sorted_thread(t, tmap, th, i, &key, &in))
			idx[n++] = i;
	(void)sort_stable(idx, n, sizeof(*idx), cmp_range_idx, t->ranges);
	size_t sp = 0;
	for (size_t i = 0; i < n; i++) {
		struct trace_range *r = &t->ranges[idx[i]];
		if (i > 0 && thread_key(&t->ranges[idx[i - 1]]) != thread_key(r))
			sp = 0;
		while (sp > 0 && stack[sp - 1] <= r->start_ns)
			sp--;
		r->depth = (uint32_t)sp;
		stack[sp++] = r->end_ns;
	}
	free(idx);
	free(stack);
	return 0;
}

/* The ranges' one walk: pid, the base time, the span and the depths. */
static int ranges_walk(struct ranges_job *j)
{
	struct trace *t = j->t;
	struct u64map tmap;
	struct kthread *th = NULL;
	size_t n_th = 0, cap_th = 0, cur = 0;
	uint64_t cur_key = 0;
	int rc = -1, unordered = 0, every = 0;
	if (u64map_init(&tmap, 16) < 0)
		return -1;
	j->lo = INT64_MAX;
	j->hi = INT64_MIN;
	for (size_t i = 0; i < t->n_ranges; i++) {
		struct trace_range *r = &t->ranges[i];
		if (r->pid == UINT32_MAX)
			r->pid = j->pid;
		if (__builtin_add_overflow(r->start_ns, j->off, &r->start_ns) ||
		    __builtin_add_overflow(r->end_ns, j->off, &r->end_ns)) {
			j->overflow = 1;
			rc = 0;
			goto out;
		}
		if (r->start_ns < j->lo)
			j->lo = r->start_ns;
		if (r->end_ns > j->hi)
			j->hi = r->end_ns;
		if (every)
			continue;
		uint64_t key = thread_key(r), x;
		if (!n_th || key != cur_key) {
			if (!u64map_get(&tmap, key, &x)) {
				if (n_th == MAX_WALK_THREADS) {
					every = 1;
					continue;
				}
				struct kthread *h = VEC_PUSH(th, n_th, cap_th);
				if (!h || u64map_put(&tmap, key, n_th - 1) < 0)
					goto out;
				x = n_th - 1;
			}
			cur = (size_t)x;
			cur_key = key;
		}
		struct kthread *h = &th[cur];
		if (h->unordered)
			continue;
		if (h->seen && (r->start_ns < h->last_start ||
				(r->start_ns == h->last_start && r->end_ns > h->last_end))) {
			h->unordered = unordered = 1;
			continue;
		}
		h->seen = 1;
		h->last_start = r->start_ns;
		h->last_end = r->end_ns;
		while (h->n_open && h->open[h->n_open - 1] <= r->start_ns)
			h->n_open--;
		r->depth = (uint32_t)h->n_open;
		if (h->n_open == h->cap_open && vec_reserve((void **)&h->open, &h->cap_open,
							    h->n_open + 1, sizeof(*h->open)) < 0)
			goto out;
		h->open[h->n_open++] = r->end_ns;
	}
	rc = unordered || every ? depths_sorted(t, &tmap, th, every) : 0;
out:
	for (size_t i = 0; i < n_th; i++)
		free(th[i].open);
	free(th);
	u64map_release(&tmap);
	return rc;
}

static void *ranges_pass(void *arg)
{
	struct ranges_job *j = arg;
	j->rc = ranges_walk(j) < 0 ? error_set(j->err, "out of memory") : 0;
	return NULL;
}

/* Adds off to the times of the rows other than ranges, gives the GPU rows
 * the process pid and widens [*lo, *hi] to the span of kernels, copies,
 * memsets and API calls: one walk per array. -1 when a time overflows. */
static int shift_and_span(struct trace *t, uint32_t pid, int64_t off, int64_t *lo, int64_t *hi)
{
#define WALK(arr, n, SET)                                                                          \
	for (size_t i = 0; i < t->n; i++) {                                                        \
		__typeof__(t->arr[0]) *x = &t->arr[i];                                             \
		SET;                                                                               \
		if (__builtin_add_overflow(x->start_ns, off, &x->start_ns) ||                      \
		    __builtin_add_overflow(x->end_ns, off, &x->end_ns))                            \
			return -1;                                                                 \
		if (x->start_ns < *lo)                                                             \
			*lo = x->start_ns;                                                         \
		if (x->end_ns > *hi)                                                               \
			*hi = x->end_ns;                                                           \
	}
	WALK(kernels, n_kernels, x->pid = pid)
	WALK(copies, n_copies, x->pid = pid)
	WALK(memsets, n_memsets, x->pid = pid)
	WALK(apis, n_apis, (void)0)
#undef WALK
	if (!off)
		return 0;
	for (size_t i = 0; i < t->n_syncs; i++)
		if (__builtin_add_overflow(t->syncs[i].start_ns, off, &t->syncs[i].start_ns) ||
		    __builtin_add_overflow(t->syncs[i].end_ns, off, &t->syncs[i].end_ns))
			return -1;
	for (size_t i = 0; i < t->n_samples; i++)
		if (__builtin_add_overflow(t->samples[i].ts_ns, off, &t->samples[i].ts_ns))
			return -1;
	for (size_t i = 0; i < t->n_allocs; i++)
		if (__builtin_add_overflow(t->allocs[i].ts_ns, off, &t->allocs[i].ts_ns))
			return -1;
	return 0;
}
/* Files in Chrome's trace-event format that are no PyTorch profiler trace
 * are refused with what they are, not reported as "no GPU work": gpuscope
 * export's own Perfetto file (otherData.generator, which keeps what a
 * viewer shows and not all report reads: API calls, copies and syncs are
 * under its own categories), and a file none of whose events is of a kind
 * kineto writes and without kineto's schemaVersion (a JAX or TensorFlow
 * profiler's trace, Chrome's own tracing). An empty torch.profiler trace
 * has its schemaVersion and stays "nothing to diagnose". */
static int not_kineto(struct ksink *p, const struct trace *t, const char *skipped)
{
	const char *gen = trace_get_meta(t, "kineto.otherData.generator");
	if (gen && strcmp(gen, "gpuscope") == 0)
		return error_set(p->err,
				 "a Perfetto file written by gpuscope export, which keeps what a "
				 "viewer shows, not what report reads: report the database or "
				 "trace it was made from");
	if (t->n_kernels || t->n_copies || t->n_memsets || t->n_apis || t->n_syncs || t->n_ranges ||
	    t->n_allocs || t->n_samples || t->n_counters ||
	    trace_get_meta(t, "kineto.schemaVersion"))
		return 0;
	uint64_t foreign = p->unknown_other;
	for (size_t i = 0; i < p->n_unknown; i++)
		if (strncmp(p->unknown[i].what, "ph=M", 4) != 0)
			foreign += p->unknown[i].n;
	if (!foreign)
		return 0;
	if (p->xla_events)
		return error_set(p->err,
				 "a JAX/TensorFlow (XLA) profiler trace (%" PRIu64
				 " of its events are XLA's), which gpuscope does not read: "
				 "record the program with gpuscope record -- python PROGRAM.py "
				 "(it traces JAX's kernels, copies and host stacks)",
				 p->xla_events);
	return error_set(p->err,
			 "not a PyTorch profiler (kineto) trace: none of its %" PRIu64
			 " events is one kineto writes (%s); gpuscope reads torch.profiler "
			 "traces and its own recordings (gpuscope record -- PROGRAM)",
			 p->n_events, skipped);
}

int kineto_finish(struct ksink *p, int64_t base_ns, int has_base)
{
	struct trace *t = p->t;
	uint32_t pid = 0;
	if (p->has_proc_pid)
		(void)kineto_to_u32(p->proc_pid, &pid);
	int relative = has_base && (!p->has_min_ts || p->min_ts < RELATIVE_TS_LIMIT_NS);
	int64_t shift = relative ? base_ns : 0;
	/* the ranges on a second thread while the flows and syncs are done
	 * here: they touch disjoint arrays */
	struct ranges_job rj = {.t = t, .pid = pid, .off = shift};
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
	for (size_t i = 0; i < t->n_syncs; i++)
		if (!t->syncs[i].pid)
			t->syncs[i].pid = pid;
	/* after the flows (it reads the launches' correlations) and before the
	 * base time is added (it reads the calls' times); it adds kernels, not
	 * ranges, so the ranges' thread is done with nothing of it */
	if (kineto_pair_ranges(p, pid) < 0)
		return -1;
	int64_t lo = rj.lo, hi = rj.hi;
	if (rj.overflow || shift_and_span(t, pid, shift, &lo, &hi) < 0)
		return error_set(p->err,
				 "timestamps out of range after adding baseTimeNanoseconds");
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
	    (has_base && trace_set_meta(t, "kineto.base_time_ns", base) < 0) ||
	    kineto_shapes_meta(t, &p->shapes) < 0)
		return error_set(p->err, "out of memory");
	t->source = TRACE_SRC_PYTORCH;
	return not_kineto(p, t, buf);
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
