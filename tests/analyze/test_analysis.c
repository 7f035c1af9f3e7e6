/*
 * test_analysis.c - the report's timeline math on hand-built traces: exact
 * unions with concurrent streams, the idle-gap breakdown, NVTX projection,
 * launch statistics, and bad input (unsorted, empty).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyze/analysis.h"
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
	assert_int_equal(a.start_ns, -10 * US);
	/* gaps: [-10,0) launch in flight (short), [1000,3000), [4000,4400) */
	assert_int_equal(a.idle.gaps, 3);
	assert_int_equal(a.idle.total_ns, 10 * US + 2000 * US + 400 * US);
	/* sync window [500, 2000 + 100) covers 1100 us of the gap */
	assert_int_equal(a.idle.sync_ns, 1100 * US);
	/* launch pending [2900, 3000) plus the short leading gap */
	assert_int_equal(a.idle.launch_ns, 100 * US + 10 * US);
	/* [4000,4100) nothing in flight, [4100,4400) the memcpy call */
	assert_int_equal(a.idle.copy_ns, 300 * US);
	assert_int_equal(a.idle.host_ns, 800 * US + 100 * US);
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
	assert_int_equal(a.start_ns, 101 * US);
	assert_int_equal(a.span_ns, 289 * US);
	assert_int_equal(a.n_kernels, 2);
	assert_int_equal(a.kernel_ns, 120 * US);
	assert_string_equal(a.range, "step");
	assert_string_equal(trace_str(a.t, a.kgroups[0].name_id), "k");
	analysis_release(&a);
	assert_int_equal(analysis_run_range(&a, &t, "nope", err), -1);
	assert_non_null(strstr(err, "no range named 'nope'"));
	trace_release(&t);
}

/* Lost data is never silent: dropped records and untraced processes become
 * warnings in every output. */
static void test_warnings(void **state)
{
	struct trace t;
	struct analysis a;
	char err[512] = "", *buf = NULL;
	size_t len = 0;
	bt_init(&t);
	bt_launched(&t, 10, 20, 7, 1, "k", 264, 256, 0, 5);
	struct trace_process *p = trace_add_process(&t);
	p->pid = 100;
	p->dropped_records = 1234;
	p = trace_add_process(&t);
	p->pid = 200;
	p->status_id = trace_intern(&t, "another CUPTI client is active (torch.profiler)");
	analysis_sort(&t);
	assert_int_equal(analysis_run(&a, &t, err), 0);
	assert_int_equal(a.dropped_records, 1234);
	FILE *m = open_memstream(&buf, &len);
	assert_int_equal(report_warnings(m, &a, "W: "), 2);
	fclose(m);
	assert_non_null(strstr(buf, "W: 1234 CUPTI records were dropped"));
	assert_non_null(strstr(buf, "process 200 was not traced: another CUPTI client"));
	free(buf);
	analysis_release(&a);
	trace_release(&t);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_union_two_streams), cmocka_unit_test(test_idle_breakdown),
	    cmocka_unit_test(test_nvtx_projection),   cmocka_unit_test(test_range_bounded_span),
	    cmocka_unit_test(test_warnings),	      cmocka_unit_test(test_unsorted_and_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
