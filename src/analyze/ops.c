/*
 * ops.c - PyTorch op attribution and what the host did while the GPU
 * idled (ops.h).
 *
 * One sweep over the whole trace's ranges and the analysed window's CUDA
 * calls in start order, with a stack of open ranges per thread: a range
 * that starts encloses the calls that follow it on its thread until it
 * ends (kineto's ranges nest per thread; a range that does not is popped
 * when it ends, like the rest). Each call goes to the outermost cpu_op on
 * its thread's stack, its GPU op comes through the correlation id
 * (timeline.c). Cost: linear in ranges + calls, plus the stack walks of
 * the calls (the depth of the op and Python stacks).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "analyze/ops.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/vec.h"

static int has_ci(const char *s, const char *const *pat)
{
	char low[512];
	size_t i = 0;
	for (; s[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	low[i] = '\0';
	for (; *pat; pat++)
		if (strstr(low, *pat))
			return 1;
	return 0;
}

int ops_is_dataload(const char *name)
{
	/* PyTorch's profiler names DataLoader's iterator
	 * "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";
	 * Python frames show the dataset, collate, decoders and transforms */
	static const char *const pat[] = {
	    "dataloader",     "__getitem__",  "collate",    "torch/utils/data/",
	    "decode_jpeg",    "decode_image", "decode_png", "imdecode",
	    "imread",	      "pil/",	      "image.open", "torchvision/transforms",
	    "torchvision/io", "augment",      "datapipe",   "webdataset",
	    "nvidia/dali",    "tf.data",      "tokeniz",    NULL};
	return has_ci(name, pat);
}

int ops_is_user_frame(const char *name)
{
	static const char *const lib[] = {
	    "site-packages", "dist-packages", "/lib/python", "<built-in",  "<frozen",	"torch/",
	    "threading.py",  "contextlib.py", "runpy.py",    "nn.module:", "importlib", NULL};
	/* "file.py(12): fn" */
	return strstr(name, ".py(") != NULL && !has_ci(name, lib);
}

/* A range open on a thread's stack, with what the stack holds up to it
 * (pushes and pops only at the top keep these true): a call's outermost
 * and innermost cpu_op and its user frame without a walk down the stack
 * (Python stacks are tens deep) */
struct entry {
	int64_t end;	       /* the range's end (pop reads it for every range and call) */
	uint32_t name_id;      /* its name (a call's op, site and inner op are named by it) */
	uint32_t outer, inner; /* stack positions of the first and last cpu_op to here, or NONE */
	uint32_t site;	       /* ... of the last user frame */
	uint8_t cpu, dl, user, dl_any; /* dl_any: a data-loading range to here */
};

#define NONE UINT32_MAX

struct thread {
	uint64_t key;
	struct entry *st;
	size_t n, cap;
	int64_t covered_idle; /* GPU idle inside its outermost ranges */
	int64_t covered_host; /* ... of it, idle.c's host work (an_host_idle_in) */
};

struct sweep {
	struct analysis *a;
	const struct trace *w;
	struct u64map tmap; /* pid<<32|tid -> thread index */
	struct thread *th;
	size_t n_th, cap_th;
	size_t last_th;		   /* thread_of's last answer, while < n_th (ranges and
				      calls come in runs of one thread: no hash lookup) */
	struct u64map omap;	   /* op name id -> op index */
	struct u64map site, inner; /* op index<<32|string id -> weight index */
	int64_t *wsum;
	size_t n_w, cap_w;
	size_t cap_ops;	     /* of a->ops.v */
	struct u64map dlmap; /* data-loading name id -> index into dl */
	struct dl {
		uint32_t name_id;
		int64_t idle_ns;
	} * dl;
	size_t n_dl, cap_dl;
	uint8_t *cls; /* per string id of w: 0 not yet, else NC_ bits (a range's name once) */
	struct an_interval *calls; /* every CUDA call's union (an_idle_union_all) */
	size_t n_calls;
	struct an_host_cursor hc; /* the ranges come in start order */
	size_t busy_at;		  /* idle_in's busy interval (the same order) */
};

enum { NC_SEEN = 1, NC_DATALOAD = 2, NC_USER = 4 };

/* ops_is_dataload and ops_is_user_frame of a range's name, once per name
 * (a trace's millions of ranges have a few thousand names) */
static int name_class(struct sweep *s, uint32_t id)
{
	const char *name = trace_str(s->w, id);
	if (!s->cls || id >= s->w->n_strings)
		return NC_SEEN | (ops_is_dataload(name) ? NC_DATALOAD : 0) |
		       (ops_is_user_frame(name) ? NC_USER : 0);
	if (!s->cls[id])
		s->cls[id] = (uint8_t)(NC_SEEN | (ops_is_dataload(name) ? NC_DATALOAD : 0) |
				       (ops_is_user_frame(name) ? NC_USER : 0));
	return s->cls[id];
}

static struct thread *thread_of(struct sweep *s, uint32_t pid, uint32_t tid, int add)
{
	uint64_t key = (uint64_t)pid << 32 | tid, v;
	if (s->last_th < s->n_th && s->th[s->last_th].key == key)
		return &s->th[s->last_th];
	if (u64map_get(&s->tmap, key, &v)) {
		s->last_th = v;
		return &s->th[v];
	}
	if (!add)
		return NULL;
	struct thread *t = VEC_PUSH(s->th, s->n_th, s->cap_th);
	if (!t || u64map_put(&s->tmap, key, s->n_th - 1) < 0)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->key = key;
	s->last_th = s->n_th - 1;
	return t;
}

static struct an_op *op_of(struct sweep *s, uint32_t name_id)
{
	struct an_ops *o = &s->a->ops;
	uint64_t v;
	if (u64map_get(&s->omap, name_id, &v))
		return &o->v[v];
	struct an_op *x = VEC_PUSH(o->v, o->n, s->cap_ops);
	if (!x || u64map_put(&s->omap, name_id, o->n - 1) < 0)
		return NULL;
	memset(x, 0, sizeof(*x));
	x->name_id = name_id;
	return x;
}

/* weight[op<<32|id] += w (the site and inner-op tallies) */
static int tally(struct sweep *s, struct u64map *m, size_t op, uint32_t id, int64_t w)
{
	if (!id || w <= 0)
		return 0;
	uint64_t key = (uint64_t)op << 32 | id, v;
	if (u64map_get(m, key, &v)) {
		s->wsum[v] += w;
		return 0;
	}
	int64_t *p = VEC_PUSH(s->wsum, s->n_w, s->cap_w);
	if (!p || u64map_put(m, key, s->n_w - 1) < 0)
		return -1;
	*p = w;
	return 0;
}

/* GPU idle time inside [s, e) within the analysed window; s in start
 * order (the ranges'), from the busy interval at of the one before */
static int64_t idle_in(const struct analysis *a, size_t *at, int64_t s, int64_t e)
{
	if (s < a->start_ns)
		s = a->start_ns;
	if (e > a->end_ns)
		e = a->end_ns;
	if (e <= s)
		return 0;
	return (e - s) - an_busy_between_from(a, at, s, e);
}

static void pop(struct thread *t, int64_t ts)
{
	while (t->n && t->st[t->n - 1].end <= ts)
		t->n--;
}

static int push_range(struct sweep *s, size_t i, int in_view)
{
	const struct trace_range row = trace_range_at(s->w, i), *r = &row;
	if (r->pid == UINT32_MAX || r->kind == RANGE_NVTX)
		return 0; /* a GPU-side annotation; NVTX ranges are the NVTX table's */
	struct thread *t = thread_of(s, r->pid, r->tid, 1);
	if (!t)
		return -1;
	pop(t, r->start_ns);
	const struct entry *top = t->n ? &t->st[t->n - 1] : NULL;
	int cpu_below = top && top->outer != NONE, dl_below = top && top->dl_any;
	const char *name = trace_str(s->w, r->name_id);
	int nc = name_class(s, r->name_id);
	uint32_t at = (uint32_t)t->n;
	struct entry e = {.end = r->end_ns,
			  .name_id = r->name_id,
			  .cpu = r->kind == RANGE_CPU_OP,
			  .dl = (nc & NC_DATALOAD) != 0,
			  .user = r->kind == RANGE_PYTHON && (nc & NC_USER)};
	e.outer = cpu_below ? top->outer : e.cpu ? at : NONE;
	e.inner = e.cpu ? at : top ? top->inner : NONE;
	e.site = e.user ? at : top ? top->site : NONE;
	e.dl_any = e.dl || dl_below;
	if (in_view) {
		struct an_ops *o = &s->a->ops;
		int64_t idle = -1;
		if (t->n == 0) {
			idle = idle_in(s->a, &s->busy_at, r->start_ns, r->end_ns);
			t->covered_idle += idle;
			t->covered_host += an_host_idle_in(s->a, s->calls, s->n_calls, r->start_ns,
							   r->end_ns, &s->hc);
		}
		if (e.cpu && !cpu_below) {
			struct an_op *op = op_of(s, r->name_id);
			if (!op)
				return -1;
			op->calls++;
			op->host_ns += r->end_ns - r->start_ns;
			op->idle_ns +=
			    idle >= 0 ? idle : idle_in(s->a, &s->busy_at, r->start_ns, r->end_ns);
		}
		if (e.dl && !dl_below) {
			int64_t di =
			    idle >= 0 ? idle : idle_in(s->a, &s->busy_at, r->start_ns, r->end_ns);
			o->idle_dataload_ns += di;
			o->host_idle_dataload_ns += an_host_idle_in(s->a, s->calls, s->n_calls,
								    r->start_ns, r->end_ns, &s->hc);
			uint64_t v;
			if (!u64map_get(&s->dlmap, r->name_id, &v)) {
				struct dl *q = VEC_PUSH(s->dl, s->n_dl, s->cap_dl);
				if (!q || u64map_put(&s->dlmap, r->name_id, s->n_dl - 1) < 0)
					return -1;
				*q = (struct dl){r->name_id, 0};
				v = s->n_dl - 1;
			}
			s->dl[v].idle_ns += di;
		}
		/* the host's step range, not its copy on the GPU's timeline */
		if (r->kind == RANGE_ANNOTATION && strncmp(name, "ProfilerStep#", 13) == 0 &&
		    strcmp(trace_str(s->w, r->domain_id), "gpu") != 0)
			o->steps++;
	}
	struct entry *p = VEC_PUSH(t->st, t->n, t->cap);
	if (!p)
		return -1;
	*p = e;
	return 0;
}

static int attribute_call(struct sweep *s, const struct trace_api *p)
{
	struct analysis *a = s->a;
	struct an_ops *o = &a->ops;
	int64_t d = 0;
	int dtoh = 0;
	uint32_t ref = an_corr_find(a, p->pid, p->correlation);
	if (ref != AN_OP_NONE) {
		int64_t os, oe;
		an_op_span(a, ref, &os, &oe);
		d = oe - os;
		if (AN_OP_KIND(ref) == AN_OP_COPY)
			dtoh = a->t->copies[AN_OP_INDEX(ref)].kind == COPY_DTOH;
		o->gpu_total_ns += d;
	}
	struct thread *t = thread_of(s, p->pid, p->tid, 0);
	if (!t)
		return 0;
	pop(t, p->start_ns);
	if (!t->n || t->st[t->n - 1].outer == NONE)
		return 0;
	uint32_t outer = t->st[t->n - 1].outer, inner = t->st[t->n - 1].inner,
		 site = t->st[t->n - 1].site;
	struct an_op *op = op_of(s, t->st[outer].name_id);
	if (!op)
		return -1;
	size_t oi = (size_t)(op - o->v);
	int sync = p->kind == API_SYNC;
	int64_t call = p->end_ns - p->start_ns;
	if (ref != AN_OP_NONE) {
		op->gpu_ns += d;
		op->kernels++;
		o->gpu_ns += d;
	}
	op->dtoh += (uint64_t)dtoh;
	if (sync) {
		op->syncs++;
		op->sync_ns += call;
	}
	/* the site and the inner op weigh what the findings name them for:
	 * synchronizations and reads back first, then GPU time */
	int64_t wgt = sync || dtoh ? call + 1000000000LL : d;
	if (site != NONE && tally(s, &s->site, oi, t->st[site].name_id, wgt) < 0)
		return -1;
	if ((sync || dtoh) && inner != outer &&
	    tally(s, &s->inner, oi, t->st[inner].name_id, call + 1) < 0)
		return -1;
	return 0;
}

static int cmp_op(const void *x, const void *y)
{
	const struct an_op *a = x, *b = y;
	if (a->gpu_ns != b->gpu_ns)
		return a->gpu_ns > b->gpu_ns ? -1 : 1;
	if (a->host_ns != b->host_ns)
		return a->host_ns > b->host_ns ? -1 : 1;
	return a->name_id < b->name_id ? -1 : a->name_id > b->name_id;
}

/* each op's heaviest site / inner op from the tallies */
static void best_of(struct sweep *s, struct u64map *m, int inner)
{
	struct an_ops *o = &s->a->ops;
	int64_t *best = calloc(o->n ? o->n : 1, sizeof(*best));
	if (!best)
		return;
	for (size_t j = 0; j < m->cap; j++) {
		if (!m->used[j])
			continue;
		size_t op = (size_t)(m->keys[j] >> 32);
		uint32_t id = (uint32_t)m->keys[j];
		int64_t w = s->wsum[m->vals[j]];
		if (op < o->n && w > best[op]) {
			best[op] = w;
			if (inner)
				o->v[op].inner_id = id;
			else
				o->v[op].site_id = id;
		}
	}
	free(best);
}

static void sweep_release(struct sweep *s)
{
	for (size_t i = 0; i < s->n_th; i++)
		free(s->th[i].st);
	free(s->th);
	free(s->wsum);
	free(s->dl);
	free(s->cls);
	free(s->calls);
	u64map_release(&s->tmap);
	u64map_release(&s->omap);
	u64map_release(&s->site);
	u64map_release(&s->inner);
	u64map_release(&s->dlmap);
}

int an_ops(struct analysis *a, const struct trace *whole, char *err)
{
	const struct trace *w = whole ? whole : a->t;
	const struct trace *t = a->t;
	struct an_ops *o = &a->ops;
	for (size_t i = 0; i < w->n_ranges && !o->have_ops; i++)
		o->have_ops = trace_range_row(w, i)->kind == RANGE_CPU_OP;
	for (size_t i = 0; i < w->n_ranges && !o->have_stacks; i++)
		o->have_stacks = trace_range_row(w, i)->kind == RANGE_PYTHON;
	if (!w->n_ranges)
		return 0;
	struct sweep s = {.a = a, .w = w, .hc = {0, -1}};
	s.cls = calloc(w->n_strings ? w->n_strings : 1, 1); /* NULL: classified each time */
	/* the view's ranges are a slice of the whole trace's (analysis.c), or
	 * of its own times when the whole has them (trace.h) */
	size_t off = w->range_order
			 ? (t->range_first >= w->range_first ? t->range_first - w->range_first : 0)
		     : t->ranges && t->ranges >= w->ranges ? (size_t)(t->ranges - w->ranges)
							   : 0;
	size_t end = t == w ? w->n_ranges : off + t->n_ranges;
	int rc = an_idle_union_all(a, &s.calls, &s.n_calls) < 0 || u64map_init(&s.tmap, 16) < 0 ||
			 u64map_init(&s.omap, 256) < 0 || u64map_init(&s.site, 256) < 0 ||
			 u64map_init(&s.inner, 64) < 0 || u64map_init(&s.dlmap, 8) < 0
		     ? -1
		     : 0;
	size_t i = 0, j = 0;
	while (rc == 0 && (i < w->n_ranges || j < t->n_apis)) {
		int range_first = i < w->n_ranges && (j >= t->n_apis || trace_range_start(w, i) <=
									    t->apis[j].start_ns);
		if (range_first) {
			rc = push_range(&s, i, i >= off && i < end);
			i++;
		} else {
			rc = attribute_call(&s, &t->apis[j++]);
		}
	}
	if (rc == 0) {
		best_of(&s, &s.site, 0);
		best_of(&s, &s.inner, 1);
		int64_t best = 0;
		for (size_t k = 0; k < s.n_dl; k++)
			if (s.dl[k].idle_ns > best) {
				best = s.dl[k].idle_ns;
				o->dataload_name_id = s.dl[k].name_id;
			}
		for (size_t k = 0; k < s.n_th; k++) {
			if (s.th[k].covered_idle > o->idle_in_ops_ns)
				o->idle_in_ops_ns = s.th[k].covered_idle;
			if (s.th[k].covered_host > o->host_idle_in_ops_ns)
				o->host_idle_in_ops_ns = s.th[k].covered_host;
		}
		if (o->n)
			qsort(o->v, o->n, sizeof(*o->v), cmp_op);
	}
	sweep_release(&s);
	if (rc < 0) {
		an_ops_release(o);
		return error_set(err, "out of memory");
	}
	return an_op_modes(a, w, err);
}

void an_ops_release(struct an_ops *o)
{
	free(o->v);
	memset(o, 0, sizeof(*o));
}

const struct an_op *an_op_find(const struct an_ops *o, uint32_t name_id)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->v[i].name_id == name_id)
			return &o->v[i];
	return NULL;
}

const char *ops_display_name(const char *name)
{
	static const char pre[] = "autograd::engine::evaluate_function: ";
	return strncmp(name, pre, sizeof(pre) - 1) == 0 ? name + sizeof(pre) - 1 : name;
}
