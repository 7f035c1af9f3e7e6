/*
 * hostwait.c - host samples joined to the idle classes (hostwait.h).
 *
 * Each sample in GPU-idle time of the window gets the class of its
 * instant: the covering unions of idle.c (an_idle_unions), searched by
 * binary search, then host work or dispatch by the length of the host
 * stretch around it, with the share idle.c moved to the sync before. Its
 * stack is walked once (innermost first) for the three frames of
 * hostwait.h. The samples become records (class, thread, function, time);
 * sorting them groups equal functions, and each group's heaviest frames
 * (lines) name it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "analyze/hostidle.h"
#include "analyze/hostwait.h"
#include "analyze/ops.h"
#include "diagnose/thresholds.h"
#include "util/demangle.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/vec.h"

enum { K_FN = 0, K_NATIVE = 1 }; /* record kinds */

/* profiler stacks: a virtual sample of each thread's Python stack every
 * 100 us (the CPython reader's rate is 1 kHz; ranges cost nothing more) */
#define HW_TICK_NS 100000

struct rec {
	uint8_t cls, kind;
	uint32_t th;
	uint32_t key[3]; /* canonical own, call, inner (K_NATIVE: key[2]) */
	uint32_t raw[3]; /* the frames themselves */
	int64_t ns;
};

struct thr {
	uint32_t pid, tid;
	int flags; /* 1 worker, 2 pin memory */
	int64_t wall[AN_IDLE_CAUSES], cpu[AN_IDLE_CAUSES];
};

struct fkey {
	uint32_t kind, name, file, module, id;
};

/* comparators: a field that differs decides */
#define CMP_BY(a, b, f)                                                                            \
	do {                                                                                       \
		if ((a)->f != (b)->f)                                                              \
			return (a)->f < (b)->f ? -1 : 1;                                           \
	} while (0)

static int cmp_fkey(const void *x, const void *y)
{
	const struct fkey *a = x, *b = y;
	CMP_BY(a, b, kind);
	CMP_BY(a, b, name);
	CMP_BY(a, b, file);
	CMP_BY(a, b, module);
	CMP_BY(a, b, id);
	return 0;
}

/* canon[id]: the smallest frame id of the same function (lines aside) */
static uint32_t *canon_frames(const struct trace *w)
{
	size_t n = w->n_host_frames;
	uint32_t *canon = calloc(n + 1, sizeof(*canon));
	struct fkey *k = malloc((n ? n : 1) * sizeof(*k));
	if (!canon || !k) {
		free(canon);
		free(k);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct trace_host_frame *f = &w->host_frames[i];
		k[i] =
		    (struct fkey){f->kind, f->name_id, f->file_id, f->module_id, (uint32_t)(i + 1)};
	}
	qsort(k, n, sizeof(*k), cmp_fkey);
	for (size_t i = 0; i < n; i++) {
		int same = i > 0 && k[i].kind == k[i - 1].kind && k[i].name == k[i - 1].name &&
			   k[i].file == k[i - 1].file && k[i].module == k[i - 1].module;
		canon[k[i].id] = same ? canon[k[i - 1].id] : k[i].id;
	}
	free(k);
	return canon;
}

/* The class of idle instant ts (invariant 1), and in *frac the share of
 * it idle.c moved to the sync (host work and dispatch only). */
static int class_at(const struct analysis *a, struct an_interval *const u[4], const size_t n[4],
		    int64_t ts, double *frac)
{
	static const int cls[4] = {AN_IDLE_LAUNCH, AN_IDLE_SYNC, AN_IDLE_COPY, AN_IDLE_API};
	*frac = 0;
	for (int i = 0; i < 4; i++) {
		long k = an_last_start(u[i], n[i], ts);
		if (k >= 0 && ts < u[i][k].end)
			return cls[i];
	}
	size_t g = an_busy_index(a, ts);
	int64_t g0 = g > 0 ? a->busy[g - 1].end : a->start_ns;
	int64_t g1 = g < a->n_busy ? a->busy[g].start : a->end_ns;
	if (g1 - g0 < TH_LAUNCH_GAP_NS)
		return AN_IDLE_LAUNCH;
	long k = an_last_start(u[3], n[3], ts);
	int64_t from = k >= 0 ? u[3][k].end : g0;
	int64_t to = (size_t)(k + 1) < n[3] ? u[3][k + 1].start : g1;
	int disp = to - from < TH_HOST_WORK_NS;
	if (a->gap_sync_frac)
		*frac = a->gap_sync_frac[disp ? a->n_busy + 1 + g : g];
	return disp ? AN_IDLE_DISPATCH : AN_IDLE_HOST;
}

struct walk {
	uint32_t own, call, inner, native;
	int flags;
	int compiling; /* in a compiler while the compiling keeps coming (hostidle.h) */
};

static int named(const struct trace *w, const struct trace_host_frame *f)
{
	return *trace_str(w, f->name_id) != 0;
}

/* A frame that only passes the call on: the library function the program
 * called is the one inside it (step -> torch.no_grad's decorate_context ->
 * GenerationMixin.generate: "in generate", not "in decorate_context";
 * model(x) -> Module._wrapped_call_impl -> _call_impl -> forward). */
static int trampoline(const char *name, const char *file, size_t file_len)
{
	static const struct {
		const char *name, *file;
	} tr[] = {
	    {"decorate_context", "/_contextlib.py"},	     /* torch.no_grad, inference_mode */
	    {"_wrapped_call_impl", "/nn/modules/module.py"}, /* nn.Module.__call__ */
	    {"_call_impl", "/nn/modules/module.py"},
	    {"_fn", "/_dynamo/eval_frame.py"}, /* torch.compile's entry */
	    {"inner", "/contextlib.py"},       /* contextlib.ContextDecorator */
	};
	const char *dot = strrchr(name, '.');
	const char *base = dot ? dot + 1 : name;
	for (size_t i = 0; i < sizeof(tr) / sizeof(tr[0]); i++) {
		size_t tl = strlen(tr[i].file);
		if (!strcmp(base, tr[i].name) && file_len >= tl &&
		    !strncmp(file + file_len - tl, tr[i].file, tl))
			return 1;
	}
	return 0;
}

static int trampoline_frame(const struct trace *w, const struct trace_host_frame *f)
{
	const char *file = trace_str(w, f->file_id);
	return trampoline(trace_str(w, f->name_id), file, strlen(file));
}

/* a profiler python_function range: "FILE(LINE): NAME" */
static int trampoline_range(const char *range)
{
	const char *colon = strstr(range, "): ");
	const char *paren = colon ? memrchr(range, '(', (size_t)(colon - range)) : NULL;
	return paren && trampoline(colon + 3, range, (size_t)(paren - range));
}

#define HW_WALK_PY 64 /* Python frames kept to step over trampolines */

/* an_host_user_file of frame f (id fid), memoised per frame in own (0
 * unknown, 1 no, 2 yes; n_host_frames + 1 bytes) when own is not NULL */
static int own_file(const struct trace *w, uint8_t *own, uint32_t fid,
		    const struct trace_host_frame *f)
{
	if (!own)
		return an_host_user_file(trace_str(w, f->file_id));
	if (!own[fid])
		own[fid] = an_host_user_file(trace_str(w, f->file_id)) ? 2 : 1;
	return own[fid] == 2;
}

static void walk_stack(const struct trace *w, uint32_t stack, struct walk *k, uint8_t *own)
{
	memset(k, 0, sizeof(*k));
	uint32_t prev_py = 0;
	uint32_t py[HW_WALK_PY]; /* the last Python frames seen, innermost first */
	size_t n_py = 0;
	for (int depth = 0; stack && stack <= w->n_host_stacks && depth < 512; depth++) {
		const struct trace_host_stack *n = &w->host_stacks[stack - 1];
		const struct trace_host_frame *f = n->frame_id && n->frame_id <= w->n_host_frames
						       ? &w->host_frames[n->frame_id - 1]
						       : NULL;
		if (f && named(w, f)) {
			const char *name = trace_str(w, f->name_id);
			if (!k->inner)
				k->inner = n->frame_id;
			if (!k->native && f->kind == HOST_FRAME_NATIVE)
				k->native = n->frame_id;
			if (f->kind == HOST_FRAME_PYTHON) {
				if (!k->own && own_file(w, own, n->frame_id, f)) {
					k->own = n->frame_id;
					k->call = prev_py;
					/* past the trampolines, inwards */
					for (size_t j = n_py; j-- > 1;) {
						const struct trace_host_frame *c =
						    &w->host_frames[py[j] - 1];
						if (!trampoline_frame(w, c))
							break;
						k->call = py[j - 1];
					}
				}
				prev_py = n->frame_id;
				if (n_py < HW_WALK_PY)
					py[n_py++] = n->frame_id;
				else {
					memmove(py, py + 1, sizeof(py) - sizeof(py[0]));
					py[HW_WALK_PY - 1] = n->frame_id;
				}
			}
			if (!strcmp(name, "_worker_loop"))
				k->flags |= 1;
			else if (!strcmp(name, "_pin_memory_loop"))
				k->flags |= 2;
		}
		if (n->parent_id >= stack)
			break; /* a broken tree (trace.h) */
		stack = n->parent_id;
	}
}

static int cmp_rec(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;
	CMP_BY(a, b, cls);
	CMP_BY(a, b, th);
	CMP_BY(a, b, kind);
	int c = memcmp(a->key, b->key, sizeof(a->key));
	return c ? c : memcmp(a->raw, b->raw, sizeof(a->raw));
}

/* groups: (cls, th, kind) then the heaviest first */
static int cmp_group(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;
	CMP_BY(a, b, cls);
	CMP_BY(a, b, th);
	CMP_BY(a, b, kind);
	CMP_BY(b, a, ns);
	return memcmp(a->key, b->key, sizeof(a->key));
}

/* Sums equal functions in place (recs sorted by cmp_rec): one record per
 * group with the frames of its heaviest sub-group. Returns the count. */
static size_t reduce(struct rec *r, size_t n)
{
	size_t out = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int64_t sum = 0, best = -1;
		uint32_t raw[3] = {0};
		while (j < n && r[j].cls == r[i].cls && r[j].th == r[i].th &&
		       r[j].kind == r[i].kind && !memcmp(r[j].key, r[i].key, sizeof(r[i].key))) {
			size_t m = j;
			int64_t sub = 0;
			while (m < n && !cmp_rec(&r[m], &r[j]))
				sub += r[m++].ns;
			if (sub > best)
				best = sub, memcpy(raw, r[j].raw, sizeof(raw));
			sum += sub;
			j = m;
		}
		r[out] = r[i];
		memcpy(r[out].raw, raw, sizeof(raw));
		r[out].ns = sum;
		out++;
		i = j;
	}
	return out;
}

struct ctx {
	struct analysis *a;
	const struct trace *w;
	uint32_t *canon;
	struct an_interval *u[4];
	size_t n[4];
	struct u64map thmap, apipids;
	struct thr *th;
	size_t n_th, cap_th;
	struct rec *r;
	size_t n_r, cap_r;
};

static int push(struct ctx *c, struct rec r)
{
	if (r.ns <= 0)
		return 0;
	struct rec *p = VEC_PUSH(c->r, c->n_r, c->cap_r);
	if (!p)
		return -1;
	*p = r;
	return 0;
}

static int thread_of(struct ctx *c, uint32_t pid, uint32_t tid, uint32_t *idx)
{
	uint64_t key = (uint64_t)pid << 32 | tid, v;
	if (u64map_get(&c->thmap, key, &v)) {
		*idx = (uint32_t)v;
		return 0;
	}
	struct thr *t = VEC_PUSH(c->th, c->n_th, c->cap_th);
	if (!t)
		return -1;
	*t = (struct thr){.pid = pid, .tid = tid};
	if (u64map_put(&c->thmap, key, c->n_th - 1) < 0)
		return -1;
	*idx = (uint32_t)(c->n_th - 1);
	return 0;
}

static uint32_t canon_of(const struct ctx *c, uint32_t f)
{
	return f & HW_RANGE_FRAME ? f : c->canon[f];
}

/* One sample of thread (pid, tid) at ts standing for weight ns, its stack
 * walked into k: its class (split with the sync by idle.c's share) and
 * records (fn: of the main source, cpu: on-CPU, from perf). */
static int add_walk(struct ctx *c, uint32_t pid, uint32_t tid, int64_t ts, int64_t weight,
		    const struct walk *k, int fn, int cpu)
{
	double frac;
	int cls = class_at(c->a, c->u, c->n, ts, &frac);
	uint32_t th;
	/* recompilation's time, not the host work's (hostidle.c moved it) */
	if (k->compiling && cls == AN_IDLE_HOST)
		return 0;
	if (thread_of(c, pid, tid, &th) < 0)
		return -1;
	c->th[th].flags |= k->flags;
	int64_t moved = (int64_t)((double)weight * frac + 0.5);
	int64_t part[2] = {weight - moved, moved};
	int pcls[2] = {cls, AN_IDLE_SYNC};
	for (int i = 0; i < 2; i++) {
		if (part[i] <= 0)
			continue;
		if (fn) {
			c->th[th].wall[pcls[i]] += part[i];
			struct rec r = {
			    .cls = (uint8_t)pcls[i], .kind = K_FN, .th = th, .ns = part[i]};
			uint32_t f[3] = {k->own, k->call, k->inner};
			for (int j = 0; j < 3; j++)
				r.raw[j] = f[j], r.key[j] = canon_of(c, f[j]);
			if (k->inner && push(c, r) < 0)
				return -1;
		}
		if (cpu) {
			c->th[th].cpu[pcls[i]] += part[i];
			struct rec r = {
			    .cls = (uint8_t)pcls[i], .kind = K_NATIVE, .th = th, .ns = part[i]};
			r.raw[2] = k->native;
			r.key[2] = canon_of(c, k->native);
			if (k->native && push(c, r) < 0)
				return -1;
		}
	}
	return 0;
}

/* A profiler frame of the program's own code: ops.c's test, and none of
 * the packages torch.profiler names by their path under site-packages */
static int own_range(const char *name)
{
	static const char *const pkg[] = {"transformers/",
					  "torchvision/",
					  "accelerate/",
					  "numpy/",
					  "PIL/",
					  "multiprocessing/",
					  "selectors.py",
					  "queue.py",
					  "peft/",
					  "triton/",
					  "jax/",
					  "cupy/",
					  NULL};
	if (!ops_is_user_frame(name))
		return 0;
	for (const char *const *p = pkg; *p; p++)
		if (strstr(name, *p))
			return 0;
	return 1;
}

/* The Python stack of a profiler's python_function ranges open on one
 * thread (st: range indexes, outermost first) as a walk. */
static void walk_ranges(const struct trace *w, const uint32_t *st, size_t n, struct walk *k)
{
	memset(k, 0, sizeof(*k));
	uint32_t prev = 0;
	for (size_t i = n; i-- > 0;) {
		uint32_t name_id = trace_range_row(w, st[i])->name_id;
		uint32_t f = HW_RANGE_FRAME | name_id;
		const char *name = trace_str(w, name_id);
		if (!k->inner)
			k->inner = f;
		if (!k->own && own_range(name)) {
			k->own = f;
			k->call = prev;
			/* past the trampolines, inwards (st[i + 1] is prev) */
			for (size_t j = i + 1; j + 1 < n; j++) {
				if (!trampoline_range(
					trace_str(w, trace_range_row(w, st[j])->name_id)))
					break;
				k->call = HW_RANGE_FRAME | trace_range_row(w, st[j + 1])->name_id;
			}
		}
		prev = f;
		if (strstr(name, "): _worker_loop"))
			k->flags |= 1;
		else if (strstr(name, "): _pin_memory_loop"))
			k->flags |= 2;
	}
}

/* A trace with Python stacks on its op events (torch.profiler
 * with_stack=True) but no host samples: each thread's python_function
 * stack read every HW_TICK_NS of the window is a sample. */
static int range_samples(struct ctx *c)
{
	const struct trace *w = c->w;
	const struct analysis *a = c->a;
	struct u64map seen = {0};
	uint32_t *st = NULL;
	size_t n_st = 0, cap_st = 0;
	int rc = -1;
	if (u64map_init(&seen, 16) < 0)
		return -1;
	for (size_t i = 0; i < w->n_ranges; i++) {
		const struct trace_range *r0 = trace_range_row(w, i);
		uint64_t key = (uint64_t)r0->pid << 32 | r0->tid, v;
		if (r0->kind != RANGE_PYTHON || u64map_get(&seen, key, &v))
			continue;
		if (u64map_put(&seen, key, 1) < 0)
			goto out;
		n_st = 0;
		size_t j = i;
		for (int64_t t = a->start_ns; t < a->end_ns; t += HW_TICK_NS) {
			for (; j < w->n_ranges && trace_range_start(w, j) <= t; j++) {
				const struct trace_range *r = trace_range_row(w, j);
				if (r->kind != RANGE_PYTHON || r->pid != r0->pid ||
				    r->tid != r0->tid)
					continue;
				int64_t start = trace_range_start(w, j);
				while (n_st && trace_range_span(w, st[n_st - 1]).end_ns <= start)
					n_st--;
				uint32_t *p = VEC_PUSH(st, n_st, cap_st);
				if (!p)
					goto out;
				*p = (uint32_t)j;
			}
			while (n_st && trace_range_span(w, st[n_st - 1]).end_ns <= t)
				n_st--;
			if (!n_st || an_is_busy(a, t))
				continue;
			struct walk k;
			walk_ranges(w, st, n_st, &k);
			c->a->hostwait.have = 1;
			if (add_walk(c, r0->pid, r0->tid, t, HW_TICK_NS, &k, 1, 0) < 0)
				goto out;
		}
	}
	rc = 0;
out:
	free(st);
	u64map_release(&seen);
	return rc;
}

static enum an_hw_role role_of(const struct ctx *c, const struct thr *t)
{
	uint64_t v;
	if (t->flags & 1)
		return HW_WORKER;
	if (t->flags & 2)
		return HW_PIN_MEMORY;
	if (t->pid == t->tid && u64map_get(&c->apipids, t->pid, &v))
		return HW_MAIN;
	return HW_THREAD;
}

/* Orders a class's threads: the main thread, then by time on the CPU,
 * then by samples. 1 when x comes first. */
static int before(const struct an_hw_thread *x, const struct an_hw_thread *y)
{
	if ((x->role == HW_MAIN) != (y->role == HW_MAIN))
		return x->role == HW_MAIN;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns;
	if (x->wall_ns != y->wall_ns)
		return x->wall_ns > y->wall_ns;
	return x->tid < y->tid;
}

static void fill_classes(struct ctx *c, size_t n_groups)
{
	struct an_hostwait *h = &c->a->hostwait;
	const struct an_idle *d = &c->a->idle;
	int64_t idle[AN_IDLE_CAUSES] = {
	    [AN_IDLE_HOST] = d->host_ns,     [AN_IDLE_DISPATCH] = d->dispatch_ns,
	    [AN_IDLE_LAUNCH] = d->launch_ns, [AN_IDLE_SYNC] = d->sync_ns,
	    [AN_IDLE_COPY] = d->copy_ns,     [AN_IDLE_API] = d->api_ns};
	for (int k = 0; k < AN_IDLE_CAUSES; k++) {
		struct an_hw_class *cl = &h->c[k];
		cl->idle_ns = idle[k];
		for (size_t i = 0; i < c->n_th; i++) {
			const struct thr *t = &c->th[i];
			if (!t->wall[k] && !t->cpu[k])
				continue;
			cl->threads_total++;
			cl->sampled_ns += t->wall[k];
			struct an_hw_thread x = {.pid = t->pid,
						 .tid = t->tid,
						 .role = role_of(c, t),
						 .wall_ns = t->wall[k],
						 .cpu_ns = t->cpu[k]};
			/* insertion into the kept few */
			int pos = cl->n_threads;
			while (pos > 0 && before(&x, &cl->th[pos - 1]))
				pos--;
			if (pos >= AN_HW_THREADS)
				continue;
			int last =
			    cl->n_threads < AN_HW_THREADS ? cl->n_threads : AN_HW_THREADS - 1;
			memmove(&cl->th[pos + 1], &cl->th[pos], (size_t)(last - pos) * sizeof(x));
			x.n_top = (int)i; /* the thread's index until the functions come */
			cl->th[pos] = x;
			if (cl->n_threads < AN_HW_THREADS)
				cl->n_threads++;
		}
		for (int j = 0; j < cl->n_threads; j++) {
			struct an_hw_thread *x = &cl->th[j];
			uint32_t ti = (uint32_t)x->n_top;
			x->n_top = 0;
			for (size_t g = 0; g < n_groups; g++) {
				const struct rec *r = &c->r[g];
				if (r->cls != k || r->th != ti)
					continue;
				if (r->kind == K_FN && x->n_top < AN_HW_TOP)
					x->top[x->n_top++] = (struct an_hw_fn){r->raw[0], r->raw[1],
									       r->raw[2], r->ns};
				else if (r->kind == K_NATIVE && x->n_native < AN_HW_TOP)
					x->native[x->n_native++] =
					    (struct an_hw_native){r->raw[2], r->ns};
			}
		}
	}
}

static void ctx_release(struct ctx *c)
{
	free(c->canon);
	for (int i = 0; i < 4; i++)
		free(c->u[i]);
	u64map_release(&c->thmap);
	u64map_release(&c->apipids);
	free(c->th);
	free(c->r);
}

int an_hostwait(struct analysis *a, char *err)
{
	const struct trace *w = a->whole ? a->whole : a->t;
	struct an_hostwait *h = &a->hostwait;
	memset(h, 0, sizeof(*h));
	int stacks = 0;
	if (!w->n_host_samples || !w->n_host_stacks) {
		for (size_t i = 0; i < w->n_ranges && !stacks; i++)
			stacks = trace_range_row(w, i)->kind == RANGE_PYTHON;
		if (!stacks)
			return 0;
	}
	int main_src = stacks ? AN_HW_SRC_STACKS : HOST_SRC_PERF;
	for (size_t i = 0; i < w->n_host_samples; i++)
		if (w->host_samples[i].source == HOST_SRC_PYREAD) {
			main_src = HOST_SRC_PYREAD;
			break;
		}
	h->source = main_src;
	struct ctx c = {.a = a, .w = w};
	if (!(c.canon = canon_frames(w)) || an_idle_unions(a, c.u, c.n) < 0 ||
	    u64map_init(&c.thmap, 64) < 0 || u64map_init(&c.apipids, 16) < 0)
		goto oom;
	for (size_t i = 0; i < a->t->n_apis; i++)
		if (u64map_put(&c.apipids, a->t->apis[i].pid, 1) < 0)
			goto oom;
	if (stacks && range_samples(&c) < 0)
		goto oom;
	/* which stacks compile, each node looked at once (hostidle.h) */
	uint8_t *memo = NULL, *own = NULL;
	if (a->hostidle.recompile_ns > 0 && !stacks && !(memo = calloc(w->n_host_stacks + 1, 1)))
		goto oom;
	/* which frames are the program's own, each frame looked at once */
	if (!stacks && !(own = calloc(w->n_host_frames + 1, 1))) {
		free(memo);
		goto oom;
	}
	for (size_t i = 0; i < w->n_host_samples && !stacks; i++) {
		const struct trace_host_sample *s = &w->host_samples[i];
		if ((s->source != main_src && s->source != HOST_SRC_PERF) ||
		    s->ts_ns < a->start_ns || s->ts_ns >= a->end_ns || an_is_busy(a, s->ts_ns))
			continue;
		h->have = 1;
		struct walk k;
		walk_stack(w, s->stack_id, &k, own);
		k.compiling = memo && an_host_stack_compiles(w, s->stack_id, memo);
		if (add_walk(&c, s->pid, s->tid, s->ts_ns, s->weight_ns, &k, s->source == main_src,
			     s->source == HOST_SRC_PERF) < 0) {
			free(memo);
			free(own);
			goto oom;
		}
	}
	free(memo);
	free(own);
	if (c.n_r)
		qsort(c.r, c.n_r, sizeof(*c.r), cmp_rec);
	size_t ng = reduce(c.r, c.n_r);
	if (ng)
		qsort(c.r, ng, sizeof(*c.r), cmp_group);
	fill_classes(&c, ng);
	ctx_release(&c);
	return 0;
oom:
	ctx_release(&c);
	return error_set(err, "out of memory");
}

double an_hw_share(const struct an_hw_class *c, int64_t ns)
{
	if (c->idle_ns <= 0 || ns <= 0)
		return 0;
	double v = 100.0 * (double)ns / (double)c->idle_ns;
	return v > 100.0 ? 100.0 : v;
}

const struct an_hw_thread *an_hw_thread_of(const struct an_hostwait *h, int cls, int main)
{
	if (!h->have || cls < 0 || cls >= AN_IDLE_CAUSES)
		return NULL;
	const struct an_hw_class *c = &h->c[cls];
	for (int i = 0; i < c->n_threads; i++) {
		const struct an_hw_thread *t = &c->th[i];
		if ((t->role == HW_MAIN) == (main != 0) && t->n_top > 0)
			return t;
	}
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

const char *an_hw_frame_name(const struct trace *w, uint32_t frame, char *buf, size_t cap)
{
	if (frame & HW_RANGE_FRAME) {
		/* torch.profiler's "dir/file.py(87): step", or a C function's
		 * "<built-in method run_backward of ... at 0x...>" */
		const char *name = trace_str(w, frame & ~HW_RANGE_FRAME);
		const char *p = strstr(name, "): ");
		const char *q = p;
		while (q && q > name && *q != '(')
			q--;
		const char *fn = p && *q == '(' ? p + 3 : name;
		const char *bi = strncmp(fn, "<built-in method ", 17) == 0     ? fn + 17
				 : strncmp(fn, "<built-in function ", 19) == 0 ? fn + 19
									       : NULL;
		int n = bi ? (int)strcspn(bi, " >") : (int)strlen(fn);
		if (!p || *q != '(') {
			snprintf(buf, cap, "%.*s%s", n, bi ? bi : fn, bi ? " (built-in)" : "");
			return buf;
		}
		char file[512];
		snprintf(file, sizeof(file), "%.*s", (int)(q - name), name);
		snprintf(buf, cap, "%.*s (%s:%.*s)", n, bi ? bi : fn, base_name(file),
			 (int)(p - q - 1), q + 1);
		return buf;
	}
	const struct trace_host_frame *f =
	    frame && frame <= w->n_host_frames ? &w->host_frames[frame - 1] : NULL;
	if (!f) {
		snprintf(buf, cap, "?");
		return buf;
	}
	char dm[1024], one[160];
	const char *name = trace_str(w, f->name_id);
	const char *file = trace_str(w, f->file_id);
	if (f->kind == HOST_FRAME_NATIVE)
		name = gs_one_line_name(gs_demangle(name, dm, sizeof(dm)), one, sizeof(one), 60);
	if (f->kind == HOST_FRAME_PYTHON && *file)
		snprintf(buf, cap, "%s (%s:%u)", name, base_name(file), (unsigned)f->line);
	else if (*trace_str(w, f->module_id))
		snprintf(buf, cap, "%s (%s)", name, base_name(trace_str(w, f->module_id)));
	else
		snprintf(buf, cap, "%s", name);
	return buf;
}

const char *an_hw_fn_name(const struct trace *w, const struct an_hw_fn *f, char *buf, size_t cap)
{
	char in[256], call[256], own[256];
	an_hw_frame_name(w, f->inner, in, sizeof(in));
	int has_call = f->call && f->call != f->inner;
	int has_own = f->own && f->own != f->inner;
	if (has_call)
		an_hw_frame_name(w, f->call, call, sizeof(call));
	if (has_own)
		an_hw_frame_name(w, f->own, own, sizeof(own));
	if (has_call && has_own)
		snprintf(buf, cap, "%s in %s, from %s", in, call, own);
	else if (has_own)
		snprintf(buf, cap, "%s, from %s", in, own);
	else
		snprintf(buf, cap, "%s", in);
	return buf;
}
