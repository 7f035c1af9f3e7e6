/*
 * test_pm_plan.c - the PM sampling decode loop's arithmetic
 * (src/gpu/pm_metrics.h, used by src/inject/pmsampling.cpp) and the metric
 * table's names. A wrong loop would take a window twice or never, leave
 * windows in the hardware buffer when the image filled (CUPTI loses them
 * then), or loop forever on a full image that yields nothing; wrong sizes
 * would make an image that cannot hold a pass or a hardware buffer that
 * overflows between two passes; a wrong clock pick would put the windows
 * outside the trace's time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "gpu/pm_metrics.h"

/* Simulates CUPTI over passes: arrive[i] windows land in the hardware
 * buffer before pass i; each decode moves at most cap of them into the
 * image (stopping "full" when more remain). Counts how often each window of
 * the stream was taken, and checks that every pass drains the buffer. */
static void run(const size_t *arrive, size_t n, size_t cap, size_t total, unsigned *taken)
{
	size_t pending = 0, next = 0, stream = 0;
	for (size_t i = 0; i < n; i++) {
		pending += arrive[i];
		int decodes = 0;
		for (int again = 1; again; decodes++) {
			size_t put = pending < cap ? pending : cap;
			pending -= put;
			int full = put == cap && pending > 0;
			struct pm_step s = pm_after_decode(put, put, cap, full);
			assert_true(s.take == put);
			for (size_t w = 0; w < s.take; w++)
				taken[next + w]++;
			next += put;
			stream += s.take;
			assert_true(s.reinit || put == 0);
			again = s.again;
			assert_true(decodes < 64);
		}
		assert_int_equal(pending, 0); /* a pass leaves nothing behind */
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

static void test_after_decode(void **state)
{
	struct pm_step s = pm_after_decode(0, 0, 189, 0); /* nothing yet */
	assert_true(s.take == 0 && !s.reinit && !s.again);
	s = pm_after_decode(0, 1, 189, 0); /* one window under way */
	assert_true(s.take == 0 && s.reinit && !s.again);
	s = pm_after_decode(50, 51, 189, 0);
	assert_true(s.take == 50 && s.reinit && !s.again);
	s = pm_after_decode(189, 189, 189, 1); /* full: again at once */
	assert_true(s.take == 189 && s.reinit && s.again);
	s = pm_after_decode(300, 300, 189, 1); /* never past the image */
	assert_true(s.take == 189 && s.again);
	s = pm_after_decode(0, 0, 189, 1); /* full but nothing: no endless loop */
	assert_true(s.take == 0 && s.reinit && !s.again);
}

static void test_sizes(void **state)
{
	struct pm_sizes z = pm_sizes_for(1000000); /* 1 ms, the default */
	assert_true(z.decode_ns == PM_DECODE_NS);
	assert_int_equal(z.image_windows, 125 + PM_IMAGE_SPARE);
	assert_true(z.hw_bytes == (32u << 20)); /* 2000 windows of 16 KiB, whole MiB */
	static const uint64_t ivs[] = {1000,	10000,	  100000,     333333,
				       1000000, 10000000, 1000000000, 10000000000ull};
	for (size_t i = 0; i < sizeof(ivs) / sizeof(ivs[0]); i++) {
		z = pm_sizes_for(ivs[i]);
		uint64_t per_pass = z.decode_ns / ivs[i];
		assert_true(z.decode_ns >= PM_DECODE_MIN_NS && z.decode_ns <= PM_DECODE_NS);
		assert_true(z.image_windows <= PM_IMAGE_MAX);
		assert_true((uint64_t)z.image_windows * 2 >= per_pass * 5); /* a pass 2.5x */
		assert_true(z.image_windows >= PM_IMAGE_SPARE);
		assert_true(z.hw_bytes >= PM_HW_MIN_BYTES && z.hw_bytes <= PM_HW_MAX_BYTES);
		assert_true(z.hw_bytes % (1u << 20) == 0);
		/* the buffer outlasts a pass many times over where it is not capped */
		if (z.hw_bytes < PM_HW_MAX_BYTES)
			assert_true(z.hw_bytes / PM_HW_WINDOW_BYTES >= 10 * per_pass);
	}
	z = pm_sizes_for(1000); /* 1 us: the pass shrinks, the image is capped */
	assert_true(z.decode_ns < PM_DECODE_NS);
	assert_int_equal(z.image_windows, PM_IMAGE_MAX);
	z = pm_sizes_for(0); /* no division by zero */
	assert_true(z.image_windows == PM_IMAGE_MAX);
}

static void test_clock_pick(void **state)
{
	int64_t now[PM_CLOCKS];
	now[PM_CLOCK_CUPTI] = 1760000000000000000ll;
	now[PM_CLOCK_REALTIME] = 1760000000000005000ll; /* 5 us apart */
	now[PM_CLOCK_MONOTONIC] = 5000000000000ll;	/* since boot */
	assert_int_equal(pm_clock_pick((uint64_t)now[PM_CLOCK_MONOTONIC] - 3000000, now),
			 PM_CLOCK_MONOTONIC);
	assert_int_equal(pm_clock_pick((uint64_t)now[PM_CLOCK_CUPTI] - 10000000, now),
			 PM_CLOCK_CUPTI);
	/* a window that ended after CUPTI's now but before the realtime one */
	assert_int_equal(pm_clock_pick((uint64_t)now[PM_CLOCK_CUPTI] + 4000, now),
			 PM_CLOCK_REALTIME);
	now[PM_CLOCK_CUPTI] = 1000000000000000ll; /* CUPTI on a clock of its own */
	assert_int_equal(pm_clock_pick((uint64_t)now[PM_CLOCK_REALTIME] - 50000000, now),
			 PM_CLOCK_REALTIME);
	assert_int_equal(pm_clock_pick((uint64_t)now[PM_CLOCK_REALTIME] + 2000000000ll, now),
			 -1); /* 2 s ahead of every clock */
	assert_int_equal(pm_clock_pick((uint64_t)now[PM_CLOCK_REALTIME] - 100000000000ll, now),
			 -1); /* 100 s old */
	assert_int_equal(pm_clock_pick(UINT64_MAX, now), -1);
	now[PM_CLOCK_REALTIME] = 0; /* unknown */
	assert_int_equal(pm_clock_pick(1000, now), -1);
	assert_string_equal(pm_clock_name(-1), "an unknown clock");
	assert_string_equal(pm_clock_name(PM_CLOCK_MONOTONIC), "CLOCK_MONOTONIC");
}

static void test_explain(void **state)
{
	char buf[512];
	struct pm_counts c;
	memset(&c, 0, sizeof(c));
	c.stage = PM_STAGE_WAIT;
	pm_explain_none(buf, sizeof(buf), &c);
	assert_non_null(strstr(buf, "before PM sampling saw a CUDA context"));
	c.stage = PM_STAGE_SETUP;
	pm_explain_none(buf, sizeof(buf), &c);
	assert_non_null(strstr(buf, "being set up"));
	c.stage = PM_STAGE_DONE;
	c.devices = 1;
	c.passes = 22;
	c.decodes = 20;
	pm_explain_none(buf, sizeof(buf), &c);
	assert_non_null(strstr(buf, "the decodes completed no sample"));
	assert_non_null(strstr(buf, "1 device(s), 22 decode passes, 20 decodes"));
	c.completed = 40;
	c.empty = 38;
	c.refused = 2;
	pm_explain_none(buf, sizeof(buf), &c);
	assert_non_null(strstr(buf, "no completed sample gave a value"));
	assert_non_null(strstr(buf, "40 samples completed, 0 windows recorded, 38 covering no "
				    "time, 2 refused"));
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
	    cmocka_unit_test(test_after_decode),
	    cmocka_unit_test(test_sizes),
	    cmocka_unit_test(test_clock_pick),
	    cmocka_unit_test(test_explain),
	    cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
