/*
 * test_rules.c - each rule fires on the pattern it was designed for and
 * becomes primary, and stays quiet on a healthy, busy, overlapped pipeline
 * (no critical host-side finding there).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze/analysis.h"
#include "build_trace.h"
#include "render/findings_render.h"

static const char *const host_side[] = {"input_pipeline", "launch_overhead", "transfer",
					"sync_stall"};

static void run(struct trace *t, struct analysis *a)
{
	char err[512] = "";
	analysis_sort(t);
	int rc = analysis_run(a, t, err);
	if (rc)
		fail_msg("analysis_run: %s", err);
}

static void expect_primary(struct analysis *a, const char *id)
{
	if (!a->primary || strcmp(a->primary->id, id)) {
		finding_list_text(stderr, &a->findings);
		fail_msg("primary is '%s', expected '%s'", a->primary ? a->primary->id : "(none)",
			 id);
	}
}

/* 20000 x 3 us kernels with 5 us gaps: each launch call takes 4 us. */
static void test_kernel_storm(void **state)
{
	struct trace t;
	struct analysis a;
	bt_init(&t);
	double at = 0;
	for (uint32_t i = 0; i < 20000; i++) {
		bt_launched(&t, at + 5, at + 8, 7, i + 1, "tiny_add", 1024, 256, at, at + 4);
		at += 8;
	}
	run(&t, &a);
	expect_primary(&a, "launch_overhead");
	/* 5 of every 8 us idle between launches (62.5%) plus the 1 us fixed
	 * cost of each 3 us kernel that fusion wins back (12.5%) */
	assert_true(a.primary->impact_pct > 70 && a.primary->impact_pct < 80);
	assert_int_equal(a.primary->severity, SEV_CRITICAL);
	assert_int_equal(a.launch.short_kernels, 20000);
	assert_null(finding_find(&a.findings, "input_pipeline"));
	assert_null(finding_find(&a.findings, "gpu_busy"));
	assert_non_null(strstr(a.primary->actions[0], "20000 launches of tiny_add"));
	analysis_release(&a);
	trace_release(&t);
}

/* Synchronous pageable HtoD copies (50 MB at 10 GB/s) before short compute. */
static void test_pageable_copies(void **state)
{
	struct trace t;
	struct analysis a;
	bt_init(&t);
	double at = 0;
	uint32_t corr = 1;
	for (int i = 0; i < 100; i++) {
		bt_api(&t, at, at + 5000, API_MEMCPY, corr, "cudaMemcpy");
		/* the copy engine runs in chunks while the host stages pages */
		for (int c = 0; c < 5; c++)
			bt_copy(&t, at + c * 1000 + 300, at + c * 1000 + 1000, 7, corr, COPY_HTOD,
				MEM_PAGEABLE, MEM_DEVICE, 10000000);
		corr++;
		bt_launched(&t, at + 5010, at + 5510, 7, corr, "compute", 1024, 256, at + 5001,
			    at + 5005);
		corr++;
		at += 5600;
	}
	run(&t, &a);
	expect_primary(&a, "transfer");
	const struct finding *f = finding_find(&a.findings, "transfer");
	assert_true(finding_get(f, "pageable_pct")->num > 99);
	assert_non_null(strstr(f->actions[0], "pinned"));
	assert_null(finding_find(&a.findings, "input_pipeline"));
	analysis_release(&a);
	trace_release(&t);
}

/* Each step: 100 us kernel, a stream sync waiting for it, 60 us to relaunch. */
static void test_sync_every_step(void **state)
{
	struct trace t;
	struct analysis a;
	bt_init(&t);
	double at = 0;
	uint32_t corr = 1;
	for (int i = 0; i < 1000; i++) {
		bt_launched(&t, at + 6, at + 106, 7, corr, "step_kernel", 1024, 256, at, at + 4);
		corr++;
		bt_api(&t, at + 5, at + 108, API_SYNC, corr++, "cudaStreamSynchronize");
		at += 166;
	}
	run(&t, &a);
	expect_primary(&a, "sync_stall");
	assert_true(a.primary->impact_pct > 30);
	assert_null(finding_find(&a.findings, "input_pipeline"));
	assert_int_equal(a.sync.count, 1000);
	analysis_release(&a);
	trace_release(&t);
}

/* One long kernel of 2 blocks on 132 SMs (seed 1.1). */
static void test_small_grid(void **state)
{
	struct trace t;
	struct analysis a;
	bt_init(&t);
	for (int i = 0; i < 10; i++)
		bt_launched(&t, i * 10010.0 + 5, i * 10010.0 + 10005, 7, (uint32_t)i + 1,
			    "reduce_2blocks", 2, 256, i * 10010.0, i * 10010.0 + 4);
	run(&t, &a);
	expect_primary(&a, "small_grid");
	const struct finding *f = a.primary;
	assert_int_equal((int)finding_get(f, "grid_blocks")->num, 2);
	assert_int_equal((int)finding_get(f, "sm_count")->num, 132);
	assert_true(f->impact_pct > 90);
	analysis_release(&a);
	trace_release(&t);
}

/* A register-heavy kernel: 255 regs x 256 threads -> 1 block/SM, 12.5%. */
static void test_low_occupancy(void **state)
{
	struct trace t;
	struct analysis a;
	bt_init(&t);
	for (int i = 0; i < 10; i++) {
		bt_launched(&t, i * 1010.0 + 5, i * 1010.0 + 1005, 7, (uint32_t)i + 1, "fat_kernel",
			    132 * 4, 256, i * 1010.0, i * 1010.0 + 4);
		t.kernels[t.n_kernels - 1].regs = 255;
	}
	run(&t, &a);
	expect_primary(&a, "low_occupancy");
	assert_string_equal(finding_get(a.primary, "limiter")->str, "registers");
	analysis_release(&a);
	trace_release(&t);
}

/* GPU idle 9 ms of every 10 ms with no CUDA call in flight. */
static void test_input_pipeline(void **state)
{
	struct trace t;
	struct analysis a;
	bt_init(&t);
	for (int i = 0; i < 50; i++) {
		double at = i * 10000.0 + 9000;
		bt_api(&t, at - 20, at - 15, API_MEMCPY, (uint32_t)(2 * i + 1), "cudaMemcpyAsync");
		bt_copy(&t, at - 14, at - 2, 7, (uint32_t)(2 * i + 1), COPY_HTOD, MEM_PINNED,
			MEM_DEVICE, 1 << 20);
		bt_launched(&t, at, at + 1000, 7, (uint32_t)(2 * i + 2), "train_step", 1024, 256,
			    at - 10, at - 5);
	}
	run(&t, &a);
	expect_primary(&a, "input_pipeline");
	assert_int_equal(a.primary->severity, SEV_CRITICAL);
	assert_null(finding_find(&a.findings, "gpu_busy"));
	analysis_release(&a);
	trace_release(&t);
}

/* Healthy: 1 ms kernels back to back (queue full), pinned copies on a side
 * stream overlapping them, one sync at the end. */
static void test_busy_pipeline(void **state)
{
	struct trace t;
	struct analysis a;
	bt_init(&t);
	uint32_t corr = 1;
	for (int i = 0; i < 2000; i++) {
		double ks = i * 1002.0 + 100;
		double api = i * 5.0; /* the host runs far ahead */
		bt_launched(&t, ks, ks + 1000, 7, corr++, i % 2 ? "gemm" : "attention", 1056, 256,
			    api, api + 4);
		if (i % 4 == 0) {
			bt_api(&t, api + 4, api + 5, API_MEMCPY, corr, "cudaMemcpyAsync");
			bt_copy(&t, ks + 200, ks + 400, 8, corr++, COPY_HTOD, MEM_PINNED,
				MEM_DEVICE, 8 << 20);
		}
	}
	bt_api(&t, 10001, 2000 * 1002.0 + 110, API_SYNC, corr++, "cudaDeviceSynchronize");
	run(&t, &a);
	expect_primary(&a, "gpu_busy");
	assert_true(a.busy_ns > 0.95 * (double)a.span_ns);
	for (size_t i = 0; i < sizeof(host_side) / sizeof(host_side[0]); i++) {
		const struct finding *f = finding_find(&a.findings, host_side[i]);
		if (f && f->severity == SEV_CRITICAL)
			fail_msg("healthy pipeline got critical %s", f->id);
	}
	analysis_release(&a);
	trace_release(&t);
}

/* A healthy training step: library GEMMs at low occupancy by design and
 * some small-grid normalization kernels; the GPU is kept busy. */
static void test_healthy_gemm_training(void **state)
{
	struct trace t;
	struct analysis a;
	bt_init(&t);
	uint32_t corr = 1;
	double at = 100;
	for (int i = 0; i < 1000; i++) {
		int norm = i % 5 == 4;
		double d = norm ? 500 : 1000;
		bt_launched(&t, at, at + d, 7, corr++,
			    norm ? "layer_norm_kernel" : "sm90_xmma_gemm_bf16bf16_bf16f32",
			    norm ? 64 : 528, norm ? 512 : 384, i * 4.0, i * 4.0 + 3);
		t.kernels[t.n_kernels - 1].regs = norm ? 32 : 168;
		at += d + 2;
	}
	run(&t, &a);
	expect_primary(&a, "gpu_busy");
	assert_null(finding_find(&a.findings, "low_occupancy"));
	for (size_t i = 0; i < sizeof(host_side) / sizeof(host_side[0]); i++)
		assert_null(finding_find(&a.findings, host_side[i]));
	analysis_release(&a);
	trace_release(&t);
}

/* Everything enqueued up front, one sync waiting for all of it; the GPU has
 * 150 us gaps (cross-stream dependencies) while work is queued: that is not a
 * sync stall and not the host. */
static void test_enqueue_then_wait_once(void **state)
{
	struct trace t;
	struct analysis a;
	bt_init(&t);
	uint32_t corr = 1;
	for (int i = 0; i < 200; i++)
		bt_launched(&t, 100 + i * 1150.0, 1100 + i * 1150.0, 7, corr++, "work", 4096, 256,
			    i * 0.4, i * 0.4 + 0.3);
	bt_api(&t, 90, 200 * 1150.0 + 10, API_SYNC, corr++, "cudaDeviceSynchronize");
	run(&t, &a);
	expect_primary(&a, "gpu_busy");
	assert_null(finding_find(&a.findings, "sync_stall"));
	assert_null(finding_find(&a.findings, "input_pipeline"));
	analysis_release(&a);
	trace_release(&t);
}

/* GPM samples: DRAM at the roof while busy -> memory_bound is reported. */
static void test_memory_bound_gpm(void **state)
{
	struct trace t;
	struct analysis a;
	bt_init(&t);
	for (int i = 0; i < 100; i++)
		bt_launched(&t, i * 1002.0 + 5, i * 1002.0 + 1005, 7, (uint32_t)i + 1,
			    "stream_copy", 132 * 8, 256, i * 1002.0, i * 1002.0 + 4);
	uint32_t dram = trace_intern(&t, "gpm_dram_bw_util");
	uint32_t sm = trace_intern(&t, "gpm_sm_util");
	for (int i = 1; i < 100; i++) {
		struct trace_sample *s = trace_add_sample(&t);
		s->ts_ns = (int64_t)(i * 1000.0 * US);
		s->metric_id = dram;
		s->value = 88;
		s = trace_add_sample(&t);
		s->ts_ns = (int64_t)(i * 1000.0 * US);
		s->metric_id = sm;
		s->value = 40;
	}
	run(&t, &a);
	const struct finding *f = finding_find(&a.findings, "memory_bound");
	assert_non_null(f);
	assert_true(finding_get(f, "gpm_dram_bw_util_busy_pct")->num > 87);
	assert_null(finding_find(&a.findings, "latency_bound"));
	assert_null(finding_find(&a.findings, "compute_bound"));
	analysis_release(&a);
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kernel_storm),
	    cmocka_unit_test(test_pageable_copies),
	    cmocka_unit_test(test_sync_every_step),
	    cmocka_unit_test(test_small_grid),
	    cmocka_unit_test(test_low_occupancy),
	    cmocka_unit_test(test_input_pipeline),
	    cmocka_unit_test(test_busy_pipeline),
	    cmocka_unit_test(test_memory_bound_gpm),
	    cmocka_unit_test(test_healthy_gemm_training),
	    cmocka_unit_test(test_enqueue_then_wait_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
