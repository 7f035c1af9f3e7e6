/*
 * unprofile.c - the view of a profiled trace without the profiler's own
 * host cost (unprofile.h): one sweep over the host's records, the GPU ops
 * placed as their launches come, then every other time mapped.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/unprofile.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/vec.h"

/* what happens at one instant, in this order */
enum { IT_BLOCK_END, IT_RANGE, IT_API, IT_GPU };

struct item {
	int64_t t;
	uint32_t idx; /* a range, an API call or a GPU op (ref) */
	uint8_t kind;
};

struct point {
	int64_t t, nt; /* recorded time, estimated time */
};

/* one process's host timeline */
struct host {
	uint32_t pid;
	int started;
	int64_t t, nt, debt;
	uint32_t block; /* the blocking call it is in, UINT32_MAX: none */
	int64_t block_nt;
	struct point *pts;
	size_t n_pts, cap_pts;
};

struct ends {
	int64_t o, n; /* prefix maxima of recorded and new ends */
};

/* one stream's placed ops */
struct lane {
	uint32_t pid;
	int64_t last; /* the new end of the last op placed */
	struct ends *e;
	size_t n_e, cap_e;
};

/* A GPU op of the view by ref: kernels, then copies, then memsets. */
struct op {
	int64_t *start, *end;
	uint32_t pid, device, stream, corr;
};

struct sweep {
	struct trace *v;
	int64_t cost;
	size_t nk, nc, nm;
	struct host *h;
	size_t n_h, cap_h;
	struct u64map hosts; /* pid -> index into h */
	struct lane *l;
	size_t n_l, cap_l;
	struct u64map lanes; /* device << 32 | stream -> index into l */
	struct u64map first; /* pid << 32 | correlation -> first op ref + 1 */
	uint32_t *next;	     /* the next op of the same launch, UINT32_MAX: none */
	unsigned char *placed;
	unsigned char *blocks; /* per API call: it waits for the GPU (as recorded) */
	struct an_unprofile_stats *st;
};

#define NONE UINT32_MAX

static struct op op_at(struct sweep *s, uint32_t r)
{
	struct trace *v = s->v;
	if (r < s->nk) {
		struct trace_kernel *k = &v->kernels[r];
		return (struct op){&k->start_ns, &k->end_ns, k->pid,
				   k->device,	 k->stream,  k->correlation};
	}
	if (r < s->nk + s->nc) {
		struct trace_copy *c = &v->copies[r - s->nk];
		return (struct op){&c->start_ns, &c->end_ns, c->pid,
				   c->device,	 c->stream,  c->correlation};
	}
	struct trace_memset *m = &v->memsets[r - s->nk - s->nc];
	return (struct op){&m->start_ns, &m->end_ns, m->pid, m->device, m->stream, m->correlation};
}

static struct host *host_of(struct sweep *s, uint32_t pid)
{
	uint64_t i;
	if (u64map_get(&s->hosts, pid, &i))
		return &s->h[i];
	struct host *h = VEC_PUSH(s->h, s->n_h, s->cap_h);
	if (!h || u64map_put(&s->hosts, pid, s->n_h - 1) < 0)
		return NULL;
	memset(h, 0, sizeof(*h));
	h->pid = pid;
	h->block = NONE;
	return h;
}

static int point(struct host *h)
{
	if (h->n_pts && h->pts[h->n_pts - 1].t == h->t) {
		h->pts[h->n_pts - 1].nt = h->nt;
		return 0;
	}
	struct point *p = VEC_PUSH(h->pts, h->n_pts, h->cap_pts);
	if (!p)
		return -1;
	*p = (struct point){h->t, h->nt};
	return 0;
}

/* The host's clock moved to t: the debt is paid from the time since,
 * unless the host was blocked (model 1). */
static int advance(struct sweep *s, struct host *h, int64_t t)
{
	if (!h->started) {
		h->started = 1;
		h->t = h->nt = t;
		return point(h);
	}
	int64_t gap = t > h->t ? t - h->t : 0;
	int64_t pay = h->block != NONE ? 0 : (h->debt < gap ? h->debt : gap);
	h->debt -= pay;
	s->st->removed_ns += pay;
	h->nt += gap - pay;
	h->t = t > h->t ? t : h->t;
	return point(h);
}

static struct lane *lane_of(struct sweep *s, const struct op *o)
{
	uint64_t key = (uint64_t)o->device << 32 | o->stream, i;
	if (u64map_get(&s->lanes, key, &i))
		return &s->l[i];
	struct lane *l = VEC_PUSH(s->l, s->n_l, s->cap_l);
	if (!l || u64map_put(&s->lanes, key, s->n_l - 1) < 0)
		return NULL;
	memset(l, 0, sizeof(*l));
	l->pid = o->pid;
	l->last = INT64_MIN;
	return l;
}

/* Places op r shift earlier, behind its stream (model 2). */
static int place(struct sweep *s, uint32_t r, int64_t shift)
{
	if (s->placed[r])
		return 0;
	s->placed[r] = 1;
	struct op o = op_at(s, r);
	struct lane *l = lane_of(s, &o);
	if (!l)
		return -1;
	int64_t dur = *o.end - *o.start, oend = *o.end;
	int64_t start = *o.start - shift;
	if (start < l->last)
		start = l->last;
	*o.start = start;
	*o.end = start + dur;
	l->last = *o.end;
	struct ends *e = VEC_PUSH(l->e, l->n_e, l->cap_e);
	if (!e)
		return -1;
	*e = (struct ends){oend, *o.end};
	if (l->n_e > 1) {
		const struct ends *p = e - 1;
		e->o = p->o > e->o ? p->o : e->o;
		e->n = p->n > e->n ? p->n : e->n;
	}
	return 0;
}

/* The latest op of pid that had ended by t as recorded: its recorded and
 * new ends (INT64_MIN: none) over the process's streams (model 3). */
static void waited(const struct sweep *s, uint32_t pid, int64_t t, int64_t *o, int64_t *n)
{
	*o = *n = INT64_MIN;
	for (size_t i = 0; i < s->n_l; i++) {
		const struct lane *l = &s->l[i];
		if (l->pid != pid || !l->n_e || l->e[0].o > t)
			continue;
		size_t lo = 0, hi = l->n_e;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (l->e[mid].o <= t)
				lo = mid;
			else
				hi = mid;
		}
		*o = l->e[lo].o > *o ? l->e[lo].o : *o;
		*n = l->e[lo].n > *n ? l->e[lo].n : *n;
	}
}

/* 1 when API call i waits for the GPU: a synchronization, or a copy or
 * memset that returned after its op ended (as recorded: asked before the
 * sweep moves the ops). */
static int blocking(struct sweep *s, size_t i)
{
	const struct trace_api *p = &s->v->apis[i];
	if (p->end_ns <= p->start_ns)
		return 0; /* nothing to wait through (and its end would sort first) */
	if (p->kind == API_SYNC)
		return 1;
	if (p->kind != API_MEMCPY && p->kind != API_MEMSET)
		return 0;
	uint64_t r;
	if (!u64map_get(&s->first, (uint64_t)p->pid << 32 | p->correlation, &r))
		return 0;
	struct op o = op_at(s, (uint32_t)(r - 1));
	return *o.end <= p->end_ns;
}

/* the profiler's own host records: ops, Python functions and annotations
 * on a host thread (a GPU-side annotation is not one) */
static int host_record(const struct trace *t, const struct trace_range *r)
{
	return r->kind != RANGE_NVTX && strcmp(trace_str(t, r->domain_id), "gpu") != 0;
}

static int on_item(struct sweep *s, const struct item *it)
{
	struct trace *v = s->v;
	if (it->kind == IT_GPU) {
		/* an op whose launch is not in the trace: its process's shift now */
		struct op o = op_at(s, it->idx);
		uint64_t hi;
		int64_t shift = 0;
		if (u64map_get(&s->hosts, o.pid, &hi) && s->h[hi].started)
			shift = s->h[hi].t - s->h[hi].nt;
		return place(s, it->idx, shift);
	}
	uint32_t pid = it->kind == IT_RANGE ? v->ranges[it->idx].pid : v->apis[it->idx].pid;
	struct host *h = host_of(s, pid);
	if (!h || advance(s, h, it->t) < 0)
		return -1;
	if (it->kind == IT_RANGE) {
		h->debt += s->cost;
		s->st->events++;
		return 0;
	}
	const struct trace_api *p = &v->apis[it->idx];
	if (it->kind == IT_BLOCK_END) {
		if (h->block != it->idx)
			return 0;
		int64_t go, gn;
		waited(s, pid, p->end_ns, &go, &gn);
		int64_t tail = p->end_ns - (go > p->start_ns ? go : p->start_ns);
		int64_t end = (gn > h->block_nt ? gn : h->block_nt) + (tail > 0 ? tail : 0);
		/* invariant 2: never before a point fixed while it was blocked
		 * (advance just made the point of t, the last one) */
		int64_t floor = h->n_pts >= 2 ? h->pts[h->n_pts - 2].nt : h->block_nt;
		h->nt = end > floor ? end : floor;
		h->block = NONE;
		return point(h);
	}
	/* a CUDA call: its ops move with the host now */
	uint64_t r;
	if (u64map_get(&s->first, (uint64_t)p->pid << 32 | p->correlation, &r))
		for (uint32_t k = (uint32_t)(r - 1); k != NONE; k = s->next[k])
			if (place(s, k, h->t - h->nt) < 0)
				return -1;
	h->debt += s->cost;
	s->st->events++;
	if (h->block == NONE && s->blocks[it->idx]) {
		h->block = it->idx;
		h->block_nt = h->nt;
	}
	return 0;
}

/* The estimated time of host time t on pid's timeline (model 4). */
static int64_t map_host(const struct sweep *s, uint32_t pid, int64_t t)
{
	uint64_t i;
	if (!u64map_get(&s->hosts, pid, &i) || !s->h[i].n_pts)
		return t;
	const struct host *h = &s->h[i];
	const struct point *p = h->pts;
	size_t n = h->n_pts;
	if (t <= p[0].t)
		return t - (p[0].t - p[0].nt);
	if (t >= p[n - 1].t)
		return t - (p[n - 1].t - p[n - 1].nt);
	size_t lo = 0, hi = n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (p[mid].t <= t)
			lo = mid;
		else
			hi = mid;
	}
	int64_t dt = p[hi].t - p[lo].t;
	if (dt <= 0)
		return p[hi].nt;
	return p[lo].nt + (int64_t)((__int128)(t - p[lo].t) * (p[hi].nt - p[lo].nt) / dt);
}

static void map_span(const struct sweep *s, uint32_t pid, int64_t *start, int64_t *end)
{
	int64_t a = map_host(s, pid, *start), b = map_host(s, pid, *end);
	*start = a;
	*end = b > a ? b : a;
}

/* A GPU-side annotation on a stream: moved like the first kernel that
 * starts in it and the last one that ends in it on that stream (t: the
 * recorded trace, whose kernels are the view's in the same order). */
static void map_gpu_range(const struct trace *t, const struct trace *v, struct trace_range *r)
{
	size_t lo = 0, hi = t->n_kernels;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->kernels[mid].start_ns < r->start_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	int64_t ds = 0, de = 0;
	size_t i;
	for (i = lo; i < t->n_kernels && t->kernels[i].start_ns <= r->end_ns; i++)
		if (t->kernels[i].stream == r->tid && t->kernels[i].pid == r->pid) {
			ds = t->kernels[i].start_ns - v->kernels[i].start_ns;
			break;
		}
	for (size_t j = i; j < t->n_kernels && t->kernels[j].start_ns <= r->end_ns; j++)
		if (t->kernels[j].stream == r->tid && t->kernels[j].pid == r->pid &&
		    t->kernels[j].end_ns <= r->end_ns)
			de = t->kernels[j].end_ns - v->kernels[j].end_ns;
	r->start_ns -= ds;
	r->end_ns -= de;
	if (r->end_ns < r->start_ns)
		r->end_ns = r->start_ns;
}

static int cmp_item(const void *x, const void *y)
{
	const struct item *a = x, *b = y;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* what the view copies to move; the rest (strings, meta, devices, counters,
 * host frames and stacks, unified memory, ...) is shared with t unshifted */
#define UNPROFILE_OWNS                                                                             \
	(TRACE_OWN(kernels) | TRACE_OWN(copies) | TRACE_OWN(memsets) | TRACE_OWN(apis) |           \
	 TRACE_OWN(syncs) | TRACE_OWN(ranges) | TRACE_OWN(allocs) | TRACE_OWN(samples) |           \
	 TRACE_OWN(host_samples) | TRACE_OWN(host_sched) | TRACE_OWN(processes))

void an_unprofile_view_release(struct trace *v)
{
	trace_view_release(v, UNPROFILE_OWNS);
}

static int sweep_run(struct sweep *s, const struct trace *t)
{
	struct trace *v = s->v;
	size_t nops = s->nk + s->nc + s->nm;
	/* the ops of each launch, in start order */
	for (uint32_t k = nops; k-- > 0;) {
		struct op o = op_at(s, k);
		uint64_t key = (uint64_t)o.pid << 32 | o.corr, r;
		s->next[k] = u64map_get(&s->first, key, &r) ? (uint32_t)(r - 1) : NONE;
		if (u64map_put(&s->first, key, (uint64_t)k + 1) < 0)
			return -1;
	}
	struct u64map launched;
	if (u64map_init(&launched, v->n_apis) < 0)
		return -1;
	for (size_t i = 0; i < v->n_apis; i++)
		if (u64map_put(&launched, (uint64_t)v->apis[i].pid << 32 | v->apis[i].correlation,
			       1) < 0)
			goto oom_launched;
	struct item *it = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < v->n_ranges; i++) {
		if (!host_record(t, &v->ranges[i]))
			continue;
		struct item *x = VEC_PUSH(it, n, cap);
		if (!x)
			goto oom_items;
		*x = (struct item){v->ranges[i].start_ns, (uint32_t)i, IT_RANGE};
	}
	for (size_t i = 0; i < v->n_apis; i++) {
		struct item *x = VEC_PUSH(it, n, cap);
		if (!x)
			goto oom_items;
		*x = (struct item){v->apis[i].start_ns, (uint32_t)i, IT_API};
		if (!(s->blocks[i] = (unsigned char)blocking(s, i)))
			continue;
		if (!(x = VEC_PUSH(it, n, cap)))
			goto oom_items;
		*x = (struct item){v->apis[i].end_ns, (uint32_t)i, IT_BLOCK_END};
	}
	for (uint32_t k = 0; k < nops; k++) {
		struct op o = op_at(s, k);
		uint64_t one;
		if (u64map_get(&launched, (uint64_t)o.pid << 32 | o.corr, &one))
			continue;
		struct item *x = VEC_PUSH(it, n, cap);
		if (!x)
			goto oom_items;
		*x = (struct item){*o.start, k, IT_GPU};
	}
	u64map_release(&launched);
	if (n > 1)
		qsort(it, n, sizeof(*it), cmp_item);
	for (size_t i = 0; i < n; i++)
		if (on_item(s, &it[i]) < 0) {
			free(it);
			return -1;
		}
	free(it);
	return 0;
oom_items:
	free(it);
oom_launched:
	u64map_release(&launched);
	return -1;
}

/* Every host time of the view by its process's timeline; the blocking
 * calls' ends were fixed by the sweep (a point at each). */
static void map_rest(struct sweep *s, const struct trace *t)
{
	struct trace *v = s->v;
	for (size_t i = 0; i < v->n_apis; i++)
		map_span(s, v->apis[i].pid, &v->apis[i].start_ns, &v->apis[i].end_ns);
	for (size_t i = 0; i < v->n_syncs; i++)
		map_span(s, v->syncs[i].pid, &v->syncs[i].start_ns, &v->syncs[i].end_ns);
	for (size_t i = 0; i < v->n_allocs; i++)
		v->allocs[i].ts_ns = map_host(s, v->allocs[i].pid, v->allocs[i].ts_ns);
	for (size_t i = 0; i < v->n_host_samples; i++)
		v->host_samples[i].ts_ns =
		    map_host(s, v->host_samples[i].pid, v->host_samples[i].ts_ns);
	for (size_t i = 0; i < v->n_host_sched; i++)
		v->host_sched[i].ts_ns = map_host(s, v->host_sched[i].pid, v->host_sched[i].ts_ns);
	for (size_t i = 0; i < v->n_processes; i++)
		map_span(s, v->processes[i].pid, &v->processes[i].start_ns,
			 &v->processes[i].end_ns);
	for (size_t i = 0; i < v->n_ranges; i++) {
		struct trace_range *r = &v->ranges[i];
		if (!strcmp(trace_str(v, r->domain_id), "gpu"))
			map_gpu_range(t, v, r);
		else
			map_span(s, r->pid, &r->start_ns, &r->end_ns);
	}
}

int an_unprofile_view(struct trace *v, const struct trace *t, int64_t per_event_ns,
		      struct an_unprofile_stats *st, char *err)
{
	memset(st, 0, sizeof(*st));
	if (trace_view_copy(v, t, UNPROFILE_OWNS) < 0)
		return error_set(err, "out of memory");
	struct sweep s = {.v = v, .cost = per_event_ns, .st = st};
	s.nk = v->n_kernels, s.nc = v->n_copies, s.nm = v->n_memsets;
	size_t nops = s.nk + s.nc + s.nm;
	int rc = -1;
	s.next = malloc((nops ? nops : 1) * sizeof(*s.next));
	s.placed = calloc(nops ? nops : 1, 1);
	s.blocks = calloc(v->n_apis ? v->n_apis : 1, 1);
	if (s.next && s.placed && s.blocks && u64map_init(&s.hosts, 0) == 0 &&
	    u64map_init(&s.lanes, 0) == 0 && u64map_init(&s.first, nops) == 0 &&
	    sweep_run(&s, t) == 0)
		rc = 0;
	if (rc == 0)
		map_rest(&s, t);
	for (size_t i = 0; i < s.n_h; i++)
		free(s.h[i].pts);
	for (size_t i = 0; i < s.n_l; i++)
		free(s.l[i].e);
	free(s.h);
	free(s.l);
	free(s.next);
	free(s.placed);
	free(s.blocks);
	u64map_release(&s.hosts);
	u64map_release(&s.lanes);
	u64map_release(&s.first);
	if (rc < 0)
		goto oom;
	trace_sort(v);
	return 0;
oom:
	an_unprofile_view_release(v);
	return error_set(err, "out of memory");
}
