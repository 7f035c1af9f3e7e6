/*
 * test_analysis.c - the report's timeline math on hand-built traces: exact
 * unions with concurrent streams, the idle-gap breakdown, NVTX projection,
 * launch statistics, the correlation table in each of its forms, and bad
 * input (unsorted, empty).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyze/analysis_int.h"
#include "diagnose/diagnose.h"
#include "diagnose/finding.h"
#include "build_trace.h"
#include "render/report_render.h"

static void test_union_two_streams(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	bt_kernel(&t, 0, 100, 7, 1, "k1", 264, 256, 32);
	bt_kernel(&t, 50, 150, 8, 2, "k2", 264, 256, 32); /* overlaps k1 */
	bt_kernel(&t, 200, 300, 7, 3, "k1", 264, 256, 32);
	bt_copy(&t, 120, 220, 9, 4, COPY_HTOD, MEM_PINNED, MEM_DEVICE, 1 << 20);
	analysis_sort(&t);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	assert_int_equal(a.span_ns, 300 * US);
	assert_int_equal(a.kernel_ns, 250 * US);
	assert_int_equal(a.kernel_sum_ns, 300 * US);
	assert_int_equal(a.copy_ns, 100 * US);
	assert_int_equal(a.busy_ns, 300 * US);		     /* [0,150) u [120,220) u [200,300) */
	assert_int_equal(a.copy.not_overlapped_ns, 50 * US); /* [150,200) */
	assert_int_equal(a.idle.total_ns, 0);
	assert_int_equal(a.n_streams, 3);
	for (size_t i = 0; i < a.n_streams; i++) {
		if (a.streams[i].stream == 7)
			assert_int_equal(a.streams[i].busy_ns, 200 * US);
		if (a.streams[i].stream == 8)
			assert_int_equal(a.streams[i].busy_ns, 100 * US);
	}
	assert_int_equal(a.n_kgroups, 2);
	assert_string_equal(trace_str(&t, a.kgroups[0].name_id), "k1");
	assert_int_equal(a.kgroups[0].count, 2);
	assert_int_equal(a.kgroups[0].median_ns, 100 * US);
	assert_true(a.kgroups[0].occupancy > 0.99); /* 256 threads, 32 regs: 100% */
	assert_true(a.kgroups[0].waves > 0.24 && a.kgroups[0].waves < 0.26);
	assert_int_equal(an_busy_between(&a, 140 * US, 160 * US), 20 * US);
	analysis_release(&a);
	trace_release(&t);
}

static void test_idle_breakdown(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	bt_launched(&t, 0, 1000, 7, 1, "k", 264, 256, -10, -5);
	bt_api(&t, 500, 2000, API_SYNC, 2, "cudaDeviceSynchronize");
	/* host work 2000..2900 (no CUDA call), then the next launch */
	bt_launched(&t, 3000, 4000, 7, 3, "k", 264, 256, 2900, 2905);
	/* a copy call in a later gap */
	bt_api(&t, 4100, 4400, API_MEMCPY, 4, "cudaMemcpy");
	bt_copy(&t, 4400, 4500, 7, 4, COPY_HTOD, MEM_PAGEABLE, MEM_DEVICE, 1 << 20);
	analysis_sort(&t);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	/* the analysed window starts at the first GPU work; the 10 us before it
	 * (the first launch call) is startup */
	assert_int_equal(a.start_ns, 0);
	assert_int_equal(a.startup_ns, 10 * US);
	/* gaps: [1000,3000), [4000,4400) */
	assert_int_equal(a.idle.gaps, 2);
	assert_int_equal(a.idle.total_ns, 2000 * US + 400 * US);
	/* the sync window [500, 2000 + 100) covers 1100 us of the first gap; the
	 * host work after it [2100, 2900) (800 us, one stretch with no CUDA call)
	 * could have overlapped the 1000 us of GPU work the sync waited for, so
	 * it is the sync's too */
	assert_int_equal(a.idle.sync_ns, 1100 * US + 800 * US);
	/* launch pending [2900, 3000) */
	assert_int_equal(a.idle.launch_ns, 100 * US);
	/* [4000,4100): host work (no CUDA call from 3000 to 4100), then the
	 * memcpy call [4100,4400) */
	assert_int_equal(a.idle.copy_ns, 300 * US);
	assert_int_equal(a.idle.host_ns, 100 * US);
	assert_int_equal(a.idle.dispatch_ns, 0);
	assert_int_equal(a.sync.count, 1);
	assert_int_equal(a.launch.launches, 2);
	assert_int_equal(a.launch.correlated, 2);
	assert_int_equal(a.launch.delay_median_ns, 5 * US);
	analysis_release(&a);
	trace_release(&t);
}

static void test_nvtx_projection(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	bt_range(&t, 0, 10, 1, "step");
	bt_range(&t, 0, 100, 2, "other-thread");
	bt_range(&t, 2, 4, 1, "forward");			/* nested */
	bt_launched(&t, 100, 150, 7, 1, "k", 264, 256, 1, 1.5); /* in step only */
	bt_launched(&t, 150, 170, 7, 2, "k", 264, 256, 3, 3.5); /* step + forward */
	bt_launched(&t, 300, 400, 7, 3, "k", 264, 256, 20, 21); /* outside */
	analysis_sort(&t);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	assert_int_equal(a.n_ranges, 3);
	int seen = 0;
	for (size_t i = 0; i < a.n_ranges; i++) {
		const char *n = trace_str(&t, a.ranges[i].name_id);
		if (!strcmp(n, "step")) {
			assert_int_equal(a.ranges[i].gpu_sum_ns, 70 * US);
			assert_int_equal(a.ranges[i].gpu_ops, 2);
			seen++;
		} else if (!strcmp(n, "forward")) {
			assert_int_equal(a.ranges[i].gpu_sum_ns, 20 * US);
			seen++;
		} else {
			assert_int_equal(a.ranges[i].gpu_sum_ns, 0);
			seen++;
		}
	}
	assert_int_equal(seen, 3);
	assert_string_equal(trace_str(&t, a.ranges[0].name_id), "step");
	analysis_release(&a);
	trace_release(&t);
}

static void test_range_bounded_span(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512] = "";
	bt_init(&t);
	bt_launched(&t, 10, 20, 7, 1, "warmup", 264, 256, 0, 5); /* before the range */
	bt_range(&t, 100, 200, 1, "step");
	bt_launched(&t, 110, 150, 7, 2, "k", 264, 256, 101, 105);
	bt_range(&t, 300, 400, 1, "step");
	bt_launched(&t, 310, 390, 7, 3, "k", 264, 256, 301, 305);
	bt_launched(&t, 900, 1000, 7, 4, "teardown", 264, 256, 850, 855); /* after */
	analysis_sort(&t);
	assert_int_equal(analysis_run_range(&a, &t, "step", err), 0);
	/* first to last GPU work inside the ranges */
	assert_int_equal(a.start_ns, 110 * US);
	assert_int_equal(a.span_ns, 280 * US);
	assert_int_equal(a.n_kernels, 2);
	assert_int_equal(a.kernel_ns, 120 * US);
	assert_string_equal(a.range, "step");
	assert_string_equal(trace_str(a.t, a.kgroups[0].name_id), "k");
	analysis_release(&a);
	assert_int_equal(analysis_run_range(&a, &t, "nope", err), -1);
	assert_non_null(strstr(err, "no range named 'nope'"));
	/* a miss lists the ranges the trace has (#21 item 13) */
	assert_non_null(strstr(err, "it has 'step'"));
	trace_release(&t);
}

/* A trace of one kernel and one process of pid PID (for the warnings) */
static struct trace_process *one_kernel_trace(struct trace *t, uint32_t pid)
{
	bt_init(t);
	bt_launched(t, 10, 20, 7, 1, "k", 264, 256, 0, 5);
	struct trace_process *p = trace_add_process(t);
	p->pid = pid;
	return p;
}

/* Analyses t into a and returns the number of warnings, their text in
 * *buf ("W: " before each, one a line) */
static int warnings_of(struct analysis *a, struct trace *t, char **buf)
{
	char err[512] = "", line[1024];
	size_t len = 0;
	analysis_sort(t);
	assert_int_equal(analysis_run(a, t, err), 0);
	FILE *m = open_memstream(buf, &len);
	for (size_t i = 0; i < a->n_warnings; i++)
		fprintf(
		    m, "W: %s\n",
		    report_expand(line, sizeof(line), a->warnings[i].tmpl, &a->warnings[i], NULL));
	fclose(m);
	return (int)a->n_warnings;
}

/* Lost data is never silent: dropped records and untraced processes become
 * warnings in every output. */
static void test_warnings(void **state)
{
	struct trace t;
	struct analysis a;
	char *buf = NULL;
	one_kernel_trace(&t, 100)->dropped_records = 1234;
	struct trace_process *p = trace_add_process(&t);
	p->pid = 200;
	p->status_id = trace_intern(&t, "another CUPTI client is active (torch.profiler)");
	assert_int_equal(warnings_of(&a, &t, &buf), 2);
	assert_int_equal(a.dropped_records, 1234);
	assert_non_null(strstr(buf, "W: 1234 CUPTI records were dropped"));
	assert_non_null(strstr(buf, "process 200: another CUPTI client"));
	free(buf);
	analysis_release(&a);
	trace_release(&t);
}

/* gpuscope's own buffer handling is weighed against the traced processes'
 * lifetimes (it covers their startup and exit flush too), not the analysed
 * span: 5 ms in a 1 s process whose GPU work spans 10 us is no warning,
 * 30 ms is one of 3.0%. */
static void test_overhead_warning(void **state)
{
	for (int heavy = 0; heavy < 2; heavy++) {
		struct trace t;
		struct analysis a;
		char *buf = NULL;
		struct trace_process *p = one_kernel_trace(&t, 100);
		p->start_ns = 0;
		p->end_ns = 1000000000;
		p->overhead_ns = heavy ? 30000000 : 5000000;
		assert_int_equal(warnings_of(&a, &t, &buf), heavy);
		if (heavy)
			assert_non_null(strstr(buf, "30.00 ms on CUPTI buffers (3.0% of the run)"));
		free(buf);
		analysis_release(&a);
		trace_release(&t);
	}
}

static void test_unsorted_and_empty(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512] = "";
	bt_init(&t);
	bt_kernel(&t, 100, 200, 7, 1, "k", 1, 32, 0);
	bt_kernel(&t, 0, 50, 7, 2, "k", 1, 32, 0);
	assert_int_equal(analysis_run(&a, &t, err), -1);
	assert_non_null(strstr(err, "not sorted"));
	trace_release(&t);

	bt_init(&t);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	assert_int_equal(a.span_ns, 0);
	assert_int_equal(a.findings.n, 0);
	assert_null(a.primary);
	analysis_release(&a);
	trace_release(&t);
}

/* Host time between CUDA calls: short stretches (the framework issuing one
 * call after another) are dispatch, long ones host work; a long CUDA call
 * (cudaMalloc) in a gap is neither. */
static void test_dispatch_and_host_work(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	uint32_t c = 1;
	/* gap 1 [100, 400): calls every 30 us (dispatch), the launch at 380 */
	bt_launched(&t, 0, 100, 7, c++, "k", 264, 256, -10, -5);
	for (int i = 0; i < 9; i++)
		bt_api(&t, 110 + i * 30, 115 + i * 30, API_OTHER, c++, "cudaEventRecord");
	bt_launched(&t, 400, 500, 7, c++, "k", 264, 256, 380, 385);
	/* gap 2 [500, 2500): 1.5 ms with no call (host work), a 300 us cudaMalloc */
	bt_api(&t, 2000, 2300, API_ALLOC, c++, "cudaMalloc");
	bt_launched(&t, 2500, 2600, 7, c++, "k", 264, 256, 2400, 2405);
	analysis_sort(&t);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	/* gap 1: calls cover 9 x 5 us, the launch [380, 400) 20 us; the rest,
	 * 300 - 45 - 20 = 235 us, lies in stretches of < 500 us: dispatch */
	/* gap 2: [500, 2000) is one 1.5 ms stretch: host work; [2300, 2400) is a
	 * 100 us stretch: dispatch, like gap 1's 235 us */
	assert_int_equal(a.idle.dispatch_ns, 235 * US + 100 * US);
	assert_int_equal(a.idle.host_ns, 1500 * US);
	assert_int_equal(a.idle.api_ns, 300 * US + 9 * 5 * US); /* cudaMalloc and the event calls */
	assert_int_equal(a.idle.launch_ns, 20 * US + 100 * US);
	analysis_release(&a);
	(void)state;
	trace_release(&t);
}

/* A recorded process: a cold first iteration (every kernel new, slow, with
 * gaps), then 50 warm iterations of the same 4 kernels, then a final check
 * with 2 new kernels. report analyses the warm run only. */
static void test_warmup_window(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	static const char *const names[] = {"embed", "attn", "mlp", "adam"};
	uint32_t c = 1;
	double at = 0;
	for (int step = 0; step < 51; step++) {
		for (int k = 0; k < 4; k++) {
			double d = step == 0 ? 5000 : 100; /* the first launches are slow */
			bt_launched(&t, at + 10, at + 10 + d, 7, c++, names[k], 264, 256, at,
				    at + 5);
			at += 10 + d + 5;
		}
	}
	double steady_end = at;
	bt_launched(&t, at + 100, at + 200, 7, c++, "check_isfinite", 1, 32, at + 90, at + 95);
	bt_launched(&t, at + 300, at + 400, 7, c++, "check_norm", 1, 32, at + 290, at + 295);
	analysis_sort(&t);
	assert_int_equal(analysis_run_range(&a, &t, NULL, err), 0);
	assert_int_equal(a.n_kernels, 200); /* 50 warm steps x 4 */
	assert_true(a.warmup_ns >= 4 * 5000 * US);
	assert_true(a.cooldown_ns > 0);
	assert_true(a.end_ns <= (int64_t)(steady_end * US));
	analysis_release(&a);
	assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0); /* --whole */
	assert_int_equal(a.n_kernels, 206);
	assert_int_equal(a.warmup_ns, 0);
	analysis_release(&a);
	/* a PyTorch profiler trace without ProfilerStep# ranges gets the same
	 * steady state (#16 item 5: one program, one window, either source) */
	t.source = TRACE_SRC_PYTORCH;
	assert_int_equal(analysis_run_range(&a, &t, NULL, err), 0);
	assert_int_equal(a.n_kernels, 200);
	assert_int_equal(a.profiler_steps, 0);
	analysis_release(&a);
	(void)state;
	trace_release(&t);
}

/* A PyTorch profiler trace with ProfilerStep# ranges: the steady state is
 * the steps, to the end of the GPU work launched inside them (the last
 * step's kernel ends after its range does); work before the first step and
 * after the last is left out, whatever its kernels' names. */
static void test_profiler_steps_window(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	t.source = TRACE_SRC_PYTORCH;
	uint32_t c = 1;
	bt_launched(&t, 10, 500, 7, c++, "warm", 132, 256, 0, 5); /* before the steps */
	for (int step = 0; step < 3; step++) {
		double s0 = 1000 + step * 1000;
		struct trace_range *r = bt_range(&t, s0, s0 + 400, 1, "ProfilerStep#0");
		r->kind = RANGE_ANNOTATION;
		/* launched inside the step, runs until 900 us after its start */
		bt_launched(&t, s0 + 100, s0 + 900, 7, c++, "step", 132, 256, s0 + 10, s0 + 20);
	}
	bt_launched(&t, 4500, 4600, 7, c++, "after", 132, 256, 4450, 4455); /* after them */
	analysis_sort(&t);
	assert_int_equal(analysis_run_range(&a, &t, NULL, err), 0);
	assert_int_equal(a.profiler_steps, 3);
	assert_int_equal(a.n_kernels, 3);
	/* the window ends with the last step's kernel (3900 us), not its range */
	assert_int_equal(a.end_ns, 3900 * US);
	assert_int_equal(a.start_ns, 1100 * US);
	analysis_release(&a);
	(void)state;
	trace_release(&t);
}

/* GPM windows that trail the kernels by 80 ms (as on the H200) and straddle
 * idle time: the shift is found and the values are read "while busy". */
static void test_gpm_alignment(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	uint32_t m_sm = trace_intern(&t, "gpm_sm_util"),
		 m_dram = trace_intern(&t, "gpm_dram_bw_util"),
		 m_fp = trace_intern(&t, "gpm_fp32_util");
	/* the GPU: busy [300 ms, 1000 ms) and [1500 ms, 1800 ms), 1 ms kernels */
	uint32_t c = 1;
	for (double ms = 300; ms < 1800; ms += 1.0) {
		if (ms >= 1000 && ms < 1500)
			continue;
		bt_launched(&t, ms * 1000 + 1, ms * 1000 + 1000, 7, c++, "stream", 1056, 256,
			    ms * 1000 - 10, ms * 1000 - 5);
	}
	/* samples every 100 ms, stamped 80 ms late: the window ending at ts
	 * measured [ts - 180, ts - 80) ms; DRAM 90% while busy, SM 95%, FP32 5% */
	for (double ts = 0; ts <= 2200; ts += 100) {
		double b0 = ts - 180, b1 = ts - 80, busy = 0;
		const double on[2][2] = {{300, 1000}, {1500, 1800}};
		for (int i = 0; i < 2; i++) {
			double s = b0 > on[i][0] ? b0 : on[i][0], e = b1 < on[i][1] ? b1 : on[i][1];
			busy += e > s ? e - s : 0;
		}
		double f = busy / 100.0;
		const uint32_t ids[3] = {m_sm, m_dram, m_fp};
		const double v[3] = {95 * f, 90 * f, 5 * f};
		for (int k = 0; k < 3; k++) {
			struct trace_sample *x = trace_add_sample(&t);
			x->ts_ns = (int64_t)(ts * 1e6);
			x->metric_id = ids[k];
			x->value = v[k];
		}
	}
	analysis_sort(&t);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	assert_true(a.sol.valid);
	assert_true(a.sol.lag_ns >= 70000000 && a.sol.lag_ns <= 90000000);
	assert_true(a.sol.dram > 85 && a.sol.dram < 95);
	assert_true(a.sol.mem > 0.9);
	const struct finding *f = finding_find(&a.findings, "memory_bound");
	assert_non_null(f);
	analysis_release(&a);
	(void)state;
	trace_release(&t);
}

/* A two-GPU trace (two ranks): rank 0 keeps device 0 busy with long kernels,
 * rank 1 starves device 1 with tiny launches. Together the union looks
 * busy; --device (trace_keep_device) diagnoses each rank on its own. */
static void two_ranks(struct trace *t)
{
	bt_init(t);
	struct trace_device *d1 = trace_add_device(t);
	*d1 = t->devices[0];
	d1->id = 1;
	d1->sm_count = 78; /* another model: the kept device's properties must win */
	uint32_t c = 1;
	for (int i = 0; i < 100; i++) { /* rank 0: 1 ms kernels back to back */
		bt_launched(t, i * 1000.0 + 5, i * 1000.0 + 1005, 7, c, "gemm", 264, 256,
			    i * 1000.0, i * 1000.0 + 4);
		t->kernels[t->n_kernels - 1].pid = 100;
		c++;
	}
	for (int i = 0; i < 1000; i++) { /* rank 1: 2 us kernels every 100 us */
		bt_launched(t, i * 100.0 + 95, i * 100.0 + 97, 3, c, "tiny", 1, 32, i * 100.0 + 85,
			    i * 100.0 + 92);
		t->kernels[t->n_kernels - 1].pid = 200;
		t->kernels[t->n_kernels - 1].device = 1;
		t->apis[t->n_apis - 1].pid = 200;
		c++;
	}
	analysis_sort(t);
}

static void test_keep_device(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512];
	two_ranks(&t);
	assert_int_equal(analysis_run_range(&a, &t, NULL, err), 0);
	assert_int_equal(a.n_devices, 2);
	assert_true(100.0 * (double)a.busy_ns / (double)a.span_ns > 90); /* the union */
	analysis_release(&a);
	trace_release(&t);

	two_ranks(&t);
	assert_int_equal(trace_keep_device(&t, 1, err), 0);
	assert_int_equal(t.n_kernels, 1000);
	assert_int_equal(t.n_apis, 1000); /* rank 1's launches only */
	assert_int_equal(t.n_devices, 1);
	assert_int_equal(t.devices[0].sm_count, 78);
	assert_string_equal(trace_get_meta(&t, "report_device"), "1");
	assert_int_equal(analysis_run_range(&a, &t, NULL, err), 0);
	assert_non_null(a.primary);
	assert_string_equal(a.primary->id, "launch_overhead");
	assert_true(100.0 * (double)a.busy_ns / (double)a.span_ns < 10);
	analysis_release(&a);
	trace_release(&t);

	two_ranks(&t);
	assert_int_equal(trace_keep_device(&t, 0, err), 0);
	assert_int_equal(t.n_kernels, 100);
	assert_int_equal(analysis_run_range(&a, &t, NULL, err), 0);
	assert_true(100.0 * (double)a.busy_ns / (double)a.span_ns > 95);
	assert_true(!a.primary || strcmp(a.primary->id, "launch_overhead") != 0);
	analysis_release(&a);
	trace_release(&t);

	/* a device without work: an error that names the ones with work */
	two_ranks(&t);
	assert_int_equal(trace_keep_device(&t, 5, err), -1);
	assert_non_null(strstr(err, "devices with kernels: 0, 1"));
	trace_release(&t);
	(void)state;
}

/* The same two ranks through analysis_result_run: each device is diagnosed
 * on its own, the run's findings are the devices' (marked with theirs), its
 * primary the worst device's; --device N is the same as that device's
 * analysis; the report says both. */
static void test_per_device(void **state)
{
	struct trace t;
	char err[512] = "";
	two_ranks(&t);
	struct analysis_result r;
	struct analysis_opts o = {.device = -1};
	assert_int_equal(analysis_result_run(&r, &t, &o, err), 0);
	assert_int_equal(r.n_dev, 2);
	const struct analysis *d0 = analysis_result_device(&r, 0),
			      *d1 = analysis_result_device(&r, 1);
	assert_non_null(d0);
	assert_non_null(d1);
	assert_int_equal(d0->n_kernels, 100);
	assert_int_equal(d1->n_kernels, 1000);
	assert_int_equal(d1->devices[0].sm_count, 78); /* its own properties */
	assert_string_equal(d1->primary->id, "launch_overhead");
	assert_null(finding_find(&d0->findings, "launch_overhead"));
	/* the union is busy, yet the run's primary is rank 1's starvation */
	assert_true(100.0 * (double)r.all.busy_ns / (double)r.all.span_ns > 90);
	assert_non_null(r.all.primary);
	assert_string_equal(r.all.primary->id, "launch_overhead");
	assert_int_equal(r.all.primary->device, 1);
	assert_true(r.all.primary->impact_pct == d1->primary->impact_pct);
	size_t n = d0->findings.n + d1->findings.n;
	assert_int_equal(r.all.findings.n, n);
	for (size_t i = 0; i < r.all.findings.n; i++)
		assert_true(r.all.findings.v[i].device == 0 || r.all.findings.v[i].device == 1);
	double impact1 = d1->primary->impact_pct;

	struct report rep;
	char *buf = NULL;
	size_t len = 0;
	assert_int_equal(report_build(&rep, &r, "two.db", err), 0);
	FILE *m = open_memstream(&buf, &len);
	report_text(m, &rep);
	report_json(m, &rep);
	fclose(m);
	assert_non_null(strstr(buf, "  launch_overhead on device 1 ("));
	assert_non_null(strstr(buf, "device 1: busy "));
	assert_non_null(strstr(buf, ", primary launch_overhead ("));
	assert_non_null(strstr(buf, "\"per_device\": ["));
	assert_non_null(strstr(buf, "\"device\": 1,"));
	free(buf);
	report_release(&rep);
	analysis_result_release(&r);

	/* --device 1: that device alone, unmarked, as trace_keep_device gives */
	o.device = 1;
	assert_int_equal(analysis_result_run(&r, &t, &o, err), 0);
	assert_int_equal(r.n_dev, 0);
	assert_int_equal(r.all.n_kernels, 1000);
	assert_int_equal(r.all.n_apis, 1000);
	assert_string_equal(r.all.primary->id, "launch_overhead");
	assert_int_equal(r.all.primary->device, -1);
	assert_true(r.all.primary->impact_pct == impact1);
	analysis_result_release(&r);
	o.device = 5;
	assert_int_equal(analysis_result_run(&r, &t, &o, err), -1);
	assert_non_null(strstr(err, "no GPU work on device 5 (devices with kernels: 0, 1)"));
	/* the trace is unchanged by all of it */
	assert_int_equal(t.n_kernels, 1100);
	assert_int_equal(t.n_devices, 2);
	trace_release(&t);
	(void)state;
}

/* The first op of (pid, corr) in kernels, copies, memsets order. */
static uint32_t corr_ref(const struct trace *t, uint32_t pid, uint32_t corr)
{
	if (!corr)
		return AN_OP_NONE;
	for (size_t i = 0; i < t->n_kernels; i++)
		if (t->kernels[i].pid == pid && t->kernels[i].correlation == corr)
			return AN_OP_KERNEL << 30 | (uint32_t)i;
	for (size_t i = 0; i < t->n_copies; i++)
		if (t->copies[i].pid == pid && t->copies[i].correlation == corr)
			return AN_OP_COPY << 30 | (uint32_t)i;
	return AN_OP_NONE;
}

/* an_corr_find gives the first op of an id, whichever table the trace
 * gets: direct (one process, dense ids), buckets (one process, sparse ids,
 * as torch.profiler's), a hash table (two processes, or a launch of more
 * ops than a bucket takes); ids and their neighbours, id 0, another pid. */
static void test_corr_tables(void **state)
{
	(void)state;
	enum { DIRECT, BUCKETS, GRAPH, TWO_PIDS };
	for (int shape = DIRECT; shape <= TWO_PIDS; shape++) {
		struct trace t;
		struct analysis a;
		char err[512];
		bt_init(&t);
		uint32_t base = shape == DIRECT ? 1 : 3000000, step = shape == DIRECT ? 1 : 37;
		for (uint32_t i = 0; i < 3000; i++) {
			uint32_t corr = i % 97 == 5 ? 0 : base + step * i;
			struct trace_kernel *k = bt_kernel(&t, 10.0 * i, 10.0 * i + 5, 7 + i % 2,
							   corr, "k", 64, 128, 32);
			if (i % 11 == 0) /* two ops of one launch */
				bt_kernel(&t, 10.0 * i + 5, 10.0 * i + 6, 7, corr, "k2", 64, 128,
					  32);
			if (i % 13 == 0)
				bt_copy(&t, 10.0 * i + 6, 10.0 * i + 7, 9, i % 26 ? corr : corr + 1,
					COPY_HTOD, MEM_PINNED, MEM_DEVICE, 64);
			if (shape == TWO_PIDS && i % 5 == 0)
				k->pid = 200;
			bt_api(&t, 10.0 * i - 3, 10.0 * i - 1, API_LAUNCH, corr,
			       "cudaLaunchKernel");
		}
		if (shape == GRAPH)
			for (int g = 0; g < 100; g++)
				bt_kernel(&t, 30000.0 + g, 30000.5 + g, 7, base + step * 2999 + 1,
					  "g", 64, 128, 32);
		analysis_sort(&t);
		assert_int_equal(analysis_run(&a, &t, err), 0);
		assert_true(shape == DIRECT ? a.corr_dir != NULL : !a.corr_dir);
		assert_true(shape == BUCKETS ? a.corr_ix != NULL : !a.corr_ix);
		for (size_t i = 0; i < t.n_apis + 4; i++) {
			/* every call's id and its neighbours, and ids 0 to 3 */
			uint32_t c0 =
			    i < t.n_apis ? t.apis[i].correlation : (uint32_t)(i - t.n_apis);
			for (uint32_t c = c0 ? c0 - 1 : 0; c <= c0 + 1; c++) {
				assert_int_equal(an_corr_find(&a, 100, c), corr_ref(&t, 100, c));
				if (shape != DIRECT)
					assert_int_equal(an_corr_find(&a, 200, c),
							 corr_ref(&t, 200, c));
			}
		}
		analysis_release(&a);
		trace_release(&t);
	}
}

/* an_busy_between_from (ops.c's search from the last start) gives what
 * an_busy_between gives, for starts in order: before the first interval,
 * on every interval's edges, inside, in gaps, past the last, ends before,
 * on and after the start, far after it (the gallop's long steps) */
static void test_busy_between_from(void **state)
{
	(void)state;
	struct trace t;
	struct analysis a;
	char err[512];
	bt_init(&t);
	uint64_t x = 88172645463325252ULL;
	double at = 10;
	for (int i = 0; i < 3000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double len = 1 + (double)(x % 40),
		       gap = (double)(x >> 8 & 3) * (double)((x >> 16) % 50);
		/* a third overlap the one before (the union merges them) */
		bt_kernel(&t, at, at + len, 7 + (uint32_t)(x >> 20 & 1), (uint32_t)i + 1, "k", 1,
			  32, 32);
		at += x % 3 == 0 ? len / 2 : len + gap;
	}
	analysis_sort(&t);
	assert_int_equal(analysis_run_range(&a, &t, NULL, err), 0);
	assert_true(a.n_busy > 1000);
	size_t cur = 0;
	int64_t t0 = 0, last = (int64_t)(at * US) + 100 * US;
	while (t0 < last) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* an edge of a nearby interval, or any time */
		size_t g = an_busy_index(&a, t0);
		int64_t next = g < a.n_busy ? (x & 1 ? a.busy[g].start : a.busy[g].end) : last;
		t0 = x % 5 == 0		       ? t0
		     : x % 5 == 1 && next > t0 ? next
					       : t0 + (int64_t)((x >> 8) % 30000);
		int64_t span[10] = {
		    -1, 0, 1, (int64_t)((x >> 24) % 5000), (int64_t)((x >> 32) % 2000000), last};
		/* to the ends and starts of the next intervals (the gallop's
		 * first steps stop on an end equal to t1) */
		g = an_busy_index(&a, t0);
		for (size_t k = 0; k < 4; k++) {
			size_t h = g + k / 2 + 1 < a.n_busy ? g + k / 2 + 1 : a.n_busy - 1;
			span[6 + k] = (k & 1 ? a.busy[h].start : a.busy[h].end) - t0;
		}
		size_t keep = (size_t)(x >> 40) % 10;
		for (size_t k = 0; k < 10; k++) {
			size_t c = cur;
			int64_t want = an_busy_between(&a, t0, t0 + span[k]);
			assert_int_equal(an_busy_between_from(&a, &c, t0, t0 + span[k]), want);
			if (k == keep) /* any of them: the cursor is t0's */
				cur = c;
		}
	}
	analysis_release(&a);
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dispatch_and_host_work),
	    cmocka_unit_test(test_warmup_window),
	    cmocka_unit_test(test_profiler_steps_window),
	    cmocka_unit_test(test_busy_between_from),
	    cmocka_unit_test(test_gpm_alignment),
	    cmocka_unit_test(test_union_two_streams),
	    cmocka_unit_test(test_idle_breakdown),
	    cmocka_unit_test(test_nvtx_projection),
	    cmocka_unit_test(test_range_bounded_span),
	    cmocka_unit_test(test_warnings),
	    cmocka_unit_test(test_unsorted_and_empty),
	    cmocka_unit_test(test_keep_device),
	    cmocka_unit_test(test_overhead_warning),
	    cmocka_unit_test(test_per_device),
	    cmocka_unit_test(test_corr_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
