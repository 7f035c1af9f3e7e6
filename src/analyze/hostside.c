/*
 * hostside.c - input pipeline or host overhead (hostside.h).
 *
 * Sources in order of strength: op events (torch.profiler always records
 * DataLoader's __next__ as a range, so its absence beside op events is
 * itself telling), host samples (the functions the host ran in the idle),
 * then the copies that end long host stretches.
 */
#include <string.h>

#include "analyze/analysis_int.h"
#include "analyze/hostside.h"
#include "analyze/hostwait.h"
#include "diagnose/thresholds.h"

/* 2 ms after a stretch: the batch's copy is the first thing the next step
 * does (x.cuda() right after next(loader)); our choice */
#define INPUT_LOOKAHEAD_NS 2000000LL

static void input_copies(struct analysis *a, struct an_hostside *h)
{
	const struct trace *t = a->t;
	double bytes = 0;
	int64_t at = a->start_ns;
	for (size_t i = 0; i <= a->n_busy; i++) {
		int64_t g0 = at, g1 = i < a->n_busy ? a->busy[i].start : a->end_ns;
		if (i < a->n_busy && a->busy[i].end > at)
			at = a->busy[i].end;
		if (g1 - g0 < TH_HOST_WORK_NS || i == a->n_busy)
			continue;
		h->long_gaps++;
		h->long_gap_ns += g1 - g0;
		for (size_t k = trace_first_copy_from(t, g1);
		     k < t->n_copies && t->copies[k].start_ns < g1 + INPUT_LOOKAHEAD_NS; k++) {
			const struct trace_copy *c = &t->copies[k];
			if (c->kind == COPY_HTOD && (double)c->bytes >= TH_INPUT_COPY_BYTES) {
				h->input_gaps++;
				h->input_gap_ns += g1 - g0;
				bytes += (double)c->bytes;
				break;
			}
		}
	}
	h->input_bytes_mean = h->input_gaps ? bytes / (double)h->input_gaps : 0;
}

/* The copies outweigh host samples that call the work "other": most of
 * the long host stretches (TH_INPUT_STRETCH_SHARE of their time) end in a
 * batch's copy, they hold most of the host idle, and the host's on-CPU
 * samples in the idle are in native code that makes data (NumPy, BLAS,
 * codecs: hostidle.c) for TH_EVIDENCE_SHARE of it. The host's work is then
 * the batch's making whatever its Python frames are called: NumPy filling
 * an array in the program's own function (a JAX step fed from NumPy, H200)
 * has no data-loading name, but each stretch ends in its 32 MiB copy. A loop
 * that logs before each batch's copy stays host_overhead (its samples are in
 * Python and the logging module), and so does a trace's op events (no native
 * frames to tell). */
static int copies_say_input(const struct an_hostside *h, int64_t host)
{
	return h->input_gaps >= TH_INPUT_MIN_STRETCHES &&
	       (double)h->input_gap_ns >= TH_INPUT_STRETCH_SHARE * (double)h->long_gap_ns &&
	       2 * h->long_gap_ns >= host;
}

/* The main thread's time in the host idle is one line of the program's own
 * code, on the CPU, with no library's Python below it: a single call into
 * native code (torch.stack of the batch's 4,096 rows into pinned memory:
 * torch_small_copies_fixed, H100, every sample at one line). Beside long
 * host stretches that end in a batch's copy, that line makes the batch. A
 * loop that logs before the copy has the logging module's frames below its
 * line, a sleep is off the CPU, and Python bookkeeping in the program's own
 * function runs in the interpreter (its heaviest native frame is
 * python3's or libpython's): they stay host_overhead. */
static int interpreter_module(const char *m)
{
	const char *b = strrchr(m, '/');
	b = b ? b + 1 : m;
	return !strncmp(b, "python", 6) || !strncmp(b, "libpython", 9);
}

static int own_line_makes_batch(const struct analysis *a)
{
	const struct an_hw_class *c = &a->hostwait.c[AN_IDLE_HOST];
	const struct an_hw_thread *m = an_hw_thread_of(&a->hostwait, AN_IDLE_HOST, 1);
	const struct trace *w = a->whole ? a->whole : a->t;
	if (!m || !m->top[0].own || m->top[0].own != m->top[0].inner || m->top[0].call ||
	    !m->n_native || (m->native[0].frame & HW_RANGE_FRAME) ||
	    m->native[0].frame > w->n_host_frames)
		return 0;
	const struct trace_host_frame *nf = &w->host_frames[m->native[0].frame - 1];
	return !interpreter_module(trace_str(w, nf->module_id)) &&
	       m->top[0].ns >= TH_EVIDENCE_SHARE * (double)c->idle_ns &&
	       m->cpu_ns >= TH_EVIDENCE_SHARE * (double)m->wall_ns;
}

/* The same from op events (a torch.profiler trace): the op that holds the
 * most GPU idle among those that launch nothing on the GPU (a CPU op:
 * torch.stack of the batch's rows, an index_select of a CPU dataset, a
 * pin_memory) holds TH_EVIDENCE_SHARE of the host idle in calls of its own
 * before the batch's copies. ProfilerStep and the copy itself launch work;
 * an optimizer on the GPU launches kernels. */
static const struct an_op *cpu_op_makes_batch(const struct analysis *a, int64_t host)
{
	const struct an_op *best = NULL;
	for (size_t i = 0; i < a->ops.n; i++) {
		const struct an_op *o = &a->ops.v[i];
		if (!o->kernels && o->idle_ns > 0 && (!best || o->idle_ns > best->idle_ns))
			best = o;
	}
	return best && best->calls >= TH_INPUT_MIN_STRETCHES &&
		       (double)best->idle_ns >= TH_EVIDENCE_SHARE * (double)host
		   ? best
		   : NULL;
}

static void input_by_copies(struct an_hostside *h, const char *how)
{
	h->kind = HK_INPUT;
	h->how = how;
	h->input_share = (double)h->input_gap_ns / (double)h->long_gap_ns;
	h->overhead_share = 1 - h->input_share;
}

void an_hostside(struct analysis *a)
{
	struct an_hostside *h = &a->hostside;
	const struct an_ops *o = &a->ops;
	const struct an_hostidle *s = &a->hostidle;
	h->kind = HK_UNKNOWN;
	h->how = "";
	h->makes_batch = HB_NONE;
	h->batch_op_id = 0;
	h->input_share = h->overhead_share = -1;
	input_copies(a, h);
	int64_t host = a->idle.host_ns;
	if (host <= 0)
		return;
	if (o->have_ops) {
		double in = (double)o->host_idle_dataload_ns / (double)host;
		double rest =
		    (double)(o->host_idle_in_ops_ns - o->host_idle_dataload_ns) / (double)host;
		in = in > 1 ? 1 : in;
		rest = rest < 0 ? 0 : rest > 1 ? 1 : rest;
		h->input_share = in;
		h->overhead_share = rest;
		if (in >= TH_EVIDENCE_SHARE && in >= rest) {
			h->kind = HK_INPUT;
			h->how = "op events: DataLoader ranges";
			return;
		}
		const struct an_op *op = rest >= TH_EVIDENCE_SHARE && copies_say_input(h, host)
					     ? cpu_op_makes_batch(a, host)
					     : NULL;
		if (op) {
			input_by_copies(h, "op events and copies: a CPU op makes each batch before "
					   "its copy");
			h->makes_batch = HB_OP;
			h->batch_op_id = op->name_id;
			return;
		}
		if (rest >= TH_EVIDENCE_SHARE) {
			h->kind = HK_OVERHEAD;
			h->how = "op events: other ops, no DataLoader";
			return;
		}
	}
	if (s->have_samples && s->idle_ns > 0) {
		double in = (double)s->dataload_ns / (double)s->idle_ns;
		double rest =
		    (double)(s->idle_ns - s->dataload_ns - s->compile_ns) / (double)s->idle_ns;
		h->input_share = in;
		h->overhead_share = rest;
		if (in >= TH_EVIDENCE_SHARE && in >= rest) {
			h->kind = HK_INPUT;
			h->how = "host samples: data loading";
			return;
		}
		if (rest >= TH_EVIDENCE_SHARE && copies_say_input(h, host) && s->perf_idle_ns > 0 &&
		    (double)s->datamake_ns >= TH_EVIDENCE_SHARE * (double)s->perf_idle_ns) {
			input_by_copies(h, "host samples and copies: the host's work ends in a "
					   "batch's copy each time");
			h->makes_batch = HB_NATIVE;
			return;
		}
		if (rest >= TH_EVIDENCE_SHARE && copies_say_input(h, host) &&
		    own_line_makes_batch(a)) {
			input_by_copies(h, "host samples and copies: one line of the program makes "
					   "each batch before its copy");
			h->makes_batch = HB_LINE;
			return;
		}
		if (rest >= TH_EVIDENCE_SHARE) {
			h->kind = HK_OVERHEAD;
			h->how = "host samples: other host work";
			return;
		}
	}
	if (h->long_gap_ns > 0 &&
	    (double)h->input_gap_ns >= TH_EVIDENCE_SHARE * (double)h->long_gap_ns) {
		input_by_copies(h, "copies: batch copies after host work");
	}
}

const char *host_kind_name(enum host_kind k)
{
	return k == HK_INPUT ? "input" : k == HK_OVERHEAD ? "overhead" : "unknown";
}
