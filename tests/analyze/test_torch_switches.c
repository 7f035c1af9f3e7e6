/*
 * test_torch_switches.c - PyTorch switches left on, named
 * (docs/causes.md rows 13, 18 and 20; analyze/torchmodes.c, diagnose/switches.c),
 * on traces built in memory:
 *  - anomaly detection from op events: every backward node
 *    (autograd::engine::evaluate_function) holds a NaN check (aten::isnan,
 *    aten::_is_any_true, aten::item and its sync); near misses: the same
 *    backward without checks and one loss.item() a step on the main thread,
 *    and checks inside AccumulateGrad (a gradient hook), which anomaly
 *    detection never makes;
 *  - anomaly detection from host samples: the traceback each forward op
 *    stores (torch/fx/traceback.py format_stack); near miss: the program's
 *    own traceback.format_stack;
 *  - cuDNN autotuning per shape: convolution calls launching 40 kernels
 *    every third step through the run, 11 in the others (the H200's
 *    measurement: 71-197 and 5-11), recompilation names it; near misses:
 *    fixed shapes, autotuned in the first step only, and fixed shapes
 *    under anomaly detection, whose backward nodes' NaN checks launch 32
 *    kernels beside the convolution's 11 (not the convolution's own);
 *  - DDP's find_unused_parameters=True: the tail of each
 *    DistributedDataParallel.forward range after its last op, or its
 *    _post_forward in the host samples; near misses: a tail of 3 us (False),
 *    host time between two forward ops, and a program's own function named
 *    _post_forward;
 *  - torch.optim's per-parameter path (foreach=False): the kernels launched
 *    inside the "Optimizer.step#AdamW.step" ranges, or its _single_tensor_*
 *    function in the host samples; near misses: the same launches from
 *    multi-tensor ops (foreach), a step of few launches, and a program's
 *    own function named _single_tensor_update.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analysis.h"
#include "diagnose/diagnose.h"
#include "diagnose/finding.h"
#include "report/finding.h"
#include "build_trace.h"

enum { NONE, ANOMALY, HOOK };

static struct trace_range *op(struct trace *t, double s, double e, uint32_t tid, const char *n)
{
	struct trace_range *r = bt_range(t, s, e, tid, n);
	r->kind = RANGE_CPU_OP;
	return r;
}

/* a kernel of dur us launched at `at` from thread tid */
static void launch(struct trace *t, uint32_t *corr, double at, double dur, uint32_t tid,
		   const char *name)
{
	bt_api(t, at, at + 4, API_LAUNCH, *corr, "cudaLaunchKernel")->tid = tid;
	bt_kernel(t, at + 6, at + 6 + dur, 7, (*corr)++, name, 1056, 256, 32);
}

/* 10 training steps: a forward op on thread 1, then 8 backward nodes on
 * autograd's device thread 2; mode ANOMALY: each node checks its output
 * for NaN with a 1-byte read and a sync; HOOK: the same checks inside
 * AccumulateGrad nodes; NONE: no checks, one loss.item() a step on
 * thread 1 */
static void train(struct trace *t, int mode)
{
	bt_init(t);
	uint32_t corr = 1;
	for (int i = 0; i < 10; i++) {
		double t0 = 1000 + 2000.0 * i;
		op(t, t0, t0 + 20, 1, "aten::linear");
		launch(t, &corr, t0 + 2, 40, 1, "at::native::gemm_fw");
		for (int j = 0; j < 8; j++) {
			double tb = t0 + 100 + 200.0 * j;
			op(t, tb, tb + 180, 2,
			   mode == HOOK ? "autograd::engine::evaluate_function: "
					  "torch::autograd::AccumulateGrad"
					: "autograd::engine::evaluate_function: AddmmBackward0");
			launch(t, &corr, tb + 2, 30, 2, "at::native::gemm_bw");
			if (mode == NONE)
				continue;
			op(t, tb + 50, tb + 60, 2, "aten::isnan");
			launch(t, &corr, tb + 52, 2, 2, "at::native::ne_kernel");
			op(t, tb + 62, tb + 72, 2, "aten::_is_any_true");
			launch(t, &corr, tb + 64, 2, 2, "at::native::reduce_kernel_or");
			op(t, tb + 75, tb + 170, 2, "aten::item");
			op(t, tb + 76, tb + 168, 2, "aten::_local_scalar_dense");
			bt_api(t, tb + 77, tb + 80, API_MEMCPY, corr, "cudaMemcpyAsync")->tid = 2;
			bt_copy(t, tb + 80, tb + 82, 7, corr++, COPY_DTOH, MEM_DEVICE, MEM_PAGEABLE,
				1);
			bt_api(t, tb + 80, tb + 84, API_SYNC, 0, "cudaStreamSynchronize")->tid = 2;
		}
		if (mode == NONE) {
			double te = t0 + 1800;
			op(t, te, te + 100, 1, "aten::item");
			bt_api(t, te + 1, te + 4, API_MEMCPY, corr, "cudaMemcpyAsync");
			bt_copy(t, te + 5, te + 7, 7, corr++, COPY_DTOH, MEM_DEVICE, MEM_PAGEABLE,
				4);
			bt_api(t, te + 5, te + 9, API_SYNC, 0, "cudaStreamSynchronize");
		}
	}
}

/* 1 when some finding of a names anomaly detection (evidence or action) */
static int named(const struct analysis *a, const char *key, const char *words,
		 const struct finding **out)
{
	for (size_t i = 0; i < a->findings.n; i++) {
		const struct finding *f = &a->findings.v[i];
		int hit = finding_get(f, key) != NULL;
		for (int k = 0; k < f->n_actions; k++)
			hit |= strstr(f->actions[k], words) != NULL;
		if (hit) {
			*out = f;
			return 1;
		}
	}
	*out = NULL;
	return 0;
}

static void run(struct trace *t, struct analysis *a)
{
	char err[256];
	trace_sort(t);
	assert_int_equal(analysis_run(a, t, err), 0);
}

static void anomaly_from_ops(void **state)
{
	(void)state;
	static const struct {
		int mode, expect;
	} cases[] = {{ANOMALY, 1}, {NONE, 0}, {HOOK, 0}};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct trace t;
		struct analysis a;
		const struct finding *f;
		train(&t, cases[c].mode);
		run(&t, &a);
		int got = named(&a, "anomaly_checked_nodes", "anomaly detection", &f);
		if (got != cases[c].expect)
			fail_msg("mode %d: anomaly named %d, expected %d (primary %s)",
				 cases[c].mode, got, cases[c].expect,
				 a.primary ? a.primary->id : "none");
		if (got) {
			/* the syncs are its checks: sync_stall names it first and
			 * does not send the user after a read of their own */
			assert_string_equal(f->id, "sync_stall");
			assert_non_null(strstr(f->actions[0], "set_detect_anomaly(False)"));
			assert_int_equal((int)finding_get(f, "anomaly_checked_nodes")->num, 80);
			assert_int_equal((int)finding_get(f, "backward_nodes")->num, 80);
			for (int k = 0; k < f->n_actions; k++)
				assert_null(strstr(f->actions[k], "the syncs come from"));
		}
		analysis_release(&a);
		trace_release(&t);
	}
}

static uint32_t frame(struct trace *t, uint32_t parent, const char *fn, const char *file)
{
	struct trace_host_frame *f = trace_add_host_frame(t);
	f->id = (uint32_t)t->n_host_frames;
	f->kind = HOST_FRAME_PYTHON;
	f->name_id = trace_intern(t, fn);
	f->module_id = trace_intern(t, "");
	f->file_id = trace_intern(t, file);
	struct trace_host_stack *s = trace_add_host_stack(t);
	s->id = (uint32_t)t->n_host_stacks;
	s->parent_id = parent;
	s->frame_id = f->id;
	return s->id;
}

/* a recording without op events: PyTorch kernels of 100 us after 1 ms of
 * host work each, the main thread sampled every 100 us; half its samples
 * store a traceback, in anomaly detection's (torch_fx) or the program's own
 * (traceback.format_stack called from train.py) */
static void sampled(struct trace *t, int torch_fx)
{
	bt_init(t);
	uint32_t step = frame(t, 0, "step", "/work/train.py");
	uint32_t cap = torch_fx
			   ? frame(t, step, "format_stack",
				   "/usr/lib/python3/site-packages/torch/fx/traceback.py")
			   : frame(t, step, "format_stack", "/usr/lib/python3.12/traceback.py");
	cap = frame(t, cap, "extract_stack", "/usr/lib/python3.12/traceback.py");
	uint32_t corr = 1;
	for (int i = 0; i < 20; i++) {
		double t0 = 1000 + 1200.0 * i;
		for (int k = 0; k < 10; k++) {
			struct trace_host_sample *s = trace_add_host_sample(t);
			s->ts_ns = (int64_t)((t0 + 50 + 100.0 * k) * US);
			s->pid = 100;
			s->tid = 100;
			s->stack_id = k % 2 ? cap : step;
			s->weight_ns = 100000;
			s->source = HOST_SRC_PYREAD;
		}
		launch(t, &corr, t0 + 1050, 100, 1, "at::native::vectorized_elementwise_kernel");
	}
}

/* 20 host-bound steps of 1 ms, the main thread sampled every 100 us: a
 * third of its samples (4 of 10) in stack `third`, the rest in `rest` */
static void third_sampled(struct trace *t, uint32_t third, uint32_t rest)
{
	uint32_t corr = 1;
	for (int i = 0; i < 20; i++) {
		double t0 = 1000 + 1200.0 * i;
		for (int k = 0; k < 10; k++) {
			struct trace_host_sample *s = trace_add_host_sample(t);
			s->ts_ns = (int64_t)((t0 + 50 + 100.0 * k) * US);
			s->pid = 100;
			s->tid = 100;
			s->stack_id = k % 3 == 0 ? third : rest;
			s->weight_ns = 100000;
			s->source = HOST_SRC_PYREAD;
		}
		launch(t, &corr, t0 + 1050, 100, 1, "at::native::vectorized_elementwise_kernel");
	}
}

/* the same from host samples: a third of the main thread's samples in
 * DDP's _post_forward (torch's), or in the program's own function of that
 * name (not DDP's) */
static void ddp_sampled(struct trace *t, int torch_ddp)
{
	bt_init(t);
	uint32_t step = frame(t, 0, "step", "/work/train.py");
	uint32_t fwd = frame(t, step, "forward",
			     "/usr/lib/python3/site-packages/torch/nn/parallel/distributed.py");
	uint32_t post =
	    torch_ddp ? frame(t, fwd, "DistributedDataParallel._post_forward",
			      "/usr/lib/python3/site-packages/torch/nn/parallel/distributed.py")
		      : frame(t, step, "_post_forward", "/work/train.py");
	third_sampled(t, post, fwd);
}

static void anomaly_from_samples(void **state)
{
	(void)state;
	for (int fx = 1; fx >= 0; fx--) {
		struct trace t;
		struct analysis a;
		const struct finding *f;
		sampled(&t, fx);
		run(&t, &a);
		int got = named(&a, "anomaly_host_pct", "anomaly detection", &f);
		assert_int_equal(got, fx);
		if (got) {
			assert_string_equal(f->id, "host_overhead");
			assert_non_null(strstr(f->actions[0], "set_detect_anomaly(False)"));
			assert_true(finding_get(f, "anomaly_host_pct")->num >= 40.0);
			assert_null(finding_get(f, "anomaly_checked_nodes"));
		}
		analysis_release(&a);
		trace_release(&t);
	}
}

/* DDP with find_unused_parameters (row 20), from op events: 20 host-bound
 * steps whose "DistributedDataParallel.forward" range (a user annotation)
 * holds the forward's ops and, after the last one, `tail` us of
 * _post_forward (the reducer's graph walk records no op), then a backward
 * op; gap: 300 us of host time between two forward ops instead (not DDP's:
 * never named) */
static void ddp_ops(struct trace *t, double tail, double gap)
{
	bt_init(t);
	uint32_t corr = 1;
	for (int i = 0; i < 20; i++) {
		double t0 = 1000 + 2000.0 * i, at = t0 + 5;
		double end = t0 + 5 + 8 * 60.0 + gap + tail + 5;
		bt_range(t, t0, end, 1, "DistributedDataParallel.forward")->kind = RANGE_ANNOTATION;
		for (int k = 0; k < 8; k++) {
			op(t, at, at + 50, 1, "aten::linear");
			launch(t, &corr, at + 2, 20, 1, "at::native::gemm_fw");
			at += 60 + (k == 3 ? gap : 0);
		}
		op(t, end + 100, end + 400, 1,
		   "autograd::engine::evaluate_function: AddmmBackward0");
		launch(t, &corr, end + 102, 30, 1, "at::native::gemm_bw");
	}
}

static void ddp_from_ops(void **state)
{
	(void)state;
	static const struct {
		double tail, gap;
		int expect;
	} cases[] = {{400, 0, 1}, {3, 0, 0}, {3, 300, 0}};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct trace t;
		struct analysis a;
		const struct finding *f;
		ddp_ops(&t, cases[c].tail, cases[c].gap);
		run(&t, &a);
		int got = named(&a, "ddp_unused_search_pct", "find_unused_parameters", &f);
		if (got != cases[c].expect)
			fail_msg(
			    "tail %.0f us, gap %.0f us: DDP named %d, expected %d (primary %s)",
			    cases[c].tail, cases[c].gap, got, cases[c].expect,
			    a.primary ? a.primary->id : "none");
		/* the analysed window may leave the first step out */
		assert_in_range(a.ops.modes.ddp_forwards, 19, 20);
		if (got) {
			/* a tail of 400 us a step of 2 ms (415 us from the last op's
			 * end: it ends 10 us into its 60 us slot, the range 5 us
			 * after the tail) */
			double pct = finding_get(f, "ddp_unused_search_pct")->num;
			double ms = finding_get(f, "ddp_post_forward_ms")->num;
			print_message("  %.0f forwards, %.2f ms of tails, %.1f%% of the window\n",
				      finding_get(f, "ddp_forwards")->num, ms, pct);
			assert_in_range((long)pct, 18, 22);
			assert_true(ms > 0.415 * a.ops.modes.ddp_forwards - 0.01 &&
				    ms < 0.415 * a.ops.modes.ddp_forwards + 0.01);
		}
		analysis_release(&a);
		trace_release(&t);
	}
}

/* 20 launch-bound training steps: a forward op, then torch.optim's step
 * range (a user annotation) holding `params` updates of `per` elementwise
 * ops of 15 us with a 2 us kernel each (named aten::add_, or
 * aten::_foreach_add_ with multi: the multi-tensor path) */
static void optim_ops(struct trace *t, int params, int per, int multi, const char *range)
{
	bt_init(t);
	uint32_t corr = 1;
	for (int i = 0; i < 20; i++) {
		double t0 = 1000 + 4000.0 * i, at = t0 + 100;
		op(t, t0, t0 + 20, 1, "aten::linear");
		launch(t, &corr, t0 + 2, 40, 1, "at::native::gemm_fw");
		double end = at + params * per * 15.0 + 5;
		bt_range(t, at - 2, end, 1, range)->kind = RANGE_ANNOTATION;
		for (int k = 0; k < params * per; k++, at += 15) {
			op(t, at, at + 12, 1, multi ? "aten::_foreach_add_" : "aten::add_");
			launch(t, &corr, at + 2, 2, 1,
			       "at::native::vectorized_elementwise_kernel<4, add>");
		}
	}
}

static void optim_from_ops(void **state)
{
	(void)state;
	static const char adamw[] = "Optimizer.step#AdamW.step",
			  lion[] = "Optimizer.step#Lion.step";
	static const struct {
		int params, per, multi, expect;
		const char *range;
	} cases[] = {
	    {40, 4, 0, 1, adamw}, {40, 4, 1, 0, adamw}, {8, 4, 0, 0, adamw}, {40, 4, 0, 1, lion}};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct trace t;
		struct analysis a;
		const struct finding *f;
		optim_ops(&t, cases[c].params, cases[c].per, cases[c].multi, cases[c].range);
		run(&t, &a);
		int got = named(&a, "optimizer_loop_pct", "foreach=True", &f);
		if (got != cases[c].expect)
			fail_msg("%d params x %d ops, multi %d: named %d, expected %d (primary %s)",
				 cases[c].params, cases[c].per, cases[c].multi, got,
				 cases[c].expect, a.primary ? a.primary->id : "none");
		if (got) {
			/* 160 of the step's 161 launches */
			double pct = finding_get(f, "optimizer_loop_pct")->num;
			assert_in_range((long)pct, 98, 100);
			assert_int_equal((int)finding_get(f, "optimizer_launches_per_step")->num,
					 160);
			assert_string_equal(finding_get(f, "optimizer_function")->str,
					    cases[c].range);
			/* the first thing to do: torch.optim's own takes foreach=True,
			 * another optimizer (Lion: not torch.optim's) is rewritten */
			int own = cases[c].range == adamw;
			assert_int_equal(strstr(f->actions[0], "pass foreach=True") != NULL, own);
			assert_int_equal(strstr(f->actions[0], "torch._foreach_") != NULL, !own);
		}
		analysis_release(&a);
		trace_release(&t);
	}
}

/* deterministic mode's fill: 20 steps of a linear layer whose 6 empty ops
 * (empty_like holding empty_strided: one outermost) each hold an aten::fill_
 * launching a 10 us NaN fill (FILL_ON), none do (FILL_OFF), or the steps
 * make their tensors with torch.zeros (an empty beside a zero_, whose
 * fill_ is outside the empty: FILL_ZEROS) */
enum { FILL_ON, FILL_OFF, FILL_ZEROS };

static void fill_ops(struct trace *t, int mode)
{
	bt_init(t);
	uint32_t corr = 1;
	for (int i = 0; i < 20; i++) {
		double t0 = 1000 + 1000.0 * i;
		op(t, t0, t0 + 20, 1, "aten::linear");
		launch(t, &corr, t0 + 2, 400, 1, "at::native::gemm_fw");
		for (int k = 0; k < 6; k++) {
			double at = t0 + 20 + 60.0 * k;
			if (mode == FILL_ZEROS)
				op(t, at - 1, at + 50, 1, "aten::zeros");
			op(t, at, at + 20, 1, "aten::empty_like");
			op(t, at + 1, at + 19, 1, "aten::empty_strided");
			double f = mode == FILL_ZEROS ? at + 25 : at + 5;
			if (mode == FILL_OFF)
				continue;
			op(t, f, f + 12, 1, mode == FILL_ZEROS ? "aten::zero_" : "aten::fill_");
			if (mode == FILL_ZEROS)
				op(t, f + 1, f + 11, 1, "aten::fill_");
			launch(t, &corr, f + 2, 10, 1,
			       "at::native::vectorized_elementwise_kernel<4, FillFunctor<float>>");
		}
	}
}

static void deterministic_fill(void **state)
{
	(void)state;
	for (int mode = FILL_ON; mode <= FILL_ZEROS; mode++) {
		struct trace t;
		struct analysis a;
		fill_ops(&t, mode);
		run(&t, &a);
		const struct finding *f = NULL;
		for (size_t i = 0; i < a.findings.n; i++)
			if (!strcmp(a.findings.v[i].id, "deterministic_fill"))
				f = &a.findings.v[i];
		if ((f != NULL) != (mode == FILL_ON))
			fail_msg("mode %d: deterministic_fill %s", mode, f ? "given" : "missing");
		assert_int_equal(a.ops.modes.empty_calls, 120);
		if (f) {
			assert_int_equal((int)finding_get(f, "filled_empty_calls")->num, 120);
			assert_int_equal((int)finding_get(f, "fill_kernels")->num, 120);
			/* 120 fills of 10 us */
			assert_in_range((long)(finding_get(f, "fill_gpu_ms")->num * 1000), 1199,
					1201);
			assert_non_null(strstr(f->actions[0], "fill_uninitialized_memory = False"));
		}
		analysis_release(&a);
		trace_release(&t);
	}
}

/* the same from host samples: a third of the main thread's samples in
 * torch.optim's _single_tensor_adamw, or in the program's own function of a
 * like name (not torch.optim's) */
static void optim_sampled(struct trace *t, int torch_optim)
{
	bt_init(t);
	uint32_t step = frame(t, 0, "step", "/work/train.py");
	uint32_t opt =
	    frame(t, step, "AdamW.step", "/usr/lib/python3/site-packages/torch/optim/adamw.py");
	uint32_t loop = torch_optim ? frame(t, opt, "_single_tensor_adamw",
					    "/usr/lib/python3/site-packages/torch/optim/adamw.py")
				    : frame(t, step, "_single_tensor_update", "/work/train.py");
	third_sampled(t, loop, step);
}

/* DDP's search and the optimizer's loop from host samples: named when the
 * samples are torch's, never for the program's own function of a like name */
static void switches_from_samples(void **state)
{
	(void)state;
	static const struct {
		void (*build)(struct trace *, int);
		const char *key, *words, *name, *absent;
	} cases[] = {
	    {ddp_sampled, "ddp_unused_search_pct", "find_unused_parameters", NULL, "ddp_forwards"},
	    {optim_sampled, "optimizer_loop_pct", "foreach=True", "_single_tensor_adamw",
	     "optimizer_steps"},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (int torch = 1; torch >= 0; torch--) {
			struct trace t;
			struct analysis a;
			const struct finding *f;
			cases[c].build(&t, torch);
			run(&t, &a);
			int got = named(&a, cases[c].key, cases[c].words, &f);
			assert_int_equal(got, torch);
			if (got) {
				double pct = finding_get(f, cases[c].key)->num;
				assert_in_range((long)pct, 35, 45); /* 4 samples of 10 */
				assert_null(finding_get(f, cases[c].absent));
				if (cases[c].name)
					assert_string_equal(
					    finding_get(f, "optimizer_function")->str,
					    cases[c].name);
			}
			analysis_release(&a);
			trace_release(&t);
		}
}

/* 30 steps of a convolution (aten::conv2d holding aten::cudnn_convolution,
 * 11 kernels) and an elementwise op; a call that autotunes launches 40
 * kernels of 100 us, every third step (changing 1: changing shapes) or the
 * first only (0, 2: fixed shapes, benchmark on); changing 2: each step's
 * backward node of the convolution also checks 16 outputs for NaN under
 * anomaly detection, an isnan and an _is_any_true kernel each */
static void convnet(struct trace *t, int changing)
{
	bt_init(t);
	uint32_t corr = 1;
	for (int i = 0; i < 30; i++) {
		double t0 = 1000 + 12000.0 * i;
		int tune = changing == 1 ? i % 3 == 0 : i == 0;
		int n = tune ? 40 : 11;
		double end = t0 + 10 + 110.0 * n;
		op(t, t0, end, 1, "aten::conv2d");
		op(t, t0 + 2, end - 2, 1, "aten::cudnn_convolution");
		for (int k = 0; k < n; k++)
			launch(t, &corr, t0 + 4 + 110.0 * k, 100, 1,
			       "sm90_xmma_fprop_implicit_gemm");
		op(t, end + 5, end + 20, 1, "aten::relu");
		launch(t, &corr, end + 6, 400, 1, "at::native::vectorized_elementwise_kernel");
		if (changing != 2)
			continue;
		double b0 = end + 500, c0 = b0 + 10 + 110.0 * 11;
		op(t, b0, c0 + 16 * 230.0 + 10, 1,
		   "autograd::engine::evaluate_function: ConvolutionBackward0");
		for (int k = 0; k < 11; k++)
			launch(t, &corr, b0 + 4 + 110.0 * k, 100, 1,
			       "sm90_xmma_dgrad_implicit_gemm");
		for (int k = 0; k < 16; k++) {
			double c = c0 + 230.0 * k;
			op(t, c, c + 110, 1, "aten::isnan");
			launch(t, &corr, c + 2, 100, 1,
			       "at::native::vectorized_elementwise_kernel");
			op(t, c + 115, c + 225, 1, "aten::_is_any_true");
			launch(t, &corr, c + 117, 100, 1, "at::native::reduce_kernel");
		}
	}
}

static void autotune_per_shape(void **state)
{
	(void)state;
	for (int changing = 2; changing >= 0; changing--) {
		struct trace t;
		struct analysis a;
		const struct finding *f;
		convnet(&t, changing);
		run(&t, &a);
		int got = named(&a, "autotune_pct", "cudnn.benchmark", &f);
		if (got != (changing == 1))
			fail_msg(
			    "changing %d: autotuning named %d (autotune calls %llu, late %llu)",
			    changing, got, (unsigned long long)a.ops.modes.autotune_calls,
			    (unsigned long long)a.ops.modes.autotune_late);
		assert_int_equal((int)a.ops.modes.conv_calls, changing == 2 ? 60 : 30);
		assert_int_equal((int)a.ops.modes.autotune_calls, changing == 1 ? 10 : 1);
		if (got) {
			assert_string_equal(f->id, "recompilation");
			assert_int_equal((int)finding_get(f, "autotune_late_calls")->num, 5);
			assert_string_equal(finding_get(f, "autotune_op")->str, "aten::conv2d");
			assert_true(f->impact_pct >= 5.0);
		}
		analysis_release(&a);
		trace_release(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(anomaly_from_ops),	     cmocka_unit_test(anomaly_from_samples),
	    cmocka_unit_test(autotune_per_shape),    cmocka_unit_test(ddp_from_ops),
	    cmocka_unit_test(switches_from_samples), cmocka_unit_test(optim_from_ops),
	    cmocka_unit_test(deterministic_fill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
