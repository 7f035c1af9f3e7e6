/*
 * test_pm_plan.c - the PM sampling decode loop's bookkeeping
 * (src/gpu/pm_metrics.h, used by src/inject/pmsampling.cpp): each window is
 * evaluated once, across decodes and image re-initialisations; and the
 * metric table's names. A wrong loop would emit a window twice (from 0
 * every decode), skip the windows of a decode that filled the image, or
 * run past the image.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "gpu/pm_metrics.h"

/* Simulates CUPTI's image: `arrive[i]` windows complete before decode i;
 * returns how many times each window index of the stream was taken. */
static void run(const size_t *arrive, size_t n, size_t cap, size_t total, unsigned *taken)
{
	size_t emitted = 0, in_image = 0, stream = 0, base = 0;
	for (size_t i = 0; i < n; i++) {
		size_t pending = arrive[i];
		for (int round = 0; round < 64; round++) {
			/* DecodeData fills the image up to cap */
			size_t room = cap - in_image, put = pending < room ? pending : room;
			in_image += put;
			pending -= put;
			int full = in_image == cap && pending > 0;
			struct pm_plan p = pm_plan_next(emitted, in_image, cap, full);
			for (size_t w = p.from; w < p.to; w++)
				taken[base + w]++;
			stream += p.to - p.from;
			emitted = p.to;
			if (!p.reinit)
				break;
			base += in_image;
			in_image = 0;
			emitted = 0;
		}
	}
	assert_int_equal(stream, total);
}

static void test_each_window_once(void **state)
{
	static const size_t arrive[] = {3, 0, 5, 2, 9, 1, 4, 4, 0, 13};
	unsigned taken[64] = {0};
	run(arrive, sizeof(arrive) / sizeof(arrive[0]), 4, 41, taken);
	for (int w = 0; w < 41; w++)
		assert_int_equal(taken[w], 1);
	assert_int_equal(taken[41], 0);
}

static void test_edges(void **state)
{
	struct pm_plan p = pm_plan_next(0, 0, 8, 0);
	assert_true(p.from == 0 && p.to == 0 && !p.reinit);
	p = pm_plan_next(3, 3, 8, 0); /* nothing new */
	assert_true(p.from == 3 && p.to == 3 && !p.reinit);
	p = pm_plan_next(3, 20, 8, 0); /* CUPTI says more than the image holds */
	assert_true(p.from == 3 && p.to == 8 && p.reinit);
	p = pm_plan_next(6, 2, 8, 0); /* re-initialised behind our back */
	assert_true(p.from == 0 && p.to == 2 && !p.reinit);
	p = pm_plan_next(2, 5, 8, 1); /* full by CUPTI's word */
	assert_true(p.from == 2 && p.to == 5 && p.reinit);
}

static void test_names(void **state)
{
	assert_int_equal(pm_metric_by_trace_name("pm_dram_throughput"), PM_DRAM);
	assert_int_equal(pm_metric_by_trace_name("pm_tensor_active"), PM_TENSOR);
	assert_int_equal(pm_metric_by_trace_name("gpm_dram_bw_util"), -1);
	assert_int_equal(pm_metric_by_trace_name(NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_each_window_once),
	    cmocka_unit_test(test_edges),
	    cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
