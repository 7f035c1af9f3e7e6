/*
 * rules_compile.c - recompilation (issue #36 item 2): the program compiles
 * the same kernels again after their first compilation (JAX's jit for every
 * new shape, torch.compile after guard failures, cuDNN's runtime-compiled
 * kernels for each new sequence length, Triton's autotuning per key) and
 * the GPU waits. The JIT stretches are phases.c's (a GPU-idle host stretch
 * ending in module loads before a kernel); a stretch whose first kernel an
 * earlier stretch compiled already is a recompilation. Its impact is the
 * JIT idle inside the analysed window (idle.jit_ns, which no other rule
 * charges); when the compilations never stop, analysis.c makes that window
 * the whole run rather than the last quiet stretch.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/phases.h"
#include "analyze/program.h"
#include "diagnose/rules_int.h"
#include "diagnose/switches.h"
#include "diagnose/verdict.h"
#include "util/demangle.h"
#include "util/error.h"
#include "util/i18n.h"

struct again {
	uint64_t n;	   /* stretches compiling a kernel compiled before */
	int64_t ns;	   /* their summed length */
	uint32_t kernel;   /* the kernel compiled again most often */
	uint64_t kernel_n; /* how often */
};

static void count_again(const struct an_phases *ph, struct again *g)
{
	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < ph->n_jit; i++) {
		uint64_t before = 0;
		for (size_t k = 0; k < i; k++)
			before += ph->jit[k].first_kernel_id == ph->jit[i].first_kernel_id;
		if (!before)
			continue;
		g->n++;
		g->ns += ph->jit[i].end_ns - ph->jit[i].start_ns;
		if (before > g->kernel_n) {
			g->kernel_n = before;
			g->kernel = ph->jit[i].first_kernel_id;
		}
	}
}

/* The compilation that moved the window's idle is cuDNN's attention built
 * again for new shapes (torchmodes.c, hostidle.c), not torch.compile's. */
static int attn_rebuilt(const struct analysis *a)
{
	const struct an_hostidle *h = &a->hostidle;
	return h->recompile_ns && h->compile_op && a->ops.modes.attn_builds &&
	       h->compile_op == a->ops.modes.attn_build_op;
}

static void advise(struct finding *f, const struct analysis *a, const char *kname)
{
	enum prog_kind k = a->prog.kind;
	/* a compiler in the host samples or torch.compile's ranges say whose
	 * compiling it is, whatever kernel came first after a stretch */
	int cudnn =
	    strstr(kname, "cudnn") != NULL && (!a->hostidle.recompile_ns || attn_rebuilt(a));
	if (k == PK_JAX) {
		finding_action(f, N_("pad or bucket the dimensions that change to a few sizes, so "
				     "jax.jit compiles each once; pass Python values that take few "
				     "values as static_argnums and the rest as arrays"));
		finding_action(f, N_("see each compilation and its shapes: "
				     "jax.config.update(\"jax_log_compiles\", True) (or "
				     "JAX_LOG_COMPILES=1); keep XLA's persistent cache "
				     "(jax_compilation_cache_dir) across runs"));
	} else if (k == PK_PYTORCH && cudnn) {
		finding_action(
		    f, N_("cuDNN builds its fused kernels (SDPA, convolutions) for each new "
			  "shape: pad or bucket the dimension that changes (sequence "
			  "length) to a few sizes; in decoding a static KV cache "
			  "(generate(..., cache_implementation=\"static\")) keeps the shapes "
			  "fixed"));
		finding_action(f, N_("torch.backends.cudnn.benchmark=True only when shapes are "
				     "fixed: it autotunes again for every new one"));
	} else if (k == PK_PYTORCH) {
		finding_action(f, N_("mark the dimension that changes as dynamic "
				     "(torch._dynamo.mark_dynamic(x, dim), or torch.compile(..., "
				     "dynamic=True)), or pad or bucket it to a few sizes"));
		finding_action(f,
			       N_("see why it recompiles: TORCH_LOGS=recompiles names the guard "
				  "that failed (a changing shape, a Python value, a new dtype)"));
	} else if (k == PK_CUPY) {
		finding_action(f,
			       N_("build RawKernel / ElementwiseKernel objects once, outside "
				  "the loop, and keep CuPy's kernel cache (CUPY_CACHE_DIR) across "
				  "runs; pad or bucket the sizes a kernel is specialised on"));
	} else if (prog_has(&a->prog, PL_TRITON)) {
		finding_action(f, N_("Triton compiles and autotunes per key: keep the autotune "
				     "key= to arguments that take few values, round sizes to "
				     "buckets, and cache results across runs "
				     "(@triton.autotune(cache_results=True), "
				     "TRITON_CACHE_AUTOTUNING=1)"));
	} else {
		finding_action(f, N_("compile each kernel once (NVRTC or cuModuleLoadData before "
				     "the loop) and keep the loaded modules, not once per call; "
				     "specialise on a few sizes"));
	}
}

/* recompilation by cuDNN's autotuning alone: the autotuning calls' time in
 * the window is the impact (the candidates' kernels are work thrown away,
 * and the host waits on each) */
static int rule_autotuning(struct rule_ctx *c, const struct rule *r, double tune, char *err)
{
	struct analysis *a = c->a;
	if (tune < TH_MIN_IMPACT_PCT)
		return 0;
	const struct an_op_modes *o = &a->ops.modes;
	struct finding *f =
	    o->autotune_calls
		? finding_add(&a->findings, r->id, rule_sev(tune),
			      N_("cuDNN autotunes convolutions again for new input shapes: %llu "
				 "autotuning calls, %llu of them in the second half of the run; "
				 "they take %.1f%% of the analysed window"),
			      (unsigned long long)o->autotune_calls,
			      (unsigned long long)o->autotune_late, tune)
		: finding_add(&a->findings, r->id, rule_sev(tune),
			      N_("cuDNN autotunes convolutions again for new input shapes: its "
				 "search is in the host samples for %.1f%% of the analysed window, "
				 "into its second half"),
			      tune);
	if (!f)
		return error_set(err, "out of memory");
	f->impact_pct = tune;
	adv_autotuning(f, a);
	return 0;
}

/* "entry (file:line) from own (file:line)": the compiler's outermost frame
 * the compile samples went through most, and the program's frame that
 * called it */
static void frame_name(const struct trace *w, uint32_t id, char *buf, size_t cap)
{
	const struct trace_host_frame *fr = &w->host_frames[id - 1];
	const char *file = trace_str(w, fr->file_id), *slash = strrchr(file, '/');
	if (*file)
		snprintf(buf, cap, "%s (%s:%u)", trace_str(w, fr->name_id),
			 slash ? slash + 1 : file, (unsigned)fr->line);
	else
		snprintf(buf, cap, "%s", trace_str(w, fr->name_id));
}

/* what the compiling that keeps coming is (hostidle.h): the compiler's
 * entry from the host samples, or torch.compile's range */
static void compile_evidence(struct finding *f, const struct analysis *a)
{
	const struct an_hostidle *h = &a->hostidle;
	const struct trace *w = a->whole ? a->whole : a->t;
	finding_num(f, "compile_idle_pct", an_pct(a, (double)h->recompile_ns));
	if (h->compile_op) {
		finding_str(f, "compile_op", "%s", trace_str(a->t, h->compile_op));
		return;
	}
	if (h->late_idle_ns > 0)
		finding_num(f, "compile_late_share_pct",
			    100.0 * (double)h->compile_late_ns / (double)h->late_idle_ns);
	if (!h->compile_entry || h->compile_entry > w->n_host_frames)
		return;
	char in[256], own[256];
	frame_name(w, h->compile_entry, in, sizeof(in));
	if (h->compile_own && h->compile_own <= w->n_host_frames) {
		frame_name(w, h->compile_own, own, sizeof(own));
		finding_str(f, "compile_function", "%s, from %s", in, own);
	} else {
		finding_str(f, "compile_function", "%s", in);
	}
}

int rule_recompilation(struct rule_ctx *c, const struct rule *r, char *err)
{
	struct analysis *a = c->a;
	struct again g;
	count_again(&a->phases, &g);
	/* compiling that the host samples or torch.compile's ranges show
	 * going on into the window's second half (hostidle.c moved its idle
	 * into idle.jit_ns): XLA's autotuner runs kernels between
	 * compilations, so few stretches end in a module load */
	const struct an_hostidle *hi = &a->hostidle;
	int sampled = hi->recompile_ns > 0;
	/* cuDNN autotuning every new shape (cudnn.benchmark, switches.h): its
	 * candidates keep the GPU busy, so no JIT stretch shows it */
	double tune = 0;
	int tuning = sw_autotuning(a, &tune);
	/* one kernel compiled again TH_RECOMPILE_MIN times or more: XLA's
	 * fusion names are generic (loop_xor_fusion in two jitted functions
	 * compiled once each: jax_train, H200) */
	if (g.kernel_n < TH_RECOMPILE_MIN && !tuning && !sampled)
		return 0;
	double impact = an_pct(a, (double)a->idle.jit_ns);
	int64_t run = an_gpu_run_ns(a);
	double run_share = run > 0 ? 100.0 * (double)g.ns / (double)run : 0;
	if (g.kernel_n < TH_RECOMPILE_MIN && !sampled)
		return rule_autotuning(c, r, tune, err);
	if (impact < TH_MIN_IMPACT_PCT && run_share < TH_MIN_IMPACT_PCT)
		return tuning ? rule_autotuning(c, r, tune, err) : 0;
	struct finding *f;
	const struct an_op_modes *om = &a->ops.modes;
	/* the compile op is cuDNN's attention, built again for new shapes */
	int built = attn_rebuilt(a);
	if (built)
		f = finding_add(&a->findings, r->id, rule_sev(impact),
				N_("cuDNN builds its fused attention kernel again for new input "
				   "shapes: %llu builds of %.0f ms (the median) in %s calls, %llu "
				   "of them in the second half of the run; the GPU idles %.1f%% of "
				   "the analysed window in them"),
				(unsigned long long)om->attn_builds,
				rule_ms(om->attn_build_median_ns), trace_str(a->t, hi->compile_op),
				(unsigned long long)om->attn_build_late, impact);
	else if (sampled && hi->compile_op)
		f = finding_add(&a->findings, r->id, rule_sev(impact),
				N_("torch.compile compiles again inside the profiled steps: %llu "
				   "compilations (%s ranges); the GPU idles %.1f%% of the analysed "
				   "window in compilation"),
				(unsigned long long)hi->compile_op_calls,
				trace_str(a->t, hi->compile_op), impact);
	else if (sampled)
		f = finding_add(&a->findings, r->id, rule_sev(impact),
				N_("the program keeps compiling: %llu compilations in the host "
				   "samples; the GPU idles %.1f%% of the analysed window while the "
				   "host compiles, and in the window's second half %.0f%% of the "
				   "host's samples in GPU-idle time are still in a compiler"),
				(unsigned long long)hi->compile_runs, impact,
				hi->late_idle_ns > 0
				    ? 100.0 * (double)hi->compile_late_ns / (double)hi->late_idle_ns
				    : 0);
	else
		f = finding_add(
		    &a->findings, r->id, rule_sev(impact),
		    N_("%llu compilations repeat a kernel compiled before (new shapes, "
		       "guards, autotuning): %.0f ms, %.1f%% of the run's GPU work; the "
		       "GPU idles %.1f%% of the analysed window in compilation"),
		    (unsigned long long)g.n, rule_ms(g.ns), run_share, impact);
	if (!f)
		return error_set(err, "out of memory");
	f->impact_pct = impact;
	if (tuning && adv_autotuning(f, a) && tune > impact) {
		f->impact_pct = tune;
		f->severity = rule_sev(tune);
	}
	const struct trace *w = a->whole ? a->whole : a->t;
	char buf[512], line[TH_NAME_COLS + 4];
	const char *raw = g.kernel_n ? trace_str(w, g.kernel) : "";
	const char *full = *raw ? gs_demangle(raw, buf, sizeof(buf)) : "(unnamed kernel)";
	gs_one_line_name(full, line, sizeof(line), TH_NAME_COLS);
	if (sampled)
		compile_evidence(f, a);
	if (built) {
		finding_num(f, "cudnn_builds", (double)om->attn_builds);
		finding_num(f, "cudnn_build_ms", rule_ms(om->attn_build_median_ns));
		finding_num(f, "cudnn_build_late", (double)om->attn_build_late);
		finding_num(f, "cudnn_attention_calls", (double)om->attn_calls);
	}
	/* in a trace without host samples torch.compile's ranges are the
	 * compilations, each one in the profiled steps a compilation again */
	uint64_t ops = hi->compile_op ? hi->compile_op_calls : 0;
	int64_t ops_ns = hi->compile_op ? hi->compile_op_ns : 0;
	/* the host samples' compilations, the first of them included (the
	 * JIT stretches see only those that end in a module load); which of
	 * them compile again they do not tell (a graph break makes one
	 * compilation of each piece) */
	uint64_t runs = sampled ? hi->compile_runs : 0;
	uint64_t comps = ops > a->phases.jit_total ? ops : a->phases.jit_total;
	finding_num(f, "compilations", (double)(runs > comps ? runs : comps));
	finding_num(f, "recompilations", (double)(ops > g.n ? ops : g.n));
	finding_num(f, "recompile_ms", rule_ms(ops ? ops_ns : g.ns));
	/* a compile range may start before the first GPU work: at most all */
	double ops_share = run > 0 ? 100.0 * (double)ops_ns / (double)run : 0;
	finding_num(f, "run_share_pct", ops ? (ops_share > 100 ? 100 : ops_share) : run_share);
	finding_num(f, "jit_idle_pct", impact);
	if (g.kernel_n) {
		finding_str(f, "kernel", "%s", full);
		finding_num(f, "kernel_recompilations", (double)g.kernel_n);
	}
	finding_num(f, "window_share_pct", run > 0 ? 100.0 * (double)a->span_ns / (double)run : 0);
	if (a->recompiling)
		finding_str(f, "window", "%s",
			    "the whole run: the compilations do not stop, so no steady state "
			    "was cut out");
	advise(f, a, built ? trace_str(a->t, hi->compile_op) : raw);
	return 0;
}
