/*
 * hostidle.c - host samples in GPU-idle time (hostidle.h).
 *
 * A sample's stack is walked from its innermost node up the prefix tree
 * (trace.h: a stack's parent has a smaller id, so the walk ends; ids are
 * 1-based indexes). A frame names data loading or compilation by its
 * function or file (ops.c's data-loading words; compiler packages); the
 * innermost Python frame of the program's own files is where the time
 * goes in the program's terms.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "analyze/hostidle.h"
#include "analyze/ops.h"
#include "diagnose/thresholds.h"
#include "util/error.h"
#include "util/hmap.h"

static int compile_frame(const char *s)
{
	/* compiling, not running what was compiled: a compiled function's
	 * every call goes through torch/_dynamo/eval_frame.py, AOTAutograd's
	 * forward (torch/_functorch/aot_autograd.py), inductor's runtime
	 * (torch/_inductor/runtime/, output_code.py) and, for a Triton kernel
	 * called directly, triton/runtime/jit.py; AOTAutograd compiles under
	 * dynamo's frames (forward) or its backend's bw_compiler (backward) */
	static const char *const pat[] = {"torch/_dynamo/convert_frame",
					  "torch/_dynamo/symbolic_convert",
					  "torch/_dynamo/output_graph",
					  "torch/_dynamo/backends/",
					  "torch/_inductor/compile_fx",
					  "torch/_inductor/graph",
					  "torch/_inductor/codecache",
					  "torch/_inductor/async_compile",
					  "torch/_inductor/compile_worker",
					  "torch/_inductor/codegen/",
					  "torch/_inductor/scheduler",
					  "triton/compiler",
					  "jax/_src/interpreters/pxla",
					  "jax/_src/compiler",
					  "backend_compile",
					  "nvrtc",
					  "cupy/cuda/compiler",
					  "libnvptxcompiler",
					  "ptxas",
					  "libnvJitLink",
					  NULL};
	for (const char *const *p = pat; *p; p++)
		if (strstr(s, *p))
			return 1;
	return 0;
}

/* Native code that makes or decodes data: NumPy's generators and math,
 * BLAS, image and audio codecs, tokenizers. A host stretch spent here
 * before a batch's copy is the batch being made (jax_numpy_feed, H200:
 * numpy.random's random_standard_normal_f and OpenBLAS). */
int an_host_datamake_module(const char *m)
{
	static const char *const pat[] = {"/numpy/",	  "openblas",	"libmkl",   "libjpeg",
					  "libturbojpeg", "libpng",	"_imaging", "/cv2/",
					  "libavcodec",	  "libsndfile", "libwebp",  "libtiff",
					  "/tokenizers/", "libsox",	NULL};
	for (const char *const *p = pat; *p; p++)
		if (strstr(m, *p))
			return 1;
	return 0;
}

int an_host_user_file(const char *f)
{
	return *f && !strstr(f, "site-packages") && !strstr(f, "dist-packages") &&
	       !strstr(f, "/lib/python") && f[0] != '<';
}

/* 1 when the node's own frame is in a compiler */
static int frame_compiles(const struct trace *t, const struct trace_host_stack *n)
{
	if (!n->frame_id || n->frame_id > t->n_host_frames)
		return 0;
	const struct trace_host_frame *f = &t->host_frames[n->frame_id - 1];
	return compile_frame(trace_str(t, f->file_id)) ||
	       compile_frame(trace_str(t, f->module_id)) || compile_frame(trace_str(t, f->name_id));
}

#define STACK_CUT_DEPTH 128

/* A host stack's classes, for every stack node of a trace at once. flags:
 * 1 data loading, 2 compile, 4 native code that makes data
 * (an_host_datamake_module), 8 an import (importlib's frames: importing
 * torch._dynamo runs its modules' bodies, and compiles nothing), 16
 * PyTorch's DataLoader (torch/utils/data/), 32 as deep as a sampler keeps
 * (STACK_CUT_DEPTH: the Python reader keeps a stack's innermost 128 frames,
 * hostsample/pyframes.h, so a deeper one lost its outer frames, the
 * compiler's entry among them); user the innermost own Python frame (0:
 * none), entry the outermost frame in a compiler (0: none). A node's
 * answers follow from its parent's and its own frame (flags a union, user
 * the innermost, entry the outermost, depth one more), and a parent's id
 * is below its child's (trace.h), so one pass in id order fills them all;
 * a node whose parent id is not below its own is a root (a broken tree). */
struct class_memo {
	uint8_t *flags, *depth; /* depth capped at 255 */
	uint32_t *user, *entry;
};

static void class_memo_free(struct class_memo *m)
{
	free(m->flags);
	free(m->depth);
	free(m->user);
	free(m->entry);
}

static int class_memo_init(struct class_memo *m, const struct trace *t)
{
	size_t n = t->n_host_stacks + 1;
	m->flags = calloc(n, 1);
	m->depth = calloc(n, 1);
	m->user = calloc(n, sizeof(uint32_t));
	m->entry = calloc(n, sizeof(uint32_t));
	if (!m->flags || !m->depth || !m->user || !m->entry) {
		class_memo_free(m);
		return -1;
	}
	for (uint32_t id = 1; id < n; id++) {
		const struct trace_host_stack *nd = &t->host_stacks[id - 1];
		uint32_t par = nd->parent_id < id ? nd->parent_id : 0;
		int flags = par ? m->flags[par] & ~32 : 0;
		uint32_t user = par ? m->user[par] : 0, entry = par ? m->entry[par] : 0;
		unsigned depth = (par ? m->depth[par] : 0) + 1u;
		if (nd->frame_id && nd->frame_id <= t->n_host_frames) {
			const struct trace_host_frame *f = &t->host_frames[nd->frame_id - 1];
			const char *name = trace_str(t, f->name_id);
			const char *file = trace_str(t, f->file_id);
			const char *mod = trace_str(t, f->module_id);
			if (ops_is_dataload(name) || ops_is_dataload(file))
				flags |= 1;
			if (!entry && frame_compiles(t, nd)) { /* the outermost */
				flags |= 2;
				entry = nd->frame_id;
			}
			if (f->kind == HOST_FRAME_NATIVE && an_host_datamake_module(mod))
				flags |= 4;
			if (f->kind == HOST_FRAME_PYTHON && an_host_user_file(file))
				user = nd->frame_id;
			if (f->kind == HOST_FRAME_PYTHON && !strncmp(file, "<frozen importlib", 17))
				flags |= 8;
			if (strstr(file, "torch/utils/data/"))
				flags |= 16;
		}
		m->depth[id] = depth > 255 ? 255 : (uint8_t)depth;
		m->flags[id] = (uint8_t)(flags | (depth >= STACK_CUT_DEPTH ? 32 : 0));
		m->user[id] = user;
		m->entry[id] = entry;
	}
	return 0;
}

static int classify_memo(const struct class_memo *m, const struct trace *t, uint32_t stack,
			 uint32_t *user, uint32_t *entry)
{
	if (!stack || stack > t->n_host_stacks) {
		*user = 0, *entry = 0;
		return 0;
	}
	*user = m->user[stack], *entry = m->entry[stack];
	return m->flags[stack];
}

/* the walk of an_host_stack_compiles without a memo: at most 512 frames */
static int stack_compiles(const struct trace *t, uint32_t stack)
{
	for (int depth = 0; stack && stack <= t->n_host_stacks && depth < 512; depth++) {
		const struct trace_host_stack *n = &t->host_stacks[stack - 1];
		if (frame_compiles(t, n))
			return 1;
		if (n->parent_id >= stack)
			break; /* a broken tree: stop (invariant of trace.h) */
		stack = n->parent_id;
	}
	return 0;
}

int an_host_stack_compiles(const struct trace *t, uint32_t stack, uint8_t *memo)
{
	if (!memo)
		return stack_compiles(t, stack);
	/* memo: 0 unknown, 1 no, 2 yes. The path up to a known node (or the
	 * root), then its answers from the top down; at most 512 frames are
	 * looked at, as stack_compiles does */
	uint32_t path[512];
	int n = 0, yes = 0;
	for (uint32_t s = stack; s && s <= t->n_host_stacks; n++) {
		if (memo[s]) {
			yes = memo[s] == 2;
			break;
		}
		if (n == 512)
			return stack_compiles(t, stack);
		path[n] = s;
		const struct trace_host_stack *node = &t->host_stacks[s - 1];
		if (node->parent_id >= s) { /* a broken tree stops here */
			n++;
			break;
		}
		s = node->parent_id;
	}
	for (int i = n - 1; i >= 0; i--) {
		yes = yes || frame_compiles(t, &t->host_stacks[path[i] - 1]);
		memo[path[i]] = yes ? 2 : 1;
	}
	return yes;
}

/* 1 when ts is inside a JIT stretch of the analysed window (phases.c moved
 * its host time already) */
static int in_jit(const struct an_phases *ph, int64_t ts)
{
	for (size_t i = 0; i < ph->n_jit; i++)
		if (ph->jit[i].in_window && ts >= ph->jit[i].start_ns && ts < ph->jit[i].end_ns)
			return 1;
	return 0;
}

/* The compiler's entry the most compile samples went through, and the own
 * frame that called it (a few distinct pairs: a linear table). */
#define ENTRY_SLOTS 32
struct entries {
	uint32_t entry[ENTRY_SLOTS], own[ENTRY_SLOTS];
	int64_t ns[ENTRY_SLOTS];
	int n;
};

static void entry_add(struct entries *e, uint32_t entry, uint32_t own, int64_t ns)
{
	int i = 0;
	while (i < e->n && (e->entry[i] != entry || e->own[i] != own))
		i++;
	if (i == e->n) {
		if (e->n == ENTRY_SLOTS)
			return;
		e->entry[i] = entry, e->own[i] = own, e->ns[i] = 0;
		e->n++;
	}
	e->ns[i] += ns;
}

/* #36 item 2: when the GPU-idle samples of the window's second half are
 * still mostly in a compiler (TH_RECOMPILE_LATE_SHARE), the compiling keeps
 * coming: the host idle outside the JIT stretches, by the compile samples'
 * share of it, is compilation (idle.jit_ns, recompilation's) and not
 * host_overhead's (idle.host_ns), when they come in TH_RECOMPILE_MIN
 * GPU-idle gaps or more there (one long stretch is one compilation). A
 * program that compiles once, at its start, has no compile samples late in
 * the window. */
static void move_recompiling(struct analysis *a, int64_t out_idle_ns, const struct entries *e)
{
	struct an_hostidle *h = &a->hostidle;
	/* the program's own thread first: a compile worker (inductor's
	 * subprocesses) has no frame of the program's files */
	for (int i = 0; i < e->n; i++)
		if ((e->own[i] && !h->compile_own) ||
		    (!e->own[i] == !h->compile_own && e->ns[i] > h->compile_entry_ns)) {
			h->compile_entry_ns = e->ns[i];
			h->compile_entry = e->entry[i];
			h->compile_own = e->own[i];
		}
	if (out_idle_ns <= 0 || h->late_idle_ns <= 0 || h->late_gaps < TH_RECOMPILE_MIN ||
	    (double)h->compile_late_ns < TH_RECOMPILE_LATE_SHARE * (double)h->late_idle_ns)
		return;
	double share = (double)h->compile_out_ns / (double)out_idle_ns;
	int64_t mv = (int64_t)(share * (double)a->idle.host_ns + 0.5);
	mv = mv > a->idle.host_ns ? a->idle.host_ns : mv;
	a->idle.host_ns -= mv;
	a->idle.jit_ns += mv;
	h->recompile_ns = mv;
}

/* torch.compile's compile of a frame as torch.profiler records it: the
 * outermost range of each (dynamo_timed's), whatever torch's version
 * calls it */
int an_op_compiles(const char *n)
{
	return !strcmp(n, "dynamo") || !strncmp(n, "entire_frame_compile", 20) ||
	       !strncmp(n, "_compile.compile_inner", 22);
}

/* #36 item 2 in a trace without host samples: torch.compile's compile
 * ranges, TH_RECOMPILE_MIN of them or more inside the analysed window (a
 * profiler's window comes after the warm-up: compiling there is compiling
 * again); the GPU idle inside them, up to the host idle, is compilation. */
static void move_recompiling_ops(struct analysis *a)
{
	struct an_hostidle *h = &a->hostidle;
	const struct an_op *top = NULL;
	for (size_t i = 0; i < a->ops.n; i++) {
		const struct an_op *o = &a->ops.v[i];
		if (an_op_compiles(trace_str(a->t, o->name_id)) &&
		    (!top || o->idle_ns > top->idle_ns))
			top = o;
	}
	const struct an_op_modes *m = &a->ops.modes;
	int64_t idle;
	if (top && top->calls >= TH_RECOMPILE_MIN && top->idle_ns > 0) {
		idle = top->idle_ns;
		h->compile_op = top->name_id;
		h->compile_op_calls = top->calls;
		h->compile_op_ns = top->host_ns;
	} else if (m->attn_builds >= TH_RECOMPILE_MIN && m->attn_build_late &&
		   m->attn_build_idle_ns > 0) {
		/* cuDNN's attention built again for new shapes, into the
		 * second half of the attention's run (torchmodes.c) */
		idle = m->attn_build_idle_ns;
		h->compile_op = m->attn_build_op;
		h->compile_op_calls = m->attn_builds;
		h->compile_op_ns = m->attn_build_ns;
	} else {
		return;
	}
	int64_t mv = idle < a->idle.host_ns ? idle : a->idle.host_ns;
	a->idle.host_ns -= mv;
	a->idle.jit_ns += mv;
	h->recompile_ns = mv;
}

int an_cuda_threads(const struct trace *w, struct u64map *m)
{
	if (u64map_init(m, 16) < 0)
		return -1;
	for (size_t i = 0; i < w->n_apis; i++)
		if (u64map_put(m, (uint64_t)w->apis[i].pid << 32 | w->apis[i].tid, 1) < 0) {
			u64map_release(m);
			return -1;
		}
	return 0;
}

int an_feeds_gpu(const struct u64map *m, const struct trace_host_sample *s)
{
	uint64_t one;
	return s->tid == s->pid || u64map_get(m, (uint64_t)s->pid << 32 | s->tid, &one);
}

double an_host_compile_share(const struct trace *t, int64_t t0, int64_t t1, int64_t *sampled_ns,
			     uint8_t *memo)
{
	*sampled_ns = 0;
	/* host_samples are sorted by time (trace_sort) */
	int64_t comp = 0;
	for (size_t i = trace_first_host_sample_from(t, t0);
	     i < t->n_host_samples && t->host_samples[i].ts_ns < t1; i++) {
		const struct trace_host_sample *s = &t->host_samples[i];
		if (s->source != HOST_SRC_PERF)
			continue;
		*sampled_ns += s->weight_ns;
		if (an_host_stack_compiles(t, s->stack_id, memo))
			comp += s->weight_ns;
	}
	return *sampled_ns > 0 ? (double)comp / (double)*sampled_ns : 0;
}

/* The compilations of the host samples (an_hostidle.compile_runs), per
 * thread: a run of its samples in a compiler, ended by
 * TH_COMPILE_SPLIT_SAMPLES of its samples outside one, counts once it holds
 * TH_COMPILE_MIN_NS of samples (a lone compile sample is a cache look-up,
 * not a compilation). The most of one thread are the program's
 * (torch.compile's worker processes compile one frame's kernels in
 * parallel: the frame counts once). */
struct run_state {
	int64_t ns;	 /* the current run's samples */
	uint64_t n;	 /* its compilations */
	unsigned since;	 /* samples outside a compiler since its last one in */
	int counted, on; /* the current run counted; a run is going on */
};

struct runs {
	struct u64map idx; /* (pid << 32 | tid) -> index in v */
	struct run_state *v;
	size_t n;
};

/* 0 or -1 (out of memory) */
static int count_runs(struct runs *r, uint64_t tid, int comp, int64_t ns, struct an_hostidle *h)
{
	uint64_t i;
	if (!u64map_get(&r->idx, tid, &i)) {
		if (!comp)
			return 0;
		struct run_state *v = realloc(r->v, (r->n + 1) * sizeof(*v));
		if (!v)
			return -1;
		r->v = v;
		i = r->n;
		if (u64map_put(&r->idx, tid, i) < 0)
			return -1;
		r->v[r->n++] = (struct run_state){0};
	}
	struct run_state *t = &r->v[i];
	if (!comp) {
		if (t->on && ++t->since >= TH_COMPILE_SPLIT_SAMPLES)
			t->on = 0;
		return 0;
	}
	if (!t->on)
		*t = (struct run_state){.n = t->n, .on = 1};
	t->since = 0;
	t->ns += ns;
	if (!t->counted && t->ns >= TH_COMPILE_MIN_NS) {
		t->counted = 1;
		if (++t->n > h->compile_runs)
			h->compile_runs = t->n;
	}
	return 0;
}

static int cmp_fn(const void *x, const void *y)
{
	const struct an_host_fn *a = x, *b = y;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->name_id < b->name_id ? -1 : a->name_id > b->name_id;
}

int an_hostidle(struct analysis *a, const struct trace *whole, char *err)
{
	const struct trace *w = whole ? whole : a->t;
	struct an_hostidle *h = &a->hostidle;
	int have_py = 0;
	for (size_t i = 0; i < w->n_host_samples && !have_py; i++)
		have_py = w->host_samples[i].source == HOST_SRC_PYREAD;
	h->source = have_py ? HOST_SRC_PYREAD : HOST_SRC_PERF;
	struct u64map fn = {0}, cuda = {0};
	struct runs runs = {0};
	struct class_memo cm = {0};
	int64_t *sum = NULL;
	size_t n_sum = 0;
	int64_t out_idle = 0, mid = a->start_ns + (a->end_ns - a->start_ns) / 2;
	size_t last_gap = 0;
	struct entries ent = {0};
	if (class_memo_init(&cm, w) < 0)
		return error_set(err, "out of memory");
	if (u64map_init(&fn, 64) < 0) {
		class_memo_free(&cm);
		return error_set(err, "out of memory");
	}
	/* invariant 3: the threads that feed the GPU (record also keeps busy
	 * threads' samples, for host_contention: hostsampler.h) */
	if (an_cuda_threads(w, &cuda) < 0 || u64map_init(&runs.idx, 16) < 0) {
		class_memo_free(&cm);
		u64map_release(&fn);
		u64map_release(&cuda);
		return error_set(err, "out of memory");
	}
	for (size_t i = 0; i < w->n_host_samples; i++) {
		const struct trace_host_sample *s = &w->host_samples[i];
		if (s->ts_ns < a->start_ns || s->ts_ns > a->end_ns || !an_feeds_gpu(&cuda, s))
			continue;
		if (s->source == h->source)
			h->have_samples = 1;
		if (s->source != h->source && s->source != HOST_SRC_PERF)
			continue;
		uint32_t user, entry;
		int flags = classify_memo(&cm, w, s->stack_id, &user, &entry);
		if (flags & 16)
			h->loader_samples++;
		/* a stack cut at its outer end may have lost the compiler's
		 * frames: it neither ends nor starts a compilation */
		if (s->source == h->source && ((flags & 11) == 2 || !(flags & 32)) &&
		    count_runs(&runs, (uint64_t)s->pid << 32 | s->tid, (flags & 11) == 2,
			       s->weight_ns, h) < 0)
			goto oom;
		if (an_is_busy(a, s->ts_ns))
			continue;
		/* perf's on-CPU stacks have the native frames the reader lacks */
		if (s->source == HOST_SRC_PERF) {
			h->perf_idle_ns += s->weight_ns;
			if (flags & 4)
				h->datamake_ns += s->weight_ns;
		}
		if (s->source != h->source)
			continue;
		h->idle_ns += s->weight_ns;
		if (flags & 1)
			h->dataload_ns += s->weight_ns;
		else if (flags & 2)
			h->compile_ns += s->weight_ns;
		if (!in_jit(&a->phases, s->ts_ns)) {
			int late = s->ts_ns >= mid, comp = (flags & 11) == 2;
			/* the GPU-idle gaps the late compile samples fall in */
			size_t gap = an_busy_index(a, s->ts_ns);
			if (comp && late && (!h->late_gaps || gap != last_gap)) {
				h->late_gaps++;
				last_gap = gap;
			}
			out_idle += s->weight_ns;
			h->late_idle_ns += late ? s->weight_ns : 0;
			h->compile_out_ns += comp ? s->weight_ns : 0;
			h->compile_late_ns += comp && late ? s->weight_ns : 0;
			if (comp)
				entry_add(&ent, entry, user, s->weight_ns);
		}
		if (!user)
			continue;
		uint64_t v;
		if (!u64map_get(&fn, user, &v)) {
			int64_t *p = realloc(sum, (n_sum + 1) * sizeof(*sum));
			if (!p || u64map_put(&fn, user, n_sum) < 0) {
				free(p ? p : sum);
				sum = NULL;
				goto oom;
			}
			sum = p;
			sum[n_sum] = 0;
			v = n_sum++;
		}
		sum[v] += s->weight_ns;
	}
	/* the top own functions */
	struct an_host_fn *all = calloc(n_sum ? n_sum : 1, sizeof(*all));
	u64map_release(&cuda);
	u64map_release(&runs.idx);
	free(runs.v);
	class_memo_free(&cm);
	if (!all) {
		free(sum);
		u64map_release(&fn);
		return error_set(err, "out of memory");
	}
	for (size_t j = 0; j < fn.cap; j++) {
		if (!fn.used[j])
			continue;
		const struct trace_host_frame *f = &w->host_frames[fn.keys[j] - 1];
		all[fn.vals[j]] = (struct an_host_fn){f->name_id, f->file_id, sum[fn.vals[j]]};
	}
	if (n_sum)
		qsort(all, n_sum, sizeof(*all), cmp_fn);
	for (size_t j = 0; j < n_sum && h->n_top < AN_HOST_TOP; j++)
		h->top[h->n_top++] = all[j];
	free(all);
	free(sum);
	u64map_release(&fn);
	if (h->have_samples)
		move_recompiling(a, out_idle, &ent);
	else if (a->ops.have_ops)
		move_recompiling_ops(a);
	return an_sample_modes(a, whole, err);
oom:
	class_memo_free(&cm);
	free(sum);
	u64map_release(&fn);
	u64map_release(&cuda);
	u64map_release(&runs.idx);
	free(runs.v);
	return error_set(err, "out of memory");
}
