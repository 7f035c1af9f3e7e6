/*
 * test_report_v2.c - report v2's analysis passes (#16) on traces built in
 * memory: kernel families and owners of real kernel names (program.c), the
 * program kind of a trace, op attribution with a sync inside aten::item
 * and a DataLoader range (ops.c), the idle inside other CUDA calls by call
 * and cause (calls.c), JIT stretches (phases.c), memory peaks and
 * memory_peak (memory.c), the host-side split (hostside.c: input_pipeline
 * only with evidence, host_overhead otherwise), advice that fits (graphs
 * already used, pinned copies, a CUDA C program), the nothing-to-diagnose
 * verdicts, and API names without CUPTI's suffixes. The H200 recordings are
 * checked in test_report_fixtures.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "diagnose/advice.h"
#include "diagnose/diagnose.h"
#include "render/findings_render.h"
#include "build_trace.h"
#include "util/apiname.h"

static int any_action(const struct finding *f, const char *word)
{
	for (int i = 0; i < f->n_actions; i++)
		if (strstr(f->actions[i], word))
			return 1;
	return 0;
}

static void test_kernel_names(void **state)
{
	static const struct {
		const char *name;
		enum kfam fam;
		enum kown own;
	} names[] = {
	    /* names from the H200 fixtures */
	    {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", KF_GEMM, KO_LIBRARY},
	    {"sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize128x32x8_stage3_warpsize2x2x1_ffma_"
	     "aligna4_alignc4_execute_kernel__5x_cublas",
	     KF_GEMM, KO_LIBRARY},
	    {"cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x128_1x4x1_"
	     "cga1x1x1_kernel0_0",
	     KF_ATTENTION, KO_LIBRARY},
	    {"_ZN2at6native29vectorized_elementwise_kernelILi8ENS0_15CUDAFunctor_addIN3c108BFloat16"
	     "EEESt5arrayIPcLm3EEEEviT0_T1_",
	     KF_ELEMENTWISE, KO_FRAMEWORK},
	    {"triton_poi_fused_add_mul_0", KF_ELEMENTWISE, KO_GENERATED},
	    {"triton_tem_fused_addmm_1", KF_GEMM, KO_GENERATED},
	    {"loop_add_fusion", KF_ELEMENTWISE, KO_GENERATED},
	    {"loop_convert_fusion", KF_ELEMENTWISE, KO_GENERATED}, /* no convolution */
	    {"gemm_fusion_dot_3", KF_GEMM, KO_GENERATED},
	    {"cupy_add__float64_float64_float64", KF_ELEMENTWISE, KO_FRAMEWORK},
	    {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", KF_COMM, KO_LIBRARY},
	    /* cuFFT's (CuPy's fft2): a library's, never the user's to tune */
	    {"_Z11regular_fftILj2048E3EPTIJLj16EEELj4ELj2EL9padding_t14EL9twiddle_t0EL20loadstore_"
	     "modifier_t2EL8layout_t1Ejf21HostConfigPlaceholderEv18kernel_arguments_t",
	     KF_ELEMENTWISE, KO_LIBRARY},
	    {"_Z10fma_chainsILi16EEvPfiff", KF_OTHER, KO_USER},
	    {"add_one", KF_OTHER, KO_USER},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (prog_kernel_family(names[i].name) != names[i].fam ||
		    prog_kernel_owner(names[i].name) != names[i].own)
			fail_msg("%s: family %s owner %s, want %s %s", names[i].name,
				 kfam_name(prog_kernel_family(names[i].name)),
				 kown_name(prog_kernel_owner(names[i].name)),
				 kfam_name(names[i].fam), kown_name(names[i].own));
	}
	assert_true(prog_kernel_libs("triton_red_fused_sum_0") & 1u << PL_INDUCTOR);
	assert_true(prog_kernel_libs("nvjet_sm90_tst_64x8") & 1u << PL_CUBLAS);
	/* XLA's runtime kernel, templated on Eigen's bfloat16 (a JAX program on
	 * the H200): JAX, not TensorFlow; TensorFlow's Eigen kernels stay its */
	const char *xla_cmp =
	    "_ZN15stream_executor3gpu17xla_fp_comparisonIN5Eigen8bfloat16EEEvPT_S5_fmPi";
	assert_true(prog_kernel_libs(xla_cmp) & 1u << PL_JAX);
	assert_false(prog_kernel_libs(xla_cmp) & 1u << PL_TENSORFLOW);
	/* a @numba.cuda.jit kernel (H200) is Numba's; a C++ ABI tag alone is not */
	assert_true(
	    prog_kernel_libs("_ZN8__main__5saxpyB2v1B104cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3"
			     "Cw6igA9duC0hkwnNGiHEkYkrqQBFBTDEwCyQe21eqwcFW3UoDGjzpQEsgzrtUEAA_"
			     "3d_3dEf5ArrayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7ali"
			     "gnedE") &
	    1u << PL_NUMBA);
	assert_false(prog_kernel_libs("_ZN3foo3barB5cxx11Ev") & 1u << PL_NUMBA);
	assert_true(prog_kernel_libs("_ZN5Eigen8internal15EigenMetaKernelIiEEvT_i") &
		    1u << PL_TENSORFLOW);
	(void)state;
}

/* A family's kernel time is the union of its kernels (overlapping and
 * touching ones merged, another family's not counted), the same whether
 * the trace has samples (families.c keeps the intervals for gpm.c's
 * windows) or not (their length alone). */
static void test_family_union(void **state)
{
	(void)state;
	for (int sampled = 0; sampled < 2; sampled++) {
		struct trace t;
		struct analysis a;
		char err[256];
		bt_init(&t);
		const char *gemm = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";
		bt_kernel(&t, 10, 20, 7, 1, gemm, 132, 256, 64);
		bt_kernel(&t, 15, 30, 8, 2, gemm, 132, 256, 64); /* overlaps: 10-30 */
		bt_kernel(&t, 30, 35, 7, 3, gemm, 132, 256, 64); /* touches: 10-35 */
		bt_kernel(&t, 32, 34, 8, 4, gemm, 132, 256, 64); /* inside */
		bt_kernel(&t, 50, 60, 7, 5, gemm, 132, 256, 64); /* apart: + 10 */
		bt_kernel(&t, 36, 49, 9, 6, "triton_poi_fused_add_mul_0", 132, 256, 32);
		if (sampled) {
			struct trace_sample *x = trace_add_sample(&t);
			x->ts_ns = 40 * US;
			x->metric_id = trace_intern(&t, "gpu_util");
			x->value = 50;
		}
		analysis_sort(&t);
		assert_int_equal(analysis_run(&a, &t, err), 0);
		assert_int_equal(a.fam.f[KF_GEMM].kernel_ns, 35 * US);
		assert_int_equal(a.fam.f[KF_GEMM].sum_ns, 42 * US);
		assert_int_equal(a.fam.f[KF_ELEMENTWISE].kernel_ns, 13 * US);
		assert_int_equal(a.fam.f[KF_ATTENTION].kernel_ns, 0);
		assert_true(!a.fam.u[KF_GEMM].cum == !sampled);
		analysis_release(&a);
		trace_release(&t);
	}
}

static void test_api_names(void **state)
{
	char b[64];
	assert_string_equal(gs_api_name("cudaFree_v3020", b, sizeof(b)), "cudaFree");
	assert_string_equal(gs_api_name("cuMemAlloc_v2", b, sizeof(b)), "cuMemAlloc");
	assert_string_equal(gs_api_name("cuLaunchKernel", b, sizeof(b)), "cuLaunchKernel");
	assert_string_equal(gs_api_name("cudaLaunchKernelExC_v11060", b, sizeof(b)),
			    "cudaLaunchKernelExC");
	assert_string_equal(gs_api_name("_v2", b, sizeof(b)), "_v2"); /* nothing before it */
	assert_int_equal(call_cause_of("cudaFree"), CC_FREE);
	assert_int_equal(call_cause_of("cuDevicePrimaryCtxRetain"), CC_CONTEXT);
	assert_int_equal(call_cause_of("cuDevicePrimaryCtxGetState"), CC_QUERY);
	assert_int_equal(call_cause_of("cuModuleLoadData"), CC_MODULE);
	(void)state;
}

/* A CUDA C program that replays a CUDA graph of short kernels: its kind,
 * its graph share, and launch advice that does not tell it to use graphs. */
static void graph_program(struct trace *t)
{
	double at = 0;
	for (uint32_t i = 0; i < 2000; i++) {
		struct trace_kernel *k =
		    bt_kernel(t, at + 1, at + 3, 7, 0, "tiny_add", 1024, 256, 32);
		k->graph_id = 1;
		at += 4;
	}
	bt_api(t, 0, 1, API_LAUNCH, 1, "cudaGraphLaunch_v10000");
}

static void test_graphs_already_used(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	graph_program(&t);
	analysis_sort(&t);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	assert_int_equal(a.prog.kind, PK_CUDA);
	assert_true(a.prog.graph_kernel_share > 0.99);
	assert_true(prog_has(&a.prog, PL_GRAPHS));
	const struct finding *f = finding_find(&a.findings, "launch_overhead");
	assert_non_null(f);
	assert_false(any_action(f, "capture the launch sequence"));
	assert_true(any_action(f, "already launches CUDA graphs"));
	analysis_release(&a);
	trace_release(&t);
	(void)state;
}

/* A busy PyTorch trace whose kernels are index_add's, a gather and three
 * elementwise or reduction kernels, back to back (us[k] each a round);
 * nothing names the library. */
static void by_index_program(struct trace *t, const double *us)
{
	t->source = TRACE_SRC_PYTORCH;
	uint32_t c = 1;
	double at = 0;
	const char *name[5] = {
	    "void indexFuncLargeIndex<float, long, unsigned int, 2, 2, -2, true, "
	    "ReduceAdd>(TensorInfo<float, unsigned int>)",
	    "void at::native::vectorized_gather_kernel<16, long>(char*, char*)",
	    "void at::native::elementwise_kernel<128, 2>(int)",
	    "void at::native::vectorized_elementwise_kernel<4, AddFunctor>(int)",
	    "void at::native::reduce_kernel<512, 1>(ReduceOp)"};
	for (int round = 0; round < 200; round++)
		for (int k = 0; k < 5; k++) {
			if (us[k] <= 0)
				continue;
			bt_launched(t, at + 1, at + 1 + us[k], 7, c++, name[k], 4096, 128, at,
				    at + 0.5);
			at += 1 + us[k];
		}
}

/* 63% by index (pyg_gcn's torch.profiler trace): the sparse product and the
 * experts' grouping first, with the share as evidence; 32% (under a third,
 * index_add still the top kernel) keeps torch.compile first */
static void test_by_index_advice(void **state)
{
	(void)state;
	const double mix[2][5] = {{40, 23, 37, 0, 0}, {22, 6, 20, 20, 20}};
	for (int m = 0; m < 2; m++) {
		struct trace t;
		struct analysis a;
		char err[512];
		bt_init(&t);
		by_index_program(&t, mix[m]);
		analysis_sort(&t);
		assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
		assert_int_equal(a.prog.kind, PK_PYTORCH);
		assert_non_null(a.primary);
		const struct finding *f = a.primary;
		const struct evidence *e = finding_get(f, "by_index_kernel_pct");
		if (m == 0 && !e)
			finding_list_text(stderr, &a.findings);
		if (m == 0) {
			assert_non_null(e);
			assert_true(fabs(e->num - 63.0) < 0.5);
			assert_non_null(strstr(f->actions[0], "63%"));
			assert_non_null(strstr(f->actions[0], "torch.sparse.mm"));
			assert_non_null(strstr(f->actions[0], "grouped GEMMs"));
		} else {
			assert_null(e);
			assert_false(any_action(f, "torch.sparse.mm"));
			assert_true(any_action(f, "torch.compile"));
		}
		analysis_release(&a);
		trace_release(&t);
	}
}

/* A PyTorch trace: aten::item syncs inside its step, a DataLoader range
 * covering the GPU-idle host stretches; the kernels go to their ops, the
 * sync to aten::item (inner op aten::_local_scalar_dense), the call site to
 * the user's frame, and the host idle to the DataLoader: input_pipeline. */
static void pytorch_program(struct trace *t)
{
	t->source = TRACE_SRC_PYTORCH;
	uint32_t c = 1;
	for (int step = 0; step < 10; step++) {
		double s0 = step * 10000.0;
		/* 6 ms in the DataLoader, no CUDA call */
		struct trace_range *r =
		    bt_range(t, s0, s0 + 6000, 1,
			     "enumerate(DataLoader)#_SingleProcessDataLoaderIter."
			     "__next__");
		r->kind = RANGE_ANNOTATION;
		/* the copy of the batch */
		r = bt_range(t, s0 + 6000, s0 + 6100, 1, "aten::to");
		r->kind = RANGE_CPU_OP;
		bt_api(t, s0 + 6010, s0 + 6090, API_MEMCPY, c, "cudaMemcpyAsync");
		bt_copy(t, s0 + 6020, s0 + 6080, 7, c++, COPY_HTOD, MEM_PINNED, MEM_DEVICE,
			1 << 22);
		/* a linear */
		r = bt_range(t, s0 + 6100, s0 + 6200, 1, "aten::linear");
		r->kind = RANGE_CPU_OP;
		bt_launched(t, s0 + 6150, s0 + 9000, 7, c++, "nvjet_sm90_gemm", 264, 256, s0 + 6110,
			    s0 + 6120);
		/* loss.item() from the user's line */
		r = bt_range(t, s0 + 6200, s0 + 9100, 1, "train.py(42): step");
		r->kind = RANGE_PYTHON;
		r = bt_range(t, s0 + 6210, s0 + 9090, 1, "aten::item");
		r->kind = RANGE_CPU_OP;
		r = bt_range(t, s0 + 6220, s0 + 9080, 1, "aten::_local_scalar_dense");
		r->kind = RANGE_CPU_OP;
		bt_api(t, s0 + 6230, s0 + 9070, API_SYNC, c++, "cudaStreamSynchronize");
	}
}

static void test_pytorch_ops_and_input(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	pytorch_program(&t);
	analysis_sort(&t);
	assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
	assert_int_equal(a.prog.kind, PK_PYTORCH);
	assert_true(a.ops.have_ops && a.ops.have_stacks);
	const struct an_op *lin = an_op_find(&a.ops, trace_intern(&t, "aten::linear"));
	const struct an_op *item = an_op_find(&a.ops, trace_intern(&t, "aten::item"));
	assert_non_null(lin);
	assert_non_null(item);
	assert_int_equal(lin->calls, 10);
	assert_int_equal(lin->kernels, 10);
	assert_int_equal(lin->gpu_ns, 10 * 2850 * US);
	assert_int_equal(item->syncs, 10);
	assert_string_equal(trace_str(&t, item->inner_id), "aten::_local_scalar_dense");
	assert_string_equal(trace_str(&t, item->site_id), "train.py(42): step");
	/* every kernel and copy went to an op */
	assert_int_equal(a.ops.gpu_ns, a.ops.gpu_total_ns);
	/* the DataLoader holds the host idle: input_pipeline with PyTorch's
	 * actions, and no pin_memory advice (the batches are pinned) */
	assert_int_equal(a.hostside.kind, HK_INPUT);
	const struct finding *f = finding_find(&a.findings, "input_pipeline");
	assert_non_null(f);
	assert_null(finding_find(&a.findings, "host_overhead"));
	assert_true(any_action(f, "DataLoader workers"));
	assert_false(any_action(f, "pin_memory"));
	analysis_release(&a);
	trace_release(&t);
	(void)state;
}

/* The same host stretches with no evidence either way (a recording, no
 * DataLoader, no batch copy): host_overhead, which says the host is the
 * bottleneck and how to tell; never a DataLoader. */
static void test_host_unknown(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	uint32_t c = 1;
	for (int step = 0; step < 20; step++) {
		double s0 = step * 5000.0;
		bt_launched(&t, s0 + 20, s0 + 1000, 7, c, "k", 264, 256, s0, s0 + 10);
		c++;
	}
	analysis_sort(&t);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	assert_int_equal(a.hostside.kind, HK_UNKNOWN);
	assert_null(finding_find(&a.findings, "input_pipeline"));
	const struct finding *f = finding_find(&a.findings, "host_overhead");
	assert_non_null(f);
	assert_true(strstr(f->title, "the host is the bottleneck") != NULL);
	assert_true(any_action(f, "host sampling"));
	assert_false(any_action(f, "DataLoader"));
	assert_string_equal(a.primary->id, "host_overhead");
	analysis_release(&a);
	trace_release(&t);
	(void)state;
}

/* cudaFree + cudaMalloc in every step (empty_cache in the loop): the idle
 * inside them is named, by call and cause, with the allocator's actions;
 * names lose CUPTI's suffix; a process's first call is context creation. */
static void test_cuda_calls_idle(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	bt_api(&t, 0, 100000, API_FREE, 1, "cudaFree_v3020"); /* cudaFree(0): the context */
	uint32_t c = 2;
	double at = 100000;
	for (int step = 0; step < 20; step++) {
		bt_launched(&t, at + 20, at + 2000, 7, c, "k", 264, 256, at, at + 10);
		c++;
		bt_api(&t, at + 2000, at + 2600, API_FREE, c++, "cudaFree_v3020");
		bt_api(&t, at + 2600, at + 3000, API_ALLOC, c++, "cudaMalloc_v3020");
		at += 3000;
	}
	analysis_sort(&t);
	assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
	const struct finding *f = finding_find(&a.findings, "cuda_calls_idle");
	assert_non_null(f);
	assert_string_equal(finding_get(f, "top_call")->str, "cudaFree");
	assert_string_equal(finding_get(f, "top_call_cause")->str, "free");
	assert_int_equal((int)finding_get(f, "top_call_count")->num, 20);
	/* the calls' idle sums to the idle breakdown's other CUDA calls */
	assert_true(a.calls.idle_ns <= a.idle.api_ns);
	assert_true(a.calls.idle_ns > a.idle.api_ns * 99 / 100);
	/* the first cudaFree is context creation, apart from the others */
	int ctx = 0;
	for (size_t i = 0; i < a.calls.n; i++)
		ctx |= a.calls.v[i].cause == CC_CONTEXT && !strcmp(a.calls.v[i].name, "cudaFree");
	assert_true(ctx);
	assert_true(any_action(f, "allocate once"));
	analysis_release(&a);
	trace_release(&t);
	(void)state;
}

/* A decode loop is transformers' generate in the host samples' frames; a
 * "generate" of another library (jinja2's, which torch.compile's codegen
 * runs) is not one (torch_compile_warmup on the H200 was told to use a
 * static KV cache); in a trace's ops, generate's per-token ops are. */
static void test_decode_loop(void **state)
{
	static const char *const file[] = {
	    "/venv/lib/python3.12/site-packages/jinja2/compiler.py",
	    "/venv/lib/python3.12/site-packages/transformers/generation/utils.py"};
	for (int hf = 0; hf < 2; hf++) {
		struct trace t;
		struct analysis a;
		char err[512];
		bt_init(&t);
		for (int i = 0; i < 10; i++)
			bt_launched(&t, i * 100 + 10, i * 100 + 90, 7, (uint32_t)i + 1, "k", 64,
				    256, i * 100, i * 100 + 5);
		struct trace_host_frame *fr = trace_add_host_frame(&t);
		fr->id = 1;
		fr->kind = 2;
		fr->name_id = trace_intern(&t, "generate");
		fr->module_id = trace_intern(&t, "");
		fr->file_id = trace_intern(&t, file[hf]);
		analysis_sort(&t);
		assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
		assert_int_equal(adv_decode_loop(&a), hf);
		analysis_release(&a);
		trace_release(&t);
	}
	/* a torch.profiler trace without stacks: generate's aten::isin and
	 * aten::argmax once a token, 8 tokens; 7 tokens, or argmax alone (an
	 * evaluation's accuracy), is no decode loop */
	const int tokens[3] = {8, 7, 8}, with_isin[3] = {1, 1, 0};
	for (int c = 0; c < 3; c++) {
		struct trace t;
		struct analysis a;
		char err[512];
		bt_init(&t);
		t.source = TRACE_SRC_PYTORCH;
		for (int i = 0; i < 10; i++)
			bt_launched(&t, i * 100 + 10, i * 100 + 90, 7, (uint32_t)i + 1, "k", 64,
				    256, i * 100, i * 100 + 5);
		for (int k = 0; k < tokens[c]; k++) {
			struct trace_range *r =
			    bt_range(&t, k * 100 + 1, k * 100 + 3, 1, "aten::argmax");
			r->kind = RANGE_CPU_OP;
			r = bt_range(&t, k * 100 + 4, k * 100 + 6, 1,
				     with_isin[c] ? "aten::isin" : "aten::eq");
			r->kind = RANGE_CPU_OP;
		}
		analysis_sort(&t);
		assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
		assert_int_equal(adv_decode_loop(&a), c == 0);
		analysis_release(&a);
		trace_release(&t);
	}
	(void)state;
}

/* torch.compile's shape (torch_compile_warmup on the H200): a known fill
 * kernel first, then two compilations (a host stretch ending in
 * cuModuleLoad) each followed by the fill kernel before the new ones;
 * after the first, 3000 autotuning launches trying new configurations all
 * the time; after the second, the steps, with a late new kernel now and
 * then (lazy loads, cuBLAS heuristics). Both stretches are JIT although the
 * first launch after each is not new, and the steady state starts after
 * the second: the warm-launch rule alone keeps no window here. */
static void test_jit_after_known_kernel(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	uint32_t c = 1;
	double at = 0;
	bt_launched(&t, at + 10, at + 20, 7, c++, "fill", 64, 256, at, at + 5);
	at += 500000; /* 500 ms of compiling */
	bt_api(&t, at - 1000, at - 900, API_OTHER, c++, "cuModuleLoad");
	bt_launched(&t, at + 10, at + 20, 7, c++, "fill", 64, 256, at, at + 5);
	for (int i = 0; i < 3000; i++, at += 30) /* autotuning */
		bt_launched(&t, at + 40, at + 60, 7, c++, "triton_a", 64 + (i % 50 ? 0 : i), 256,
			    at + 30, at + 35);
	at += 500000;
	double jit2 = at;
	bt_api(&t, at - 1000, at - 900, API_OTHER, c++, "cuModuleLoad");
	bt_launched(&t, at + 10, at + 20, 7, c++, "fill", 64, 256, at, at + 5);
	for (int i = 0; i < 600; i++, at += 400) /* the steps */
		bt_launched(&t, at + 110, at + 480, 7, c++, i % 2 ? "triton_b" : "triton_a",
			    i % 100 ? 64 : 5000 + i, 256, at + 100, at + 105);
	analysis_sort(&t);
	assert_int_equal(analysis_run_opts(&a, &t, NULL, 0, err), 0);
	assert_int_equal(a.phases.jit_total, 2);
	assert_true(a.start_ns >= (int64_t)(jit2 * US));
	assert_true(a.phases.jit_warmup_ns >= 2 * 490000 * US);
	assert_null(finding_find(&a.findings, "host_overhead"));
	assert_null(finding_find(&a.findings, "input_pipeline"));
	analysis_release(&a);
	trace_release(&t);
	(void)state;
}

/* A 300 ms host stretch ending in cuModuleLoadData before a first-ever
 * kernel is a JIT compilation, not host work; a cuLibraryLoadData (a
 * library's prebuilt code) is not. */
static void test_jit(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	for (int lib = 0; lib < 2; lib++) {
		bt_init(&t);
		uint32_t c = 1;
		for (int i = 0; i < 10; i++)
			bt_launched(&t, i * 100 + 10, i * 100 + 90, 7, c++, "old", 264, 256,
				    i * 100, i * 100 + 5);
		bt_api(&t, 300000, 301000, API_OTHER, c++,
		       lib ? "cuLibraryLoadData" : "cuModuleLoadData");
		for (int i = 0; i < 10; i++)
			bt_launched(&t, 301100 + i * 100, 301190 + i * 100, 7, c++, "new_kernel",
				    264, 256, 301010 + i * 100, 301015 + i * 100);
		analysis_sort(&t);
		assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
		if (!lib) {
			assert_int_equal(a.phases.jit_total, 1);
			assert_true(a.idle.jit_ns > 290000 * US);
			assert_true(a.idle.host_ns < 10000 * US);
			assert_null(finding_find(&a.findings, "host_overhead"));
		} else {
			assert_int_equal(a.phases.jit_total, 0);
			assert_int_equal(a.idle.jit_ns, 0);
		}
		analysis_release(&a);
		trace_release(&t);
	}
	(void)state;
}

/* 135 GB live on a 140 GB card: memory_peak, in the steady state, with the
 * process and phase; 60 GB is not. */
static void test_memory_peak(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	for (int big = 0; big < 2; big++) {
		bt_init(&t);
		t.devices[0].mem_bytes = 140000000000ULL;
		for (int i = 0; i < 20; i++)
			bt_launched(&t, i * 100 + 10, i * 100 + 90, 7, (uint32_t)i + 1, "k", 264,
				    256, i * 100, i * 100 + 5);
		struct trace_alloc *x = trace_add_alloc(&t);
		x->ts_ns = 500 * US;
		x->pid = 100;
		x->bytes = big ? 135000000000LL : 60000000000LL;
		x->mem_kind = MEM_DEVICE;
		analysis_sort(&t);
		assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
		assert_int_equal(a.mem.peak_bytes, x->bytes);
		assert_int_equal(a.mem.peak_phase, MP_STEADY);
		const struct finding *f = finding_find(&a.findings, "memory_peak");
		if (big) {
			assert_non_null(f);
			assert_int_equal(f->severity, SEV_WARNING);
			assert_true(finding_get(f, "peak_card_pct")->num > 96.0);
		} else {
			assert_null(f);
		}
		analysis_release(&a);
		trace_release(&t);
	}
	(void)state;
}

/* Nothing to diagnose: no GPU work, or one 3 us kernel; a CPU-only
 * PyTorch profile; an MTIA profile. A verdict, no findings, no warning. */
static void test_nothing_to_diagnose(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	bt_api(&t, 0, 5, API_OTHER, 1, "cudaGetDeviceCount");
	analysis_sort(&t);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	assert_int_equal(a.nowork, NW_NO_GPU_WORK);
	assert_int_equal(a.findings.n, 0);
	assert_int_equal(a.n_warnings, 0);
	analysis_release(&a);
	bt_launched(&t, 10, 13, 7, 2, "k", 1, 32, 6, 8);
	analysis_sort(&t);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	assert_int_equal(a.nowork, NW_TOO_LITTLE);
	assert_int_equal(a.findings.n, 0);
	analysis_release(&a);
	trace_release(&t);

	trace_init(&t);
	t.source = TRACE_SRC_PYTORCH;
	struct trace_range *r = bt_range(&t, 0, 100, 1, "aten::mm");
	r->kind = RANGE_CPU_OP;
	assert_int_equal(analysis_run(&a, &t, err), 0);
	assert_int_equal(a.nowork, NW_CPU_ONLY);
	analysis_release(&a);
	assert_int_equal(trace_set_meta(&t, "import.unknown", "cat=mtia_runtime:12"), 0);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	assert_int_equal(a.nowork, NW_OTHER_ACCEL);
	assert_string_equal(a.nowork_accel, "MTIA");
	analysis_release(&a);
	trace_release(&t);
	(void)state;
}

/* Pinned copies blocking compute: transfer, and no pin advice. */
static void test_pinned_transfer(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	uint32_t c = 1;
	for (int i = 0; i < 50; i++) {
		double s0 = i * 3000.0;
		bt_api(&t, s0, s0 + 2000, API_MEMCPY, c, "cudaMemcpy");
		bt_copy(&t, s0 + 10, s0 + 1990, 7, c++, COPY_HTOD, MEM_PINNED, MEM_DEVICE,
			100000000);
		bt_launched(&t, s0 + 2010, s0 + 2900, 7, c++, "k", 264, 256, s0 + 2000, s0 + 2005);
	}
	analysis_sort(&t);
	assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
	const struct finding *f = finding_find(&a.findings, "transfer");
	assert_non_null(f);
	assert_int_equal((int)finding_get(f, "pageable_pct")->num, 0);
	assert_false(any_action(f, "pinned host memory"));
	assert_false(any_action(f, "pin the"));
	analysis_release(&a);
	trace_release(&t);
	(void)state;
}

/* torch.profiler(profile_memory=True)'s "[memory]" instant events become
 * allocation rows (CUDA ones only) and the memory section reads them. */
static void test_kineto_memory_events(void **state)
{
	static const char json[] =
	    "{\"traceEvents\": [\n"
	    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
	    "\"ts\": 1000.0, \"dur\": 500.0, \"args\": {\"device\": 0, \"stream\": 7, "
	    "\"correlation\": 5}},\n"
	    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
	    "\"pid\": 42, \"tid\": 42, \"ts\": 990.0, \"dur\": 5.0, \"args\": {\"correlation\": "
	    "5}},\n"
	    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": "
	    "\"[memory]\", \"pid\": 42, \"tid\": 42, \"ts\": 995.0, \"args\": {\"Total "
	    "Reserved\": 2097152, \"Total Allocated\": 1048576, \"Bytes\": 1048576, \"Addr\": "
	    "139000000000000, \"Device Id\": 0, \"Device Type\": 1}},\n"
	    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": "
	    "\"[memory]\", \"pid\": 42, \"tid\": 42, \"ts\": 996.0, \"args\": {\"Bytes\": 4096, "
	    "\"Addr\": 1000, \"Device Id\": -1, \"Device Type\": 0}},\n"
	    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": "
	    "\"[memory]\", \"pid\": 42, \"tid\": 42, \"ts\": 1600.0, \"args\": {\"Bytes\": "
	    "-1048576, \"Addr\": 139000000000000, \"Device Id\": 0, \"Device Type\": 1}}\n"
	    "], \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H200\", "
	    "\"totalGlobalMem\": 150109880320, \"computeMajor\": 9, \"computeMinor\": 0, "
	    "\"numSms\": 132}]}\n";
	char path[] = "/tmp/gpuscope-test-mem-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, sizeof(json) - 1), (ssize_t)(sizeof(json) - 1));
	close(fd);
	struct trace t;
	struct analysis a;
	char err[512];
	int rc = analysis_load(&t, path, err);
	unlink(path);
	assert_int_equal(rc, 0);
	assert_int_equal(t.n_allocs, 2); /* the CPU event is not kept */
	assert_int_equal(t.allocs[0].bytes, 1048576);
	assert_int_equal(t.allocs[1].bytes, -1048576);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	assert_int_equal(a.mem.peak_bytes, 1048576);
	assert_int_equal(a.mem.peak_pid, 42);
	assert_int_equal(a.mem.procs[0].end_bytes, 0);
	analysis_release(&a);
	trace_release(&t);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kernel_names),
	    cmocka_unit_test(test_family_union),
	    cmocka_unit_test(test_api_names),
	    cmocka_unit_test(test_graphs_already_used),
	    cmocka_unit_test(test_pytorch_ops_and_input),
	    cmocka_unit_test(test_by_index_advice),
	    cmocka_unit_test(test_host_unknown),
	    cmocka_unit_test(test_cuda_calls_idle),
	    cmocka_unit_test(test_jit),
	    cmocka_unit_test(test_decode_loop),
	    cmocka_unit_test(test_jit_after_known_kernel),
	    cmocka_unit_test(test_memory_peak),
	    cmocka_unit_test(test_nothing_to_diagnose),
	    cmocka_unit_test(test_pinned_transfer),
	    cmocka_unit_test(test_kineto_memory_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
