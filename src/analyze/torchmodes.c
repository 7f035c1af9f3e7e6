/*
 * torchmodes.c - PyTorch switches users leave on, as a trace shows them
 * (docs/causes.md rows 13, 18 and 20; ops.h struct an_op_modes, hostidle.h
 * struct an_sample_modes).
 *
 * Anomaly detection (torch.autograd.set_detect_anomaly(True), Lightning's
 * Trainer(detect_anomaly=True)): every autograd node made in the forward
 * stores a Python traceback (PyAnomalyMetadata::store_stack calls
 * torch.fx.traceback.format_stack, the standard library's traceback and
 * linecache), and the backward engine checks each node's outputs for NaN
 * inside the node's "autograd::engine::evaluate_function: NAME" range:
 * isnan(output)._is_any_true().item<bool>(), a device-to-host read and a
 * wait per output (torch/csrc/autograd/engine.cpp). AccumulateGrad has no
 * outputs and is never checked, so a gradient hook that checks its own
 * tensor (inside AccumulateGrad) is not taken for the switch.
 *
 * cuDNN autotuning (torch.backends.cudnn.benchmark=True): the first call of
 * a convolution for each new input shape times the candidate algorithms
 * (cudnnFind, or cudnn_frontend's time_sorted_plan under
 * get_plans_from_find in PyTorch's Conv_v8.cpp), launching their kernels one
 * after another inside the op; later calls of that shape run one plan. A
 * call that launches TH_AUTOTUNE_LAUNCHES kernels or more is autotuning; a
 * program whose shapes keep changing keeps autotuning into the second half
 * of its run, one with fixed shapes autotunes in its first steps only.
 * The kernels of anomaly detection's NaN check, inside a convolution's
 * backward node, are not the convolution's: ConvolutionBackward0 checks its
 * three outputs with an isnan and an _is_any_true kernel each, 6 launches
 * beside its own 4-6 (torch_detect_anomaly, H200: 9 "autotuning" calls,
 * 16.6% of the window, in a program with fixed shapes).
 *
 * DDP's find_unused_parameters=True (row 20): after every forward,
 * DistributedDataParallel._post_forward has the reducer walk the autograd
 * graph from the outputs to mark the parameters that will get no gradient
 * (Reducer::prepare_for_backward -> search_unused_parameters, C++, no op
 * recorded); with False it hands the reducer an empty list. The walk is the
 * tail of each "DistributedDataParallel.forward" range after the last op
 * inside it, and, in host samples, _post_forward's (reader) or the
 * reducer's (perf) share of the feeding threads' time.
 *
 * torch.optim's per-parameter path (row 9): every optimizer step runs
 * inside a "Optimizer.step#CLASS.step" range (torch.optim's own
 * record_function). With foreach=False (or where PyTorch cannot take the
 * foreach path) it updates one parameter tensor after another in Python
 * (_single_tensor_adamw and its kin), each with several elementwise
 * kernels: hundreds to thousands of launches a step; foreach=True and
 * fused=True run aten::_foreach_* / aten::_fused_* ops, a few multi-tensor
 * kernels for all of them. In op events: the launches inside the step's
 * range, and whether any multi-tensor op ran there; in host samples, the
 * reader's samples in a _single_tensor_* function of torch/optim.
 *
 * Deterministic mode's fill (row 21): torch.use_deterministic_algorithms(True)
 * also turns on torch.utils.deterministic.fill_uninitialized_memory (PyTorch
 * 2.1 and later), and every torch.empty, empty_like, empty_strided and
 * empty_permuted then fills the memory it returns with NaN (or the integer's
 * maximum) before anything writes it: an aten::fill_ inside the empty op,
 * a kernel launch each. Without the setting an empty op launches nothing,
 * so an aten::fill_ inside one is the setting, whatever else the program
 * does (aten::zeros holds an empty and a zero_ side by side, not nested).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis_int.h"
#include "analyze/hostidle.h"
#include "analyze/ops.h"
#include "diagnose/thresholds.h"
#include "util/error.h"
#include "util/hmap.h"
#include "util/sort.h"
#include "util/vec.h"

enum {
	NM_SEEN = 1,
	NM_NODE = 2,
	NM_CHECK = 4,
	NM_CONV = 8,
	NM_DDP = 16,
	NM_OPTIM = 32,	/* torch.optim's step range */
	NM_MULTI = 64,	/* a multi-tensor op: foreach or fused */
	NM_ATTN = 128,	/* scaled-dot-product attention on cuDNN's backend */
	NM_EMPTY = 256, /* torch.empty and its kin */
	NM_FILL = 512	/* aten::fill_ */
};

static int name_kind(const char *s)
{
	static const char node[] = "autograd::engine::evaluate_function: ";
	int k = NM_SEEN;
	if (!strcmp(s, "DistributedDataParallel.forward"))
		return k | NM_DDP;
	if (!strncmp(s, "Optimizer.step#", 15))
		return k | NM_OPTIM;
	if (!strncmp(s, "aten::_foreach_", 15) || !strncmp(s, "aten::_fused_", 13))
		return k | NM_MULTI;
	if (!strncmp(s, node, sizeof(node) - 1)) {
		if (!strstr(s, "AccumulateGrad"))
			k |= NM_NODE;
		/* the backward of a convolution runs cuDNN's too */
		if (strstr(s, "Convolution") || strstr(s, "Conv"))
			k |= NM_CONV;
		return k;
	}
	/* the NaN check: isnan(x)._is_any_true() (before PyTorch 2.0:
	 * x.ne(x).any(); aten::ne is too common to tell by itself) */
	if (!strcmp(s, "aten::isnan") || !strcmp(s, "aten::_is_any_true"))
		k |= NM_CHECK;
	if (!strncmp(s, "aten::conv", 10) || !strcmp(s, "aten::_convolution") ||
	    !strncmp(s, "aten::cudnn_convolution", 23))
		k |= NM_CONV;
	/* the op and its inner call, forward and backward (the outermost counts) */
	if (!strncmp(s, "aten::_scaled_dot_product_cudnn_attention", 41) ||
	    !strcmp(s, "aten::_cudnn_attention_forward") ||
	    !strcmp(s, "aten::_cudnn_attention_backward"))
		k |= NM_ATTN;
	if (!strcmp(s, "aten::empty") || !strcmp(s, "aten::empty_like") ||
	    !strcmp(s, "aten::empty_strided") || !strcmp(s, "aten::empty_permuted"))
		k |= NM_EMPTY;
	if (!strcmp(s, "aten::fill_"))
		k |= NM_FILL;
	return k;
}

struct slot {
	int64_t node_end; /* the open backward node on this thread, INT64_MIN: none */
	int checked;
	int64_t conv_end;  /* the open outermost convolution */
	int64_t attn_end;  /* the open outermost cuDNN attention */
	int64_t check_end; /* the open outermost NaN check op */
	/* the open DistributedDataParallel.forward (INT64_MIN: none), whether
	 * it counts (starts in the window), the latest end of an op inside it */
	int64_t ddp_end, ddp_inner_end;
	int ddp_counts;
	int64_t optim_end; /* the open optimizer step (INT64_MIN: none) */
	int optim_counts;  /* ... starts in the window */
	int64_t empty_end; /* the open outermost empty op (INT64_MIN: none) */
	int empty_counts;  /* ... starts in the window */
	int empty_filled;  /* ... holds a fill already */
};

/* The DDP forward open on a thread is over when something starts at or
 * after its end (INT64_MAX: the pass is over): its tail after its last op
 * counts. */
static void ddp_close_by(struct an_op_modes *m, struct slot *s, int64_t t)
{
	if (s->ddp_end == INT64_MIN || t < s->ddp_end)
		return;
	if (s->ddp_counts && s->ddp_inner_end != INT64_MIN && s->ddp_end > s->ddp_inner_end) {
		m->ddp_forwards++;
		m->ddp_tail_ns += s->ddp_end - s->ddp_inner_end;
	}
	s->ddp_end = INT64_MIN;
}

/* an op on the thread: it may end the open DDP forward, or be inside it */
static void ddp_op(struct an_op_modes *m, struct slot *s, struct trace_span sp)
{
	ddp_close_by(m, s, sp.start_ns);
	if (s->ddp_end != INT64_MIN && sp.end_ns > s->ddp_inner_end && sp.end_ns <= s->ddp_end)
		s->ddp_inner_end = sp.end_ns;
}

/* a convolution call or a NaN check op, on thread (pid, tid) */
struct op_call {
	int64_t start, end;
	uint32_t name_id, pid, tid;
	uint64_t launches;
};

/* kernels launched by (pid, tid) in [s, e): apis sorted by start */
static uint64_t launches_in(const struct trace *w, uint32_t pid, uint32_t tid, int64_t s, int64_t e)
{
	uint64_t n = 0;
	for (size_t i = trace_first_api_from(w, s); i < w->n_apis && w->apis[i].start_ns < e; i++)
		n +=
		    w->apis[i].kind == API_LAUNCH && w->apis[i].pid == pid && w->apis[i].tid == tid;
	return n;
}

/* Each convolution call's own launches: those in it less those of the NaN
 * checks on its thread inside it (chk sorted by start). */
static void conv_launches(const struct trace *w, struct op_call *cc, size_t n_cc,
			  const struct op_call *chk, size_t n_chk)
{
	for (size_t i = 0; i < n_cc; i++) {
		struct op_call *c = &cc[i];
		c->launches = launches_in(w, c->pid, c->tid, c->start, c->end);
		size_t lo = 0, hi = n_chk;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (chk[mid].start < c->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo; k < n_chk && chk[k].start < c->end && c->launches; k++) {
			if (chk[k].pid != c->pid || chk[k].tid != c->tid)
				continue;
			uint64_t in = launches_in(w, c->pid, c->tid, chk[k].start, chk[k].end);
			c->launches -= in < c->launches ? in : c->launches;
		}
	}
}

static int autotune(struct analysis *a, const struct op_call *c, size_t n)
{
	struct an_op_modes *m = &a->ops.modes;
	if (!n)
		return 0;
	int64_t first = c[0].start, last = c[0].end;
	for (size_t i = 1; i < n; i++)
		last = c[i].end > last ? c[i].end : last;
	int64_t mid = first + (last - first) / 2;
	struct u64map per = {0};
	if (u64map_init(&per, 8) < 0)
		return -1;
	uint64_t best = 0;
	for (size_t i = 0; i < n; i++) {
		if (c[i].launches < TH_AUTOTUNE_LAUNCHES)
			continue;
		m->autotune_calls++;
		m->autotune_late += c[i].start >= mid;
		m->autotune_ns += c[i].end - c[i].start;
		int64_t s = c[i].start > a->start_ns ? c[i].start : a->start_ns;
		int64_t e = c[i].end < a->end_ns ? c[i].end : a->end_ns;
		m->autotune_window_ns += e > s ? e - s : 0;
		uint64_t v = 0;
		u64map_get(&per, c[i].name_id, &v);
		if (u64map_put(&per, c[i].name_id, v + 1) < 0) {
			u64map_release(&per);
			return -1;
		}
		if (v + 1 > best) {
			best = v + 1;
			m->autotune_op = c[i].name_id;
		}
	}
	m->autotune_op_calls = best;
	u64map_release(&per);
	return 0;
}

/* cuDNN's attention builds: its calls of TH_CUDNN_BUILD_NS or more (the
 * first call of each new shape builds and compiles the fused kernel on the
 * host; later ones take ~0.1 ms: hf_bert_padded --fixed, H200: 8 calls of
 * 51-79 ms among 48), the op with the most, how many start in the second
 * half of the attention calls' run, their median, and the GPU idle inside
 * those of the analysed window. */
static int cudnn_builds(struct analysis *a, const struct op_call *c, size_t n)
{
	struct an_op_modes *m = &a->ops.modes;
	int64_t first = c[0].start, last = c[0].end;
	for (size_t i = 1; i < n; i++)
		last = c[i].end > last ? c[i].end : last;
	int64_t mid = first + (last - first) / 2;
	int64_t *dur = malloc(n * sizeof(*dur));
	if (!dur)
		return -1;
	uint32_t names[2] = {0, 0};
	uint64_t per[2] = {0, 0};
	size_t k = 0;
	m->attn_calls = n;
	for (size_t i = 0; i < n; i++) {
		int64_t d = c[i].end - c[i].start;
		if (d < TH_CUDNN_BUILD_NS)
			continue;
		dur[k++] = d;
		m->attn_build_late += c[i].start >= mid;
		m->attn_build_ns += d;
		int64_t s = c[i].start > a->start_ns ? c[i].start : a->start_ns;
		int64_t e = c[i].end < a->end_ns ? c[i].end : a->end_ns;
		if (e > s)
			m->attn_build_idle_ns += (e - s) - an_busy_between(a, s, e);
		/* forward and backward: two names at most count apart */
		int j = names[0] == c[i].name_id || !per[0] ? 0 : 1;
		names[j] = c[i].name_id;
		per[j]++;
	}
	m->attn_builds = k;
	if (k) {
		m->attn_build_median_ns = sort_median_i64(dur, k);
		m->attn_build_op = per[1] > per[0] ? names[1] : names[0];
	}
	free(dur);
	return 0;
}

/* Appends the op at sp to *v when it is outermost among its kind on its
 * thread (it starts at or after *end, the last one's end); -1 when out of
 * memory. */
static int push_outermost(struct op_call **v, size_t *n, size_t *cap, int64_t *end,
			  struct trace_span sp, const struct trace_range *r)
{
	if (sp.start_ns < *end)
		return 0;
	*end = sp.end_ns;
	struct op_call *p = VEC_PUSH(*v, *n, *cap);
	if (!p)
		return -1;
	*p = (struct op_call){sp.start_ns, sp.end_ns, r->name_id, r->pid, r->tid, 0};
	return 0;
}

/* the thread's slot, made when new; NULL when out of memory */
static struct slot *slot_of(struct u64map *th, struct slot **sl, size_t *n_sl, size_t *cap_sl,
			    const struct trace_range *r)
{
	uint64_t key = (uint64_t)r->pid << 32 | r->tid, v;
	if (u64map_get(th, key, &v))
		return &(*sl)[v];
	struct slot *p = VEC_PUSH(*sl, *n_sl, *cap_sl);
	if (!p || u64map_put(th, key, *n_sl - 1) < 0)
		return NULL;
	*p = (struct slot){.node_end = INT64_MIN,
			   .conv_end = INT64_MIN,
			   .attn_end = INT64_MIN,
			   .check_end = INT64_MIN,
			   .ddp_end = INT64_MIN,
			   .ddp_inner_end = INT64_MIN,
			   .optim_end = INT64_MIN,
			   .empty_end = INT64_MIN};
	return p;
}

/* an optimizer step's range: the outermost on its thread counts when it
 * starts in the window, with the kernels launched inside it */
static void optim_step(struct analysis *a, const struct trace *w, struct slot *s,
		       const struct trace_range *r, struct trace_span sp)
{
	struct an_op_modes *m = &a->ops.modes;
	if (s->optim_end != INT64_MIN && sp.start_ns < s->optim_end)
		return;
	s->optim_end = sp.end_ns;
	s->optim_counts = sp.start_ns >= a->start_ns && sp.start_ns < a->end_ns;
	if (!s->optim_counts)
		return;
	m->optim_steps++;
	m->optim_launches += launches_in(w, r->pid, r->tid, sp.start_ns, sp.end_ns);
	if (!m->optim_name)
		m->optim_name = r->name_id;
}

/* an empty op (the outermost on its thread starts a new one) or a fill: the
 * first fill inside a counted empty counts, with its launches, their
 * kernels' GPU time (the window's, by correlation) and its own time */
static void empty_fill(struct analysis *a, const struct trace *w, struct slot *s,
		       const struct trace_range *r, struct trace_span sp, int k, int in_window)
{
	struct an_op_modes *m = &a->ops.modes;
	if ((k & NM_EMPTY) && (s->empty_end == INT64_MIN || sp.start_ns >= s->empty_end)) {
		s->empty_end = sp.end_ns;
		s->empty_counts = in_window;
		s->empty_filled = 0;
		m->empty_calls += (uint64_t)in_window;
		return;
	}
	if (!(k & NM_FILL) || s->empty_end == INT64_MIN || sp.start_ns >= s->empty_end ||
	    s->empty_filled || !s->empty_counts)
		return;
	s->empty_filled = 1;
	m->empty_filled++;
	m->fill_host_ns += sp.end_ns - sp.start_ns;
	for (size_t i = trace_first_api_from(w, sp.start_ns);
	     i < w->n_apis && w->apis[i].start_ns < sp.end_ns; i++) {
		const struct trace_api *c = &w->apis[i];
		if (c->kind != API_LAUNCH || c->pid != r->pid || c->tid != r->tid)
			continue;
		m->fill_launches++;
		uint32_t ref = an_corr_find(a, c->pid, c->correlation);
		if (ref == AN_OP_NONE)
			continue;
		int64_t ks, ke;
		an_op_span(a, ref, &ks, &ke);
		m->fill_gpu_ns += ke > ks ? ke - ks : 0;
	}
}

int an_op_modes(struct analysis *a, const struct trace *whole, char *err)
{
	const struct trace *w = whole ? whole : a->t;
	struct an_op_modes *m = &a->ops.modes;
	memset(m, 0, sizeof(*m));
	if (!a->ops.have_ops)
		return 0;
	uint16_t *cls = calloc(w->n_strings ? w->n_strings : 1, sizeof(*cls));
	struct u64map th = {0};
	struct slot *sl = NULL;
	size_t n_sl = 0, cap_sl = 0;
	struct op_call *cc = NULL, *chk = NULL, *at = NULL;
	size_t n_cc = 0, cap_cc = 0, n_chk = 0, cap_chk = 0, n_at = 0, cap_at = 0;
	int rc = !cls || u64map_init(&th, 16) < 0 ? -1 : 0;
	for (size_t i = 0; rc == 0 && i < w->n_ranges; i++) {
		const struct trace_range *r = trace_range_row(w, i);
		/* ops, and DDP's record_function range (a user annotation) */
		if ((r->kind != RANGE_CPU_OP && r->kind != RANGE_ANNOTATION) ||
		    r->name_id >= w->n_strings)
			continue;
		if (!cls[r->name_id])
			cls[r->name_id] = (uint16_t)name_kind(trace_str(w, r->name_id));
		int k = cls[r->name_id];
		if (r->kind == RANGE_ANNOTATION && !(k & (NM_DDP | NM_OPTIM)))
			continue;
		struct trace_span sp = trace_range_span(w, i);
		if (!(k & (NM_NODE | NM_CHECK | NM_CONV | NM_DDP | NM_OPTIM | NM_ATTN | NM_EMPTY |
			   NM_FILL))) {
			/* an op inside an open DDP forward or optimizer step on
			 * its thread */
			uint64_t v;
			if (n_sl && u64map_get(&th, (uint64_t)r->pid << 32 | r->tid, &v)) {
				ddp_op(m, &sl[v], sp);
				m->optim_multi_ops += (k & NM_MULTI) && sl[v].optim_counts &&
						      sp.start_ns < sl[v].optim_end;
			}
			continue;
		}
		struct slot *s = slot_of(&th, &sl, &n_sl, &cap_sl, r);
		if (!s) {
			rc = -1;
			break;
		}
		if (k & NM_OPTIM) {
			optim_step(a, w, s, r, sp);
			continue;
		}
		int in_window = sp.start_ns >= a->start_ns && sp.start_ns < a->end_ns;
		if (k & (NM_EMPTY | NM_FILL)) {
			ddp_op(m, s, sp);
			empty_fill(a, w, s, r, sp, k, in_window);
			continue;
		}
		if (k & NM_DDP) {
			ddp_close_by(m, s, sp.start_ns);
			if (s->ddp_end == INT64_MIN) { /* the outermost */
				s->ddp_end = sp.end_ns;
				s->ddp_inner_end = INT64_MIN;
				s->ddp_counts = in_window;
			}
			continue;
		}
		ddp_op(m, s, sp);
		if ((k & NM_NODE) && in_window) {
			m->backward_nodes++;
			s->node_end = sp.end_ns;
			s->checked = 0;
		}
		if ((k & NM_CHECK) && sp.start_ns < s->node_end && !s->checked) {
			s->checked = 1;
			m->nan_checked++;
		}
		/* the outermost NaN check and convolution on their thread
		 * (aten::conv2d holds aten::convolution, which holds
		 * aten::cudnn_convolution) */
		if (((k & NM_CHECK) &&
		     push_outermost(&chk, &n_chk, &cap_chk, &s->check_end, sp, r) < 0) ||
		    ((k & NM_CONV) &&
		     push_outermost(&cc, &n_cc, &cap_cc, &s->conv_end, sp, r) < 0) ||
		    ((k & NM_ATTN) &&
		     push_outermost(&at, &n_at, &cap_at, &s->attn_end, sp, r) < 0)) {
			rc = -1;
			break;
		}
	}
	for (size_t i = 0; rc == 0 && i < n_sl; i++)
		ddp_close_by(m, &sl[i], INT64_MAX);
	if (rc == 0 && n_cc) {
		m->conv_calls = n_cc;
		conv_launches(w, cc, n_cc, chk, n_chk);
		rc = autotune(a, cc, n_cc);
	}
	if (rc == 0 && n_at)
		rc = cudnn_builds(a, at, n_at);
	free(at);
	free(chk);
	free(cc);
	free(sl);
	free(cls);
	u64map_release(&th);
	return rc < 0 ? error_set(err, "out of memory") : 0;
}

/* the frames of a stack: 1 anomaly's traceback capture (Python), 2 the
 * capture or the engine's NaN check (native: a backward node, 16, holding
 * the check, 32), 4 cuDNN's autotuning, 8 DDP's search for unused
 * parameters after the forward (Python: DistributedDataParallel.
 * _post_forward; native: the reducer's prepare_for_backward or
 * search_unused_parameters), 64 torch.optim's per-parameter path (Python:
 * a _single_tensor_* function of torch/optim); a frame's own bits here */
static int frame_kind(const struct trace *t, const struct trace_host_stack *n)
{
	if (!n->frame_id || n->frame_id > t->n_host_frames)
		return 0;
	const struct trace_host_frame *f = &t->host_frames[n->frame_id - 1];
	const char *name = trace_str(t, f->name_id);
	int flags = 0;
	if (f->kind == HOST_FRAME_PYTHON) {
		const char *file = trace_str(t, f->file_id);
		if (strstr(name, "format_stack") && strstr(file, "torch/fx/traceback.py"))
			flags |= 1;
		if (strstr(name, "_post_forward") &&
		    strstr(file, "torch/nn/parallel/distributed.py"))
			flags |= 8;
		if (!strncmp(name, "_single_tensor_", 15) && strstr(file, "torch/optim/"))
			flags |= 64;
	} else if (f->kind == HOST_FRAME_NATIVE) {
		if (strstr(name, "AnomalyMetadata"))
			flags |= 2;
		flags |= strstr(name, "evaluate_function") ? 16 : 0; /* a backward node */
		flags |= strstr(name, "_is_any_true") ? 32 : 0;	     /* the NaN check */
		if (strstr(name, "search_unused_parameters") ||
		    (strstr(name, "Reducer") && strstr(name, "prepare_for_backward")))
			flags |= 8;
		if (strstr(name, "cudnnFind") || strstr(name, "get_plans_from_find") ||
		    strstr(name, "time_sorted_plan"))
			flags |= 4;
	}
	return flags;
}

/* Each stack node's kind (sample_kind's bits, 16 and 32 kept apart): its
 * parent's and its own frame's, in one pass in id order (a parent's id is
 * below its child's; a node whose parent's is not is a root); *optim_fn the
 * name id of the first frame with bit 64. NULL when out of memory. */
static uint8_t *stack_kinds(const struct trace *t, uint32_t *optim_fn)
{
	uint8_t *k = calloc(t->n_host_stacks + 1, 1);
	for (uint32_t id = 1; k && id <= t->n_host_stacks; id++) {
		const struct trace_host_stack *n = &t->host_stacks[id - 1];
		int own = frame_kind(t, n);
		if ((own & 64) && !*optim_fn)
			*optim_fn = t->host_frames[n->frame_id - 1].name_id;
		k[id] = (uint8_t)((n->parent_id < id ? k[n->parent_id] : 0) | own);
	}
	return k;
}

int an_sample_modes(struct analysis *a, const struct trace *whole, char *err)
{
	const struct trace *w = whole ? whole : a->t;
	struct an_sample_modes *m = &a->hostidle.modes;
	memset(m, 0, sizeof(*m));
	if (!w->n_host_samples)
		return 0;
	struct u64map cuda = {0};
	uint8_t *kinds = stack_kinds(w, &m->optim_fn);
	if (!kinds || an_cuda_threads(w, &cuda) < 0) {
		free(kinds);
		return error_set(err, "out of memory");
	}
	int64_t mid = a->start_ns + (a->end_ns - a->start_ns) / 2;
	for (size_t i = 0; i < w->n_host_samples; i++) {
		const struct trace_host_sample *s = &w->host_samples[i];
		/* the threads that feed the GPU (hostidle.h invariant 3): the
		 * backward engine's device thread makes CUDA calls too */
		if (s->ts_ns < a->start_ns || s->ts_ns > a->end_ns || !an_feeds_gpu(&cuda, s))
			continue;
		int k = s->stack_id && s->stack_id <= w->n_host_stacks ? kinds[s->stack_id] : 0;
		k |= (k & 48) == 48 ? 2 : 0;
		if (s->source == HOST_SRC_PYREAD) {
			m->py_ns += s->weight_ns;
			m->py_anomaly_ns += (k & 1) ? s->weight_ns : 0;
			m->py_ddp_ns += (k & 8) ? s->weight_ns : 0;
			m->py_optim_ns += (k & 64) ? s->weight_ns : 0;
		} else if (s->source == HOST_SRC_PERF) {
			m->perf_ns += s->weight_ns;
			m->perf_anomaly_ns += (k & 3) ? s->weight_ns : 0;
			m->perf_ddp_ns += (k & 8) ? s->weight_ns : 0;
			if (k & 4) {
				m->find_ns += s->weight_ns;
				m->find_late_ns += s->ts_ns >= mid ? s->weight_ns : 0;
			}
		}
	}
	u64map_release(&cuda);
	free(kinds);
	return 0;
}
