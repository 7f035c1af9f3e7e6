/*
 * contention.c - the launching thread's waits on its host (contention.h):
 * its scheduler statistics stretch by stretch against the GPU's idle time,
 * the other threads of its process over the window, and the functions the
 * host samples name.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "analyze/contention.h"
#include "analyze/hostidle.h"
#include "diagnose/thresholds.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/sort.h"
#include "util/vec.h"

struct iv {
	int64_t s, e;
};

/* a thread's counters at x: linear between its reads, the first read's
 * before them and the last one's after (rows: one thread's, by time) */
static void cum_at(const struct trace_host_sched *const *r, size_t n, int64_t x, double *cpu,
		   double *wait)
{
	if (x <= r[0]->ts_ns || n == 1) {
		const struct trace_host_sched *p = x <= r[0]->ts_ns ? r[0] : r[n - 1];
		*cpu = (double)p->cpu_ns;
		*wait = (double)p->wait_ns;
		return;
	}
	if (x >= r[n - 1]->ts_ns) {
		*cpu = (double)r[n - 1]->cpu_ns;
		*wait = (double)r[n - 1]->wait_ns;
		return;
	}
	size_t lo = 0, hi = n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid]->ts_ns <= x)
			lo = mid;
		else
			hi = mid;
	}
	double f = (double)(x - r[lo]->ts_ns) / (double)(r[hi]->ts_ns - r[lo]->ts_ns);
	*cpu = (double)r[lo]->cpu_ns + f * ((double)r[hi]->cpu_ns - (double)r[lo]->cpu_ns);
	*wait = (double)r[lo]->wait_ns + f * ((double)r[hi]->wait_ns - (double)r[lo]->wait_ns);
}

static int cmp_row(const void *x, const void *y)
{
	const struct trace_host_sched *a = *(const struct trace_host_sched *const *)x;
	const struct trace_host_sched *b = *(const struct trace_host_sched *const *)y;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->ts_ns < b->ts_ns ? -1 : a->ts_ns > b->ts_ns;
}

/* the thread of the window's most launch calls; 0 when none */
static int launcher(const struct trace *t, uint32_t *pid, uint32_t *tid, char *err)
{
	struct u64map m;
	if (u64map_init(&m, 16) < 0)
		return error_set(err, "out of memory");
	uint64_t best = 0;
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *p = &t->apis[i];
		if (p->kind != API_LAUNCH)
			continue;
		uint64_t k = (uint64_t)p->pid << 32 | p->tid, v = 0;
		u64map_get(&m, k, &v);
		if (u64map_put(&m, k, ++v) < 0) {
			u64map_release(&m);
			return error_set(err, "out of memory");
		}
		if (v > best) {
			best = v;
			*pid = p->pid;
			*tid = p->tid;
		}
	}
	u64map_release(&m);
	return best > 0;
}

/* a Python function that blocks on something other than the GIL */
static int blocking_name(const char *qual)
{
	static const char *const names[] = {
	    "wait",	"wait_for", "sleep",  "get",	     "join",	  "_wait_for_tstate_lock",
	    "acquire",	"select",   "poll",   "recv",	     "recv_into", "read",
	    "readinto", "readline", "accept", "communicate", NULL};
	const char *dot = strrchr(qual, '.');
	const char *n = dot ? dot + 1 : qual;
	for (const char *const *p = names; *p; p++)
		if (!strcmp(n, *p))
			return 1;
	return 0;
}

/* the innermost Python frame of a stack and its innermost own one (0: none) */
static void py_frames(const struct trace *t, uint32_t stack, uint32_t *inner, uint32_t *own)
{
	*inner = *own = 0;
	for (int depth = 0; stack && stack <= t->n_host_stacks && depth < 512; depth++) {
		const struct trace_host_stack *n = &t->host_stacks[stack - 1];
		if (n->frame_id && n->frame_id <= t->n_host_frames) {
			const struct trace_host_frame *f = &t->host_frames[n->frame_id - 1];
			if (f->kind == HOST_FRAME_PYTHON) {
				if (!*inner)
					*inner = n->frame_id;
				if (an_host_user_file(trace_str(t, f->file_id))) {
					*own = n->frame_id;
					return;
				}
			}
		}
		if (n->parent_id >= stack)
			break;
		stack = n->parent_id;
	}
}

/* the key of m with the largest value (0: empty) */
static uint32_t top_key(const struct u64map *m)
{
	uint64_t best = 0, key = 0;
	for (size_t j = 0; j < m->cap; j++)
		if (m->used[j] && (m->vals[j] > best || (m->vals[j] == best && m->keys[j] < key))) {
			best = m->vals[j];
			key = m->keys[j];
		}
	return (uint32_t)key;
}

static int count(struct u64map *m, uint32_t key, uint64_t w)
{
	uint64_t v = 0;
	if (!key)
		return 0;
	u64map_get(m, key, &v);
	return u64map_put(m, key, v + w);
}

/* The reader's samples of the launching thread and the other one. */
static int samples(struct analysis *a, struct an_contention *c, int64_t x0, int64_t x1)
{
	const struct trace *t = a->t;
	struct u64map wait_fn, other_own, other_inner;
	int rc = -1;
	if (u64map_init(&wait_fn, 16) < 0)
		return -1;
	if (u64map_init(&other_own, 16) < 0)
		goto out1;
	if (u64map_init(&other_inner, 16) < 0)
		goto out2;
	for (size_t i = 0; i < t->n_host_samples; i++) {
		const struct trace_host_sample *s = &t->host_samples[i];
		if (s->source != HOST_SRC_PYREAD || s->pid != c->pid || s->ts_ns < x0 ||
		    s->ts_ns >= x1)
			continue;
		uint32_t inner, own;
		if (s->tid == c->tid) {
			py_frames(t, s->stack_id, &inner, &own);
			c->sampled_ns += s->weight_ns;
			if (inner && blocking_name(trace_str(t, t->host_frames[inner - 1].name_id)))
				c->blocking_ns += s->weight_ns;
			else if (!an_is_busy(a, s->ts_ns) && count(&wait_fn, own, s->weight_ns) < 0)
				goto out;
		} else if (s->tid == c->other_tid) {
			py_frames(t, s->stack_id, &inner, &own);
			c->other_python = 1;
			if (count(&other_own, own ? own : inner, s->weight_ns) < 0 ||
			    count(&other_inner, inner, s->weight_ns) < 0)
				goto out;
		}
	}
	c->wait_frame = top_key(&wait_fn);
	c->other_frame = top_key(&other_own);
	c->other_inner = top_key(&other_inner);
	rc = 0;
out:
	u64map_release(&other_inner);
out2:
	u64map_release(&other_own);
out1:
	u64map_release(&wait_fn);
	return rc;
}

/* the union of the launching thread's CUDA calls in the window */
static int calls_union(const struct trace *t, const struct an_contention *c, struct iv **u,
		       size_t *n)
{
	size_t cap = 0;
	*u = NULL;
	*n = 0;
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *p = &t->apis[i];
		if (p->pid != c->pid || p->tid != c->tid)
			continue;
		if (*n && p->start_ns <= (*u)[*n - 1].e) {
			if (p->end_ns > (*u)[*n - 1].e)
				(*u)[*n - 1].e = p->end_ns;
			continue;
		}
		struct iv *x = VEC_PUSH(*u, *n, cap);
		if (!x)
			return -1;
		*x = (struct iv){p->start_ns, p->end_ns};
	}
	return 0;
}

/* The launching thread's stretches between its reads (contention.h). */
static int stretches(struct analysis *a, struct an_contention *c,
		     const struct trace_host_sched *const *r, size_t n, int64_t x0, int64_t x1)
{
	struct iv *u;
	size_t nu, k = 0;
	if (calls_union(a->t, c, &u, &nu) < 0)
		return -1;
	int64_t p = x0;
	size_t i = 0;
	while (p < x1) {
		while (i < n && r[i]->ts_ns <= p)
			i++;
		int64_t q = i < n && r[i]->ts_ns < x1 ? r[i]->ts_ns : x1;
		double c0, w0, c1, w1;
		cum_at(r, n, p, &c0, &w0);
		cum_at(r, n, q, &c1, &w1);
		int64_t len = q - p, cuda = 0;
		while (k < nu && u[k].e <= p)
			k++;
		for (size_t j = k; j < nu && u[j].s < q; j++)
			cuda += (u[j].e < q ? u[j].e : q) - (u[j].s > p ? u[j].s : p);
		double cpu = c1 - c0, wait = w1 - w0;
		cpu = cpu < 0 ? 0 : cpu > (double)len ? (double)len : cpu;
		wait = wait < 0 ? 0 : wait > (double)len - cpu ? (double)len - cpu : wait;
		double off = (double)len - cpu - wait - (double)cuda;
		off = off < 0 ? 0 : off;
		int64_t idle = len - an_busy_between(a, p, q);
		c->cpu_ns += (int64_t)cpu;
		c->wait_ns += (int64_t)wait;
		c->cuda_ns += cuda;
		c->off_ns += (int64_t)off;
		c->idle_ns += idle;
		c->idle_wait_ns += (int64_t)((double)idle * wait / (double)len);
		c->idle_off_ns += (int64_t)((double)idle * off / (double)len);
		p = q;
	}
	free(u);
	return 0;
}

/* a pause between a thread's ops */
struct pause {
	int64_t s, e;
	uint32_t after; /* the name of the op it follows */
};

/* one launching thread's op events in the window: the end of their union
 * so far, and its pauses of TH_GIL_PAUSE_MIN_NS or more */
struct op_thread {
	uint32_t pid, tid;
	int64_t end;
	uint32_t end_name; /* the op that ends the union so far */
	struct pause *pause;
	size_t n, cap;
};

/* Thread x's hand-over (the median of its pauses of one's length) and its
 * pauses near a multiple of it into c when they beat c's. */
static int gil_thread(struct analysis *a, struct an_contention *c, const struct op_thread *x)
{
	int64_t *one = malloc((x->n ? x->n : 1) * sizeof(*one));
	size_t n1 = 0;
	if (!one)
		return -1;
	for (size_t i = 0; i < x->n; i++) {
		int64_t g = x->pause[i].e - x->pause[i].s;
		if (g >= TH_GIL_QUANTUM_MIN_NS && g <= TH_GIL_QUANTUM_MAX_NS)
			one[n1++] = g;
	}
	if (n1 < TH_GIL_PAUSES_MIN) {
		free(one);
		return 0;
	}
	qsort(one, n1, sizeof(*one), sort_cmp_i64);
	int64_t q = one[n1 / 2];
	free(one);
	int near = 0, n_after = 0;
	uint32_t after[TH_GIL_DISTINCT_OPS];
	int64_t ns = 0, idle = 0;
	for (size_t i = 0; i < x->n; i++) {
		int64_t g = x->pause[i].e - x->pause[i].s, k = (g + q / 2) / q;
		int64_t d = g - k * q;
		if (k < 1 || k > 4 || (d < 0 ? -d : d) > q / 10)
			continue;
		near++;
		ns += g;
		idle += g - an_busy_between(a, x->pause[i].s, x->pause[i].e);
		int seen = 0;
		for (int j = 0; j < n_after; j++)
			seen |= after[j] == x->pause[i].after;
		if (!seen && n_after < TH_GIL_DISTINCT_OPS)
			after[n_after++] = x->pause[i].after;
	}
	/* work the program does once a step (a batch made between steps)
	 * pauses after the same op each time; the GIL's hand-overs come
	 * wherever the thread asks for it back */
	if (n_after < TH_GIL_DISTINCT_OPS)
		return 0;
	if (idle > c->gil_pause_idle_ns) {
		c->gil_pid = x->pid;
		c->gil_tid = x->tid;
		c->gil_quantum_ns = q;
		c->pauses = (int)x->n;
		c->gil_pauses = near;
		c->gil_pause_ns = ns;
		c->gil_pause_idle_ns = idle;
	}
	return 0;
}

/* The pauses between each launching thread's ops (a trace's evidence of the
 * GIL: contention.h). 0, or -1 when out of memory. */
static int op_pauses(struct analysis *a, struct an_contention *c)
{
	const struct trace *t = a->t;
	struct u64map ix;
	struct op_thread *th = NULL;
	size_t n = 0, cap = 0;
	int rc = -1;
	if (u64map_init(&ix, 16) < 0)
		return -1;
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *p = &t->apis[i];
		uint64_t k = (uint64_t)p->pid << 32 | p->tid, v;
		if (p->kind != API_LAUNCH || p->start_ns < a->start_ns || p->start_ns > a->end_ns ||
		    u64map_get(&ix, k, &v))
			continue;
		struct op_thread *x = VEC_PUSH(th, n, cap);
		if (!x)
			goto out;
		*x = (struct op_thread){.pid = p->pid, .tid = p->tid, .end = INT64_MIN};
		if (u64map_put(&ix, k, n - 1) < 0)
			goto out;
	}
	for (size_t i = 0; n && i < t->n_ranges; i++) {
		const struct trace_range *r = trace_range_row(t, i);
		uint64_t v;
		if (r->kind != RANGE_CPU_OP ||
		    !u64map_get(&ix, (uint64_t)r->pid << 32 | r->tid, &v))
			continue;
		/* a view's times are its own (trace.h) */
		struct trace_span sp = trace_range_span(t, i);
		if (sp.end_ns < a->start_ns || sp.start_ns > a->end_ns)
			continue;
		struct op_thread *x = &th[v];
		if (x->end != INT64_MIN && sp.start_ns - x->end >= TH_GIL_PAUSE_MIN_NS) {
			struct pause *g = VEC_PUSH(x->pause, x->n, x->cap);
			if (!g)
				goto out;
			*g = (struct pause){x->end, sp.start_ns, x->end_name};
		}
		if (sp.end_ns > x->end) {
			x->end = sp.end_ns;
			x->end_name = r->name_id;
		}
	}
	rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = gil_thread(a, c, &th[i]);
out:
	for (size_t i = 0; i < n; i++)
		free(th[i].pause);
	free(th);
	u64map_release(&ix);
	return rc;
}

int an_contention(struct analysis *a, char *err)
{
	struct an_contention *c = &a->contention;
	memset(c, 0, sizeof(*c));
	const struct trace *t = a->t;
	if (a->span_ns <= 0)
		return 0;
	if (!t->n_host_sched)
		return op_pauses(a, c) < 0 ? error_set(err, "out of memory") : 0;
	int got = launcher(t, &c->pid, &c->tid, err);
	if (got <= 0)
		return got;
	const char *cpus = trace_get_meta(t, "host_cpus");
	c->cpus = cpus ? atoi(cpus) : 0;
	/* the process's rows, by thread and time */
	const struct trace_host_sched **r = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < t->n_host_sched; i++) {
		if (t->host_sched[i].pid != c->pid)
			continue;
		const struct trace_host_sched **x = VEC_PUSH(r, n, cap);
		if (!x) {
			free(r);
			return error_set(err, "out of memory");
		}
		*x = &t->host_sched[i];
	}
	if (n > 1)
		qsort(r, n, sizeof(*r), cmp_row);
	size_t l0 = n, l1 = n; /* the launching thread's rows: r[l0..l1) */
	for (size_t i = 0; i < n; i++)
		if (r[i]->tid == c->tid) {
			l0 = l0 == n ? i : l0;
			l1 = i + 1;
		}
	int64_t x0 = a->start_ns, x1 = a->end_ns;
	if (l0 < n) {
		x0 = r[l0]->ts_ns > x0 ? r[l0]->ts_ns : x0;
		x1 = r[l1 - 1]->ts_ns < x1 ? r[l1 - 1]->ts_ns : x1;
	}
	if (l0 == n || l1 - l0 < 2 || x1 <= x0) {
		free(r);
		return 0;
	}
	c->have = 1;
	c->wall_ns = x1 - x0;
	int rc = stretches(a, c, r + l0, l1 - l0, x0, x1);
	/* every thread of the process over the same time */
	for (size_t i = 0; rc == 0 && i < n;) {
		size_t j = i;
		while (j < n && r[j]->tid == r[i]->tid)
			j++;
		double c0, w0, c1, w1;
		cum_at(r + i, j - i, x0, &c0, &w0);
		cum_at(r + i, j - i, x1, &c1, &w1);
		int64_t cpu = (int64_t)(c1 - c0), wait = (int64_t)(w1 - w0);
		c->threads++;
		c->proc_cpu_ns += cpu;
		c->proc_wait_ns += wait;
		if ((double)cpu >= TH_CONTENTION_BUSY_SHARE * (double)c->wall_ns)
			c->threads_busy++;
		if (r[i]->tid != c->tid && cpu > c->other_cpu_ns) {
			c->other_cpu_ns = cpu;
			c->other_tid = r[i]->tid;
		}
		i = j;
	}
	free(r);
	for (size_t i = 0; i < t->n_apis; i++) {
		const struct trace_api *p = &t->apis[i];
		if (p->kind != API_LAUNCH || p->pid != c->pid)
			continue;
		if (p->tid == c->tid)
			c->launches++;
		else if (c->other_tid && p->tid == c->other_tid)
			c->other_launches++;
	}
	if (rc == 0)
		rc = samples(a, c, x0, x1);
	return rc < 0 ? error_set(err, "out of memory") : 0;
}
