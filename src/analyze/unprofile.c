/*
 * unprofile.c - the view of a profiled trace without the profiler's own
 * host cost (unprofile.h): one sweep over the host's records, the GPU ops
 * placed as their launches come, then every other time mapped.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/unprofile.h"
#include "util/cpus.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/sort.h"
#include "util/timing.h"
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

/* A timeline's points as the map reads them (pack_points, after the
 * sweep): in blocks of PACK_BLOCK, each point's times as 32-bit offsets
 * from its block's first point, 8 bytes a point instead of 16 (1.98M
 * points, 30 MiB, were alive beside the view's ranges). A timeline where
 * some block spans more than 2^32 ns (4.3 s: a point every millisecond or
 * less, so few points) keeps its points as they are. */
#define PACK_SHIFT 12
#define PACK_BLOCK ((size_t)1 << PACK_SHIFT)
struct low {
	uint32_t t, nt; /* from the block's first point: never below it (checked) */
};

/* one process's host timeline */
struct host {
	uint32_t pid;
	int started;
	int64_t t, nt, debt;
	uint32_t block; /* the blocking call it is in, UINT32_MAX: none */
	int keep;	/* every point kept (the reference way) */
	int64_t block_nt;
	struct point *pts; /* while sweeping */
	size_t n_pts, cap_pts;
	struct low *low;     /* then packed (pts freed) */
	struct point *first; /* each block's first point */
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

/* the last domain asked of is_gpu, and its answer (-1: none asked) */
struct dom {
	uint32_t id;
	int gpu;
};

struct sweep {
	struct trace *v;
	const struct trace *t; /* the recorded trace: the sweep reads its host rows (the view's
				  are written after, by map_rest) */
	int64_t cost;
	size_t nk, nc, nm;
	struct host *h;
	size_t n_h, cap_h;
	struct u64map hosts; /* pid -> index into h */
	struct lane *l;
	size_t n_l, cap_l;
	struct u64map lanes; /* device << 32 | stream -> index into l */
	struct u64map first; /* pid << 32 | correlation -> first op ref + 1 (chains_hashed) */
	uint32_t *next;	     /* the next op of the same launch, UINT32_MAX: none */
	uint32_t *api_op;    /* per API call: its first op (ref), UINT32_MAX: none */
	unsigned char *placed;
	unsigned char *blocks; /* per API call: it waits for the GPU (as recorded) */
	uint32_t last_pid;     /* host_of's last answer, while n_h > last_h */
	size_t last_h;
	struct dom dom;
	int reference; /* an_unprofile_view_opt's reference way */
	struct an_unprofile_stats *st;
	const int *cancel; /* an_unprofile_view_until's: read between steps */
};

/* 1 when the view is no longer wanted (an_unprofile_view_until) */
static int cancelled(const struct sweep *s)
{
	return s->cancel && __atomic_load_n(s->cancel, __ATOMIC_RELAXED);
}

#define NONE UINT32_MAX
/* the sweep reads the cancel flag every this many + 1 items (a few ms) */
#define CANCEL_EVERY 0xffffu

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
	if (s->last_h < s->n_h && s->last_pid == pid)
		return &s->h[s->last_h];
	if (u64map_get(&s->hosts, pid, &i)) {
		s->last_pid = pid, s->last_h = i;
		return &s->h[i];
	}
	struct host *h = VEC_PUSH(s->h, s->n_h, s->cap_h);
	if (!h || u64map_put(&s->hosts, pid, s->n_h - 1) < 0)
		return NULL;
	memset(h, 0, sizeof(*h));
	h->pid = pid;
	h->block = NONE;
	h->keep = s->reference;
	return h;
}

/* p[1] lies on the line from p[0] to p[2] with a slope of 0 or 1, where
 * map_host's interpolation gives the same numbers without it */
static int redundant(const struct point *p)
{
	if (p[0].nt == p[1].nt && p[1].nt == p[2].nt)
		return 1;
	return p[1].t - p[0].t == p[1].nt - p[0].nt && p[2].t - p[1].t == p[2].nt - p[1].nt;
}

/* A new point, or the last one moved when it is at the same time. The
 * last two points stay as they are (the last may still move, and a
 * blocking call's end reads the one before it); the one before those goes
 * when it is redundant, which keeps the points of a process to where its
 * slope changes (most records fall in runs of one slope). */
static int point(struct host *h)
{
	if (h->n_pts && h->pts[h->n_pts - 1].t == h->t) {
		h->pts[h->n_pts - 1].nt = h->nt;
		return 0;
	}
	if (!h->keep && h->n_pts >= 3 && redundant(&h->pts[h->n_pts - 3])) {
		h->pts[h->n_pts - 2] = h->pts[h->n_pts - 1];
		h->pts[h->n_pts - 1] = (struct point){h->t, h->nt};
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
	const struct trace_api *p = &s->t->apis[i];
	if (p->end_ns <= p->start_ns)
		return 0; /* nothing to wait through (and its end would sort first) */
	if (p->kind == API_SYNC)
		return 1;
	if (p->kind != API_MEMCPY && p->kind != API_MEMSET)
		return 0;
	if (s->api_op[i] == NONE)
		return 0;
	struct op o = op_at(s, s->api_op[i]);
	return *o.end <= p->end_ns;
}

/* a range of the domain "gpu" (a GPU-side annotation); asked once per
 * run of one domain */
static int is_gpu(struct dom *d, const struct trace *t, uint32_t domain_id)
{
	if (domain_id != d->id || d->gpu < 0) {
		d->id = domain_id;
		d->gpu = strcmp(trace_str(t, domain_id), "gpu") == 0;
	}
	return d->gpu;
}

/* the profiler's own host records: ops, Python functions and annotations
 * on a host thread (a GPU-side annotation is not one) */
static int host_record(struct sweep *s, const struct trace *t, const struct trace_range *r)
{
	return r->kind != RANGE_NVTX && !is_gpu(&s->dom, t, r->domain_id);
}

static int on_item(struct sweep *s, const struct item *it)
{
	if (it->kind == IT_GPU) {
		/* an op whose launch is not in the trace: its process's shift now */
		struct op o = op_at(s, it->idx);
		uint64_t hi;
		int64_t shift = 0;
		if (u64map_get(&s->hosts, o.pid, &hi) && s->h[hi].started)
			shift = s->h[hi].t - s->h[hi].nt;
		return place(s, it->idx, shift);
	}
	const struct trace *t = s->t;
	uint32_t pid =
	    it->kind == IT_RANGE ? trace_range_row(t, it->idx)->pid : t->apis[it->idx].pid;
	struct host *h = host_of(s, pid);
	if (!h || advance(s, h, it->t) < 0)
		return -1;
	if (it->kind == IT_RANGE) {
		h->debt += s->cost;
		s->st->events++;
		return 0;
	}
	const struct trace_api *p = &t->apis[it->idx];
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
	for (uint32_t k = s->api_op[it->idx]; k != NONE; k = s->next[k])
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

static int cmp_item(const void *x, const void *y)
{
	const struct item *a = x, *b = y;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The next host record at or after range i (n_ranges: none). */
static size_t next_record(struct sweep *s, const struct trace *t, size_t i)
{
	for (; i < t->n_ranges; i++) {
		if (host_record(s, t, trace_range_row(t, i)))
			break;
	}
	return i;
}

/* The sweep's items in (time, kind, index) order, as a sort of them all
 * would give: the ranges and the calls are sorted by start already (the
 * trace is), so only the few blocking calls' ends and the GPU ops without
 * a launch are sorted, and the four lists are merged as the sweep goes. */
static int sweep_items(struct sweep *s, const struct trace *t, struct item *few, size_t n_end,
		       size_t n_few)
{
	size_t r = next_record(s, t, 0), c = 0, e = 0, g = n_end;
	struct item head[4];
	for (uint32_t tick = 1;; tick++) {
		if (!(tick & CANCEL_EVERY) && cancelled(s))
			return 1;
		const struct item *best = NULL;
		size_t n = 0;
		if (e < n_end)
			head[n++] = few[e];
		if (r < t->n_ranges)
			head[n++] = (struct item){trace_range_start(t, r), (uint32_t)r, IT_RANGE};
		if (c < t->n_apis)
			head[n++] = (struct item){t->apis[c].start_ns, (uint32_t)c, IT_API};
		if (g < n_few)
			head[n++] = few[g];
		for (size_t k = 0; k < n; k++)
			if (!best || cmp_item(&head[k], best) < 0)
				best = &head[k];
		if (!best)
			return 0;
		if (on_item(s, best) < 0)
			return -1;
		switch (best->kind) {
		case IT_BLOCK_END:
			e++;
			break;
		case IT_RANGE:
			r = next_record(s, t, r + 1);
			break;
		case IT_API:
			c++;
			break;
		default:
			g++;
			break;
		}
	}
}

/* The reference way: every item in one array, sorted. */
static int sweep_sorted(struct sweep *s, const struct trace *t, const struct item *few,
			size_t n_few)
{
	struct item *it = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < t->n_ranges + t->n_apis + n_few; i++) {
		struct trace_range r =
		    i < t->n_ranges ? trace_range_at(t, i) : (struct trace_range){0};
		if (i < t->n_ranges && !host_record(s, t, &r))
			continue;
		struct item *x = VEC_PUSH(it, n, cap);
		if (!x) {
			free(it);
			return -1;
		}
		size_t c = i - t->n_ranges;
		*x = i < t->n_ranges ? (struct item){r.start_ns, (uint32_t)i, IT_RANGE}
		     : c < t->n_apis ? (struct item){t->apis[c].start_ns, (uint32_t)c, IT_API}
				     : few[c - t->n_apis];
	}
	if (n > 1)
		qsort(it, n, sizeof(*it), cmp_item);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = on_item(s, &it[i]);
	free(it);
	return rc;
}

/* The ops of each launch by the hash table of (pid, correlation): next[k]
 * the next op of k's key, api_op[i] the first of call i's (in op order).
 * Any traces; the reference way's. */
static int chains_hashed(struct sweep *s, const struct trace *t)
{
	size_t nops = s->nk + s->nc + s->nm;
	if (u64map_init(&s->first, nops) < 0)
		return -1;
	for (uint32_t k = nops; k-- > 0;) {
		struct op o = op_at(s, k);
		uint64_t key = (uint64_t)o.pid << 32 | o.corr, r;
		s->next[k] = u64map_get(&s->first, key, &r) ? (uint32_t)(r - 1) : NONE;
		if (u64map_put(&s->first, key, (uint64_t)k + 1) < 0)
			return -1;
	}
	for (size_t i = 0; i < t->n_apis; i++) {
		uint64_t r;
		s->api_op[i] =
		    u64map_get(&s->first, (uint64_t)t->apis[i].pid << 32 | t->apis[i].correlation,
			       &r)
			? (uint32_t)(r - 1)
			: NONE;
	}
	return 0;
}

/* chains_bucketed's largest bucket (the ops of one launch share one) */
#define CHAIN_BUCKET_MAX 64

/* The same chains when every op is of one process: the ops in buckets of
 * correlation >> shift (about one op each; the 300k ops of a 1 GB trace
 * over ids up to 6.3M), each in op order, so the first op of an id is its
 * bucket's first of that id and the next one follows it there. The hash
 * table's 17 MiB of probes anywhere cost a third of the sweep. 1 when
 * made, 0 when the ops are of several processes or a bucket would pass
 * CHAIN_BUCKET_MAX (chains_hashed's turn), -1 out of memory. */
static int chains_bucketed(struct sweep *s, const struct trace *t)
{
	size_t nops = s->nk + s->nc + s->nm;
	if (!nops)
		return 0;
	uint32_t pid = op_at(s, 0).pid, maxc = 0;
	for (uint32_t k = 0; k < nops; k++) {
		struct op o = op_at(s, k);
		if (o.pid != pid)
			return 0;
		maxc = o.corr > maxc ? o.corr : maxc;
	}
	unsigned sh = 0;
	while (((size_t)maxc >> sh) + 1 > nops)
		sh++;
	size_t nb = ((size_t)maxc >> sh) + 1;
	uint32_t *ix = calloc(nb + 1, sizeof(*ix)), *ops = malloc(nops * sizeof(*ops));
	int rc = 0;
	if (!ix || !ops) {
		rc = -1;
		goto out;
	}
	for (uint32_t k = 0; k < nops; k++)
		ix[(op_at(s, k).corr >> sh) + 1]++;
	for (size_t b = 1; b <= nb; b++) {
		if (ix[b] > CHAIN_BUCKET_MAX)
			goto out;
		ix[b] += ix[b - 1];
	}
	/* ix[b]: bucket b's next slot while placing, then (moved up one) its start */
	for (uint32_t k = 0; k < nops; k++)
		ops[ix[op_at(s, k).corr >> sh]++] = k;
	memmove(ix + 1, ix, nb * sizeof(*ix));
	ix[0] = 0;
	for (size_t b = 0; b < nb; b++)
		for (uint32_t x = ix[b]; x < ix[b + 1]; x++) {
			uint32_t c = op_at(s, ops[x]).corr, y = x + 1;
			while (y < ix[b + 1] && op_at(s, ops[y]).corr != c)
				y++;
			s->next[ops[x]] = y < ix[b + 1] ? ops[y] : NONE;
		}
	for (size_t i = 0; i < t->n_apis; i++) {
		uint32_t c = t->apis[i].correlation;
		size_t b = c >> sh;
		s->api_op[i] = NONE;
		if (t->apis[i].pid != pid || b >= nb)
			continue;
		for (uint32_t x = ix[b]; x < ix[b + 1]; x++)
			if (op_at(s, ops[x]).corr == c) {
				s->api_op[i] = ops[x];
				break;
			}
	}
	rc = 1;
out:
	free(ix);
	free(ops);
	return rc;
}

static int sweep_run(struct sweep *s, const struct trace *t)
{
	size_t nops = s->nk + s->nc + s->nm;
	/* the ops of each launch, in start order */
	int made = s->reference ? 0 : chains_bucketed(s, t);
	if (made < 0 || (!made && chains_hashed(s, t) < 0))
		return -1;
	/* each call's ops (then launched), the blocking calls' ends */
	struct item *few = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < t->n_apis; i++) {
		for (uint32_t k = s->api_op[i]; k != NONE && !s->placed[k]; k = s->next[k])
			s->placed[k] = 1; /* launched: not an item of its own */
		if (!(s->blocks[i] = (unsigned char)blocking(s, i)))
			continue;
		struct item *x = VEC_PUSH(few, n, cap);
		if (!x)
			goto oom;
		*x = (struct item){t->apis[i].end_ns, (uint32_t)i, IT_BLOCK_END};
	}
	size_t n_end = n;
	for (uint32_t k = 0; k < nops; k++) {
		if (s->placed[k])
			continue;
		struct op o = op_at(s, k);
		struct item *x = VEC_PUSH(few, n, cap);
		if (!x)
			goto oom;
		*x = (struct item){*o.start, k, IT_GPU};
	}
	memset(s->placed, 0, nops ? nops : 1);
	if (n_end > 1)
		qsort(few, n_end, sizeof(*few), cmp_item);
	if (n - n_end > 1)
		qsort(few + n_end, n - n_end, sizeof(*few), cmp_item);
	int rc = s->reference ? sweep_sorted(s, t, few, n) : sweep_items(s, t, few, n_end, n);
	free(few);
	return rc;
oom:
	free(few);
	return -1;
}

/* a thread's last process looked up by map_host, and where its last
 * time fell among the points */
struct look {
	uint32_t pid;
	int any;
	const struct host *h; /* NULL: the process has no timeline */
	size_t at;
};

/* h's points packed (struct low) when every block fits: 0, or -1 when
 * out of memory (h as it was) */
static int pack_points(struct host *h)
{
	size_t nb = (h->n_pts + PACK_BLOCK - 1) >> PACK_SHIFT;
	for (size_t i = 0; i < h->n_pts; i++) {
		const struct point *p = &h->pts[i], *f = &h->pts[i & ~(PACK_BLOCK - 1)];
		if (p->t < f->t || p->nt < f->nt || (uint64_t)(p->t - f->t) > UINT32_MAX ||
		    (uint64_t)(p->nt - f->nt) > UINT32_MAX)
			return 0;
	}
	struct low *low = malloc((h->n_pts ? h->n_pts : 1) * sizeof(*low));
	struct point *first = malloc((nb ? nb : 1) * sizeof(*first));
	if (!low || !first) {
		free(low);
		free(first);
		return -1;
	}
	for (size_t i = 0; i < h->n_pts; i++) {
		const struct point *p = &h->pts[i];
		if (!(i & (PACK_BLOCK - 1)))
			first[i >> PACK_SHIFT] = *p;
		const struct point *f = &first[i >> PACK_SHIFT];
		low[i] = (struct low){(uint32_t)(p->t - f->t), (uint32_t)(p->nt - f->nt)};
	}
	free(h->pts);
	h->pts = NULL;
	h->low = low;
	h->first = first;
	return 0;
}

/* point i of a timeline, packed or not */
static inline struct point pt(const struct host *h, size_t i)
{
	if (!h->low)
		return h->pts[i];
	const struct point *f = &h->first[i >> PACK_SHIFT];
	return (struct point){f->t + h->low[i].t, f->nt + h->low[i].nt};
}

/* The estimated time of host time t on pid's timeline (model 4); *at: a
 * point to search from (the rows come in time order, so the point is
 * usually near), then the point at or before t. */
static int64_t map_host_at(const struct sweep *s, struct look *c, uint32_t pid, int64_t t,
			   size_t *at)
{
	if (!c->any || c->pid != pid) {
		uint64_t i;
		c->any = 1, c->pid = pid, c->at = 0;
		c->h = u64map_get(&s->hosts, pid, &i) && s->h[i].n_pts ? &s->h[i] : NULL;
		*at = 0;
	}
	if (!c->h)
		return t;
	const struct host *h = c->h;
	size_t n = h->n_pts;
	struct point first = pt(h, 0), last = pt(h, n - 1);
	if (t <= first.t)
		return t - (first.t - first.nt);
	if (t >= last.t)
		return t - (last.t - last.nt);
	/* p[lo].t <= t < p[hi].t, galloping from *at, then halving: the same
	 * lo as a search of all the points (their times are distinct) */
	size_t lo = 0, hi = n - 1, x = *at < n - 1 ? *at : 0, step = 1;
	if (s->reference) {
		/* a search of all the points */
	} else if (pt(h, x).t <= t) {
		lo = x;
		while (lo + step < n - 1 && pt(h, lo + step).t <= t)
			lo += step, step *= 2;
		hi = lo + step < n - 1 ? lo + step : n - 1;
	} else {
		hi = x; /* a time before the last one's: halving from the first point */
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (pt(h, mid).t <= t)
			lo = mid;
		else
			hi = mid;
	}
	*at = lo;
	struct point pl = pt(h, lo), ph = pt(h, hi);
	int64_t dt = ph.t - pl.t;
	if (dt <= 0)
		return ph.nt;
	/* the product in 64 bits where it fits (the same quotient; a 128-bit
	 * division, __divti3, was a third of the map's samples) */
	int64_t dx = t - pl.t, dy = ph.nt - pl.nt, prod;
	if (!__builtin_mul_overflow(dx, dy, &prod))
		return pl.nt + prod / dt;
	return pl.nt + (int64_t)((__int128)dx * dy / dt);
}

static int64_t map_host(const struct sweep *s, struct look *c, uint32_t pid, int64_t t)
{
	return map_host_at(s, c, pid, t, &c->at);
}

/* a span: its start from the last row's, its end from its start */
static void map_span(const struct sweep *s, struct look *c, uint32_t pid, int64_t *start,
		     int64_t *end)
{
	int64_t a = map_host(s, c, pid, *start);
	size_t from = c->at;
	int64_t b = map_host_at(s, c, pid, *end, &from);
	*start = a;
	*end = b > a ? b : a;
}

/* A GPU-side annotation on a stream: moved like the first kernel that
 * starts in it and the last one that ends in it on that stream (t: the
 * recorded trace, whose kernels are the view's in the same order); r is
 * t's row, *out its new times. */
static void map_gpu_range(const struct trace *t, const struct trace *v, const struct trace_range *r,
			  struct trace_span *out)
{
	int64_t ds = 0, de = 0;
	size_t i;
	for (i = trace_first_kernel_from(t, r->start_ns);
	     i < t->n_kernels && t->kernels[i].start_ns <= r->end_ns; i++)
		if (t->kernels[i].stream == r->tid && t->kernels[i].pid == r->pid) {
			ds = t->kernels[i].start_ns - v->kernels[i].start_ns;
			break;
		}
	for (size_t j = i; j < t->n_kernels && t->kernels[j].start_ns <= r->end_ns; j++)
		if (t->kernels[j].stream == r->tid && t->kernels[j].pid == r->pid &&
		    t->kernels[j].end_ns <= r->end_ns)
			de = t->kernels[j].end_ns - v->kernels[j].end_ns;
	out->start_ns = r->start_ns - ds;
	out->end_ns = r->end_ns - de;
	if (out->end_ns < out->start_ns)
		out->end_ns = out->start_ns;
}

/* what the view copies to move; the rest (strings, meta, devices, counters,
 * host frames and stacks, unified memory, ...) is shared with t unshifted.
 * The GPU arrays are copied before the sweep, which moves their rows; the
 * host arrays are made after it, when its scratch is freed, each row
 * copied and mapped at once (map_piece). The ranges (2.3M, 88 MiB of rows
 * in a 1 GB trace) are t's rows seen through the view's own order, starts
 * and lengths (trace.h: range_order, range_start, range_len; 16 of their
 * 40 bytes). */
#define UNPROFILE_GPU                                                                              \
	(TRACE_OWN(kernels) | TRACE_OWN(copies) | TRACE_OWN(memsets) | TRACE_OWN(samples))
/* the host arrays, which map_rest maps (ranges: their times) */
#define MAPPED(X) X(apis) X(syncs) X(allocs) X(host_samples) X(host_sched) X(processes) X(ranges)
#define COPIED(X) X(apis) X(syncs) X(allocs) X(host_samples) X(host_sched) X(processes)
#define OWN_BIT(name) | TRACE_OWN(name)
#define UNPROFILE_HOST (0 COPIED(OWN_BIT))
#define UNPROFILE_OWNS (UNPROFILE_GPU | UNPROFILE_HOST)

/* the ranges' new times as the view keeps them (trace.h), while made */
struct times {
	int64_t *start;
	uint32_t *len;
	struct trace_long_end *lng; /* sorted by k once mapped */
	size_t n_lng, cap_lng;
	pthread_mutex_t lock; /* lng, while the map's threads add to it */
	int oom;
};

void an_unprofile_view_release(struct trace *v)
{
	free((void *)v->range_order);
	free((void *)v->range_start);
	free((void *)v->range_len);
	free((void *)v->range_long);
	trace_view_release(v, UNPROFILE_OWNS);
}

/* range k's new times into x: a length, or beyond 2^32 - 2 ns, an end
 * kept apart (few: a process-long annotation) */
static void times_put(struct times *x, size_t k, struct trace_span sp)
{
	x->start[k] = sp.start_ns;
	if ((uint64_t)(sp.end_ns - sp.start_ns) < TRACE_LEN_LONG) {
		x->len[k] = (uint32_t)(sp.end_ns - sp.start_ns);
		return;
	}
	x->len[k] = TRACE_LEN_LONG;
	pthread_mutex_lock(&x->lock);
	struct trace_long_end *e = VEC_PUSH(x->lng, x->n_lng, x->cap_lng);
	if (e)
		*e = (struct trace_long_end){k, sp.end_ns};
	else
		x->oom = 1;
	pthread_mutex_unlock(&x->lock);
}

/* range k's new end (x->lng sorted) */
static int64_t times_end(const struct times *x, size_t k)
{
	if (x->len[k] != TRACE_LEN_LONG)
		return x->start[k] + x->len[k];
	return x->lng[trace_long_lower(x->lng, x->n_lng, k)].end_ns;
}

/* the arrays map_rest maps, in pieces of MAP_PIECE rows */
enum {
#define M_ID(name) M_##name,
	MAPPED(M_ID)
#undef M_ID
	    M_N
};
#define MAP_PIECE 16384
/* below this many rows map_rest stays on the calling thread */
#define MAP_ALONE 65536
#define MAP_MAX_THREADS 64

struct map_job {
	struct sweep *s;
	const struct trace *t;
	struct times *times;   /* the ranges' new times, in t's order */
	size_t first[M_N + 1]; /* the first piece of each array */
	atomic_size_t next;
};

static size_t map_rows(const struct trace *v, int m)
{
	switch (m) {
#define ROWS(name)                                                                                 \
	case M_##name:                                                                             \
		return v->n_##name;
		MAPPED(ROWS)
#undef ROWS
	}
	return 0;
}

/* t's rows lo..hi of array m into the view's (the ranges: their times
 * into x), mapped by their processes' timelines */
static void map_piece(struct sweep *s, const struct trace *t, struct times *x, int m, size_t lo,
		      size_t hi)
{
	struct trace *v = s->v;
	struct look c = {0};
	struct dom d = {0, -1};
	switch (m) {
#define COPY_ROWS(name)                                                                            \
	case M_##name:                                                                             \
		memcpy(v->name + lo, t->name + lo, (hi - lo) * sizeof(*v->name));                  \
		break;
		COPIED(COPY_ROWS)
#undef COPY_ROWS
	}
	for (size_t i = lo; i < hi; i++)
		switch (m) {
		case M_apis:
			map_span(s, &c, v->apis[i].pid, &v->apis[i].start_ns, &v->apis[i].end_ns);
			break;
		case M_syncs:
			map_span(s, &c, v->syncs[i].pid, &v->syncs[i].start_ns,
				 &v->syncs[i].end_ns);
			break;
		case M_allocs:
			v->allocs[i].ts_ns = map_host(s, &c, v->allocs[i].pid, v->allocs[i].ts_ns);
			break;
		case M_host_samples:
			v->host_samples[i].ts_ns =
			    map_host(s, &c, v->host_samples[i].pid, v->host_samples[i].ts_ns);
			break;
		case M_host_sched:
			v->host_sched[i].ts_ns =
			    map_host(s, &c, v->host_sched[i].pid, v->host_sched[i].ts_ns);
			break;
		case M_processes:
			map_span(s, &c, v->processes[i].pid, &v->processes[i].start_ns,
				 &v->processes[i].end_ns);
			break;
		default: {
			const struct trace_range row = trace_range_at(t, i), *r = &row;
			struct trace_span sp = {r->start_ns, r->end_ns};
			if (is_gpu(&d, t, r->domain_id))
				map_gpu_range(t, v, r, &sp);
			else
				map_span(s, &c, r->pid, &sp.start_ns, &sp.end_ns);
			times_put(x, i, sp);
		}
		}
}

static void *map_thread(void *arg)
{
	struct map_job *j = arg;
	for (;;) {
		size_t k = atomic_fetch_add(&j->next, 1);
		if (k >= j->first[M_N] || cancelled(j->s))
			return NULL; /* (cancelled: view() gives up what was mapped) */
		int m = 0;
		while (k >= j->first[m + 1])
			m++;
		size_t lo = (k - j->first[m]) * MAP_PIECE, n = map_rows(j->s->v, m);
		map_piece(j->s, j->t, j->times, m, lo, lo + MAP_PIECE < n ? lo + MAP_PIECE : n);
	}
}

/* Every host time of the view by its process's timeline; the blocking
 * calls' ends were fixed by the sweep (a point at each). Each row on its
 * own (the sweep's results are only read), so in pieces on every CPU. */
static void map_rest(struct sweep *s, const struct trace *t, struct times *x)
{
	struct map_job j = {.s = s, .t = t, .times = x};
	size_t rows = 0;
	for (int m = 0; m < M_N; m++) {
		size_t n = map_rows(s->v, m);
		rows += n;
		j.first[m + 1] = j.first[m] + (n + MAP_PIECE - 1) / MAP_PIECE;
	}
	atomic_init(&j.next, 0);
	int cpus = rows >= MAP_ALONE && !s->reference ? gs_cpu_count() : 1;
	pthread_t th[MAP_MAX_THREADS];
	size_t more = 0;
	while (more + 1 < j.first[M_N] && (int)more + 1 < cpus && more < MAP_MAX_THREADS &&
	       pthread_create(&th[more], NULL, map_thread, &j) == 0)
		more++;
	map_thread(&j);
	for (size_t k = 0; k < more; k++)
		pthread_join(th[k], NULL);
}

static int cmp_span(const void *x, const void *y, void *arg)
{
	(void)arg;
	const int64_t *a = x, *b = y;
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return a[1] < b[1] ? -1 : a[1] > b[1];
}

static int cmp_ts(const void *x, const void *y, void *arg)
{
	(void)arg;
	const int64_t *a = x, *b = y;
	return a[0] < b[0] ? -1 : a[0] > b[0];
}

#define SORT_VIEW(arr, n, cmp)                                                                     \
	do {                                                                                       \
		if ((n) > 1)                                                                       \
			(void)sort_stable((arr), (n), sizeof(*(arr)), cmp, NULL);                  \
	} while (0)

/* the ranges' order by their new times (x: t's order) */
static int cmp_at(const void *a, const void *b, void *arg)
{
	const struct times *x = arg;
	size_t i = *(const uint32_t *)a, k = *(const uint32_t *)b;
	if (x->start[i] != x->start[k])
		return x->start[i] < x->start[k] ? -1 : 1;
	int64_t ei = times_end(x, i), ek = times_end(x, k);
	return ei < ek ? -1 : ei > ek;
}

/* x's starts and lengths: [i] becomes [order[i]] as it was, along the
 * permutation's cycles (no second array); 0, or -1 when out of memory */
static int permute(struct times *x, const uint32_t *order, size_t n)
{
	unsigned char *done = calloc(n / 8 + 1, 1);
	if (!done)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (done[i / 8] >> (i % 8) & 1)
			continue;
		int64_t s0 = x->start[i];
		uint32_t l0 = x->len[i];
		for (size_t j = i;;) {
			done[j / 8] |= (unsigned char)(1u << (j % 8));
			size_t k = order[j];
			if (k == i) {
				x->start[j] = s0, x->len[j] = l0;
				break;
			}
			x->start[j] = x->start[k], x->len[j] = x->len[k];
			j = k;
		}
	}
	free(done);
	return 0;
}

/* after permute: the long ranges' ends by their places in the view */
static int rekey_long(struct times *x, const uint32_t *order, size_t n)
{
	if (!x->n_lng)
		return 0;
	struct trace_long_end *by_view = malloc(x->n_lng * sizeof(*by_view));
	if (!by_view)
		return -1;
	size_t m = 0;
	for (size_t k = 0; k < n && m < x->n_lng; k++)
		if (x->len[k] == TRACE_LEN_LONG) {
			size_t at = trace_long_lower(x->lng, x->n_lng, order[k]); /* among t's */
			by_view[m++] = (struct trace_long_end){k, x->lng[at].end_ns};
		}
	free(x->lng);
	x->lng = by_view;
	x->cap_lng = x->n_lng;
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	size_t i = ((const struct trace_long_end *)a)->k, k = ((const struct trace_long_end *)b)->k;
	return i < k ? -1 : i > k;
}

struct host_sort {
	struct trace *v;
	uint32_t *order;
	struct times *times;
	int two; /* the ranges' order on two threads */
	int rc;
};

/* trace_sort's order (a stable sort by the same keys: glibc's qsort is a
 * merge sort), the ranges beside the other arrays; the ranges' rows stay
 * where t has them, their order and times sorted instead */
static void *sort_host(void *arg)
{
	struct host_sort *h = arg;
	struct trace *v = h->v;
	for (size_t i = 0; i < v->n_ranges; i++)
		h->order[i] = (uint32_t)i;
	if (h->times->n_lng > 1) /* the map's threads added them in any order */
		qsort(h->times->lng, h->times->n_lng, sizeof(*h->times->lng), cmp_long);
	if (v->n_ranges > 1 &&
	    ((h->two ? sort_stable_two : sort_stable)(h->order, v->n_ranges, sizeof(*h->order),
						      cmp_at, h->times) < 0 ||
	     permute(h->times, h->order, v->n_ranges) < 0 ||
	     rekey_long(h->times, h->order, v->n_ranges) < 0))
		h->rc = -1;
	SORT_VIEW(v->allocs, v->n_allocs, cmp_ts);
	SORT_VIEW(v->host_samples, v->n_host_samples, cmp_ts);
	SORT_VIEW(v->host_sched, v->n_host_sched, cmp_ts);
	return NULL;
}

/* The view in trace_sort's order: on several CPUs the ranges' order (2.3M
 * in a 1 GB trace, the longest part) on two threads, the other arrays on
 * this one meanwhile */
static int sort_view(struct trace *v, uint32_t *order, struct times *x)
{
	int cpus = v->n_apis + v->n_ranges >= MAP_ALONE ? gs_cpu_count() : 1;
	struct host_sort h = {v, order, x, cpus > 1, 0};
	pthread_t th;
	int two = cpus > 1 && pthread_create(&th, NULL, sort_host, &h) == 0;
	SORT_VIEW(v->apis, v->n_apis, cmp_span);
	SORT_VIEW(v->syncs, v->n_syncs, cmp_span);
	SORT_VIEW(v->kernels, v->n_kernels, cmp_span);
	SORT_VIEW(v->copies, v->n_copies, cmp_span);
	SORT_VIEW(v->memsets, v->n_memsets, cmp_span);
	SORT_VIEW(v->uvm, v->n_uvm, cmp_span);
	SORT_VIEW(v->samples, v->n_samples, cmp_ts);
	if (two)
		pthread_join(th, NULL);
	else
		sort_host(&h);
	return h.rc;
}

int an_unprofile_view(struct trace *v, const struct trace *t, int64_t per_event_ns,
		      struct an_unprofile_stats *st, char *err)
{
	return an_unprofile_view_opt(v, t, per_event_ns, 0, st, err);
}

/* the sweep's scratch, all but the host timelines map_rest reads */
static void sweep_scratch_release(struct sweep *s)
{
	for (size_t i = 0; i < s->n_l; i++)
		free(s->l[i].e);
	free(s->l);
	s->l = NULL, s->n_l = 0;
	free(s->next);
	free(s->placed);
	free(s->blocks);
	free(s->api_op);
	s->next = s->api_op = NULL;
	s->placed = s->blocks = NULL;
	u64map_release(&s->lanes);
	u64map_release(&s->first);
}

static int view(struct trace *v, const struct trace *t, int64_t per_event_ns, int reference,
		const int *cancel, struct an_unprofile_stats *st, char *err);

int an_unprofile_view_opt(struct trace *v, const struct trace *t, int64_t per_event_ns,
			  int reference, struct an_unprofile_stats *st, char *err)
{
	return view(v, t, per_event_ns, reference, NULL, st, err);
}

int an_unprofile_view_until(struct trace *v, const struct trace *t, int64_t per_event_ns,
			    const int *cancel, struct an_unprofile_stats *st, char *err)
{
	return view(v, t, per_event_ns, 0, cancel, st, err);
}

/* 0, 1 when cancelled, -1 with err (v released unless 0) */
static int view(struct trace *v, const struct trace *t, int64_t per_event_ns, int reference,
		const int *cancel, struct an_unprofile_stats *st, char *err)
{
	memset(st, 0, sizeof(*st));
	/* GPUSCOPE_TIMING=passes: the steps' ends (copy, sweep, map, sort) */
	struct timing_mark m[5];
	timing_now(&m[0], 1);
	if (trace_view_copy(v, t, UNPROFILE_GPU) < 0)
		return error_set(err, "out of memory");
	timing_now(&m[1], 1);
	struct sweep s = {.v = v,
			  .t = t,
			  .cost = per_event_ns,
			  .reference = reference,
			  .st = st,
			  .cancel = cancel};
	s.nk = v->n_kernels, s.nc = v->n_copies, s.nm = v->n_memsets;
	size_t nops = s.nk + s.nc + s.nm;
	int rc = -1;
	s.next = malloc((nops ? nops : 1) * sizeof(*s.next));
	s.placed = calloc(nops ? nops : 1, 1);
	s.api_op = malloc((t->n_apis ? t->n_apis : 1) * sizeof(*s.api_op));
	s.dom.gpu = -1;
	s.blocks = calloc(t->n_apis ? t->n_apis : 1, 1);
	if (s.next && s.placed && s.blocks && s.api_op && u64map_init(&s.hosts, 0) == 0 &&
	    u64map_init(&s.lanes, 0) == 0)
		rc = cancelled(&s) ? 1 : sweep_run(&s, t); /* 1: cancelled */
	sweep_scratch_release(&s);
	timing_now(&m[2], 1);
	/* (a failed trace_view_alloc released v: the release below frees nothing) */
	struct times x = {.lock = PTHREAD_MUTEX_INITIALIZER};
	uint32_t *order = NULL;
	size_t nr = t->n_ranges ? t->n_ranges : 1;
	uint32_t owns = UNPROFILE_GPU;
	for (size_t i = 0; rc == 0 && i < s.n_h; i++)
		rc = pack_points(&s.h[i]);
	if (rc == 0 && cancelled(&s))
		rc = 1;
	if (rc == 0 && (rc = trace_view_alloc(v, t, UNPROFILE_GPU, UNPROFILE_HOST)) == 0) {
		owns = UNPROFILE_OWNS;
		x.start = malloc(nr * sizeof(*x.start));
		x.len = malloc(nr * sizeof(*x.len));
		if (x.start && x.len)
			map_rest(&s, t, &x);
		if (!x.start || !x.len || x.oom)
			rc = -1;
	}
	for (size_t i = 0; i < s.n_h; i++) {
		free(s.h[i].pts);
		free(s.h[i].low);
		free(s.h[i].first);
	}
	free(s.h);
	u64map_release(&s.hosts);
	timing_now(&m[3], 1);
	/* the order made once the timelines' points are freed (a lower peak) */
	if (rc == 0 && cancelled(&s))
		rc = 1;
	if (rc == 0 && (!(order = malloc(nr * sizeof(*order))) || sort_view(v, order, &x) < 0))
		rc = -1;
	pthread_mutex_destroy(&x.lock);
	timing_now(&m[4], 1);
	if (rc == 0 && timing_passes()) {
		static const char *const names[] = {"view_copy", "view_sweep", "view_map",
						    "view_sort"};
		double span[4][3];
		for (int i = 0; i < 4; i++) {
			span[i][0] = m[i].wall - m[0].wall;
			span[i][1] = m[i + 1].wall - m[0].wall;
			span[i][2] = m[i + 1].cpu - m[i].cpu;
		}
		timing_pass_line(names, (const double(*)[3])span, 4);
	}
	if (rc != 0) {
		free(x.start);
		free(x.len);
		free(x.lng);
		free(order);
		trace_view_release(v, owns);
		return rc > 0 ? 1 : error_set(err, "out of memory");
	}
	/* a view of a view: its rows are where t's order points */
	for (size_t i = 0; t->range_order && i < t->n_ranges; i++)
		order[i] = t->range_order[t->range_first + order[i]];
	v->range_order = order;
	v->range_start = x.start;
	v->range_len = x.len;
	v->range_long = x.lng;
	v->n_range_long = x.n_lng;
	v->range_first = 0;
	return 0;
}
