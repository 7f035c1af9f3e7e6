/*
 * test_pm_samples.c - record --metrics pm's samples (PM sampling windows,
 * pm_* metrics) in the analysis and the report, on a trace built in
 * memory: a 4 ms kernel in a 10 ms run sampled every 1 ms. A wrong program
 * would average the busy windows with the idle ones ("while busy"), count a
 * window that is half idle as busy, drop the rows, mix them into GPM's
 * windows (whose verdicts they must not change), or leave the HTML chart
 * without them.
 *
 * test_h200_recordings: three real `record --metrics pm` recordings from
 * the H200 (tests/fixtures/pm/README.md), whose values the hardware set:
 * small_grid keeps 4 of 132 SMs busy (3.0%), fma_bound all of them,
 * bandwidth_stream DRAM near its roof. A program that averaged the idle
 * windows into "while busy", lost windows or kernels, or took one metric's
 * rows for another's would miss these.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diagnose/diagnose.h"
#include "report/report.h"
#include "build_trace.h"
#include "gpu/pm_metrics.h"
#include "render/report_render.h"

/* kernel 1000..5000 us; pm_dram_throughput at 1..10 ms: the windows
 * (1,2] (2,3] (3,4] (4,5] are busy (90%), the rest idle (2%); the first
 * sample has no window of its own */
static void build(struct trace *t)
{
	bt_init(t);
	bt_launched(t, 1000, 5000, 0, 1, "stream_copy", 1056, 256, 990, 995);
	bt_launched(t, 9990, 10000, 0, 2, "tail", 1, 32, 9980, 9985);
	uint32_t dram = trace_intern(t, "pm_dram_throughput");
	uint32_t tensor = trace_intern(t, "pm_tensor_active");
	static const double at_ms[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	for (size_t i = 0; i < sizeof(at_ms) / sizeof(at_ms[0]); i++) {
		struct trace_sample *s = trace_add_sample(t);
		s->ts_ns = (int64_t)(at_ms[i] * 1000 * US);
		s->metric_id = dram;
		s->value = at_ms[i] >= 2 && at_ms[i] <= 5 ? 90 : 2;
		s = trace_add_sample(t);
		s->ts_ns = (int64_t)(at_ms[i] * 1000 * US);
		s->metric_id = tensor;
		s->value = 0;
	}
	trace_sort(t);
}

static void test_means_and_busy_windows(void **state)
{
	(void)state;
	struct trace t;
	struct analysis a;
	char err[256];
	build(&t);
	assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
	const struct an_metric *x = &a.pm[PM_DRAM];
	assert_true(x->valid);
	assert_string_equal(x->name, "pm_dram_throughput");
	assert_int_equal(x->n, 10);
	assert_true(x->mean > (4 * 90 + 6 * 2) / 10.0 - 1e-9 &&
		    x->mean < (4 * 90 + 6 * 2) / 10.0 + 1e-9);
	assert_int_equal(x->n_busy, 4); /* (1,2] .. (4,5] */
	assert_true(x->mean_busy == 90);
	assert_true(a.pm[PM_TENSOR].valid && a.pm[PM_TENSOR].mean == 0);
	assert_false(a.pm[PM_SM_ACTIVE].valid);
	/* GPM's analysis saw none of it */
	assert_false(a.metrics[AM_DRAM].valid);
	assert_false(a.sol.valid);
	/* the series the HTML page draws: a windowed series per metric */
	int seen = 0;
	for (size_t i = 0; i < a.series.n_samples; i++)
		if (strcmp(a.series.samples[i].metric, "pm_dram_throughput") == 0) {
			seen = 1;
			assert_true(a.series.samples[i].windowed);
		}
	assert_true(seen);
	analysis_release(&a);
	trace_release(&t);
}

static char *render(void (*fn)(FILE *, const struct report *), struct trace *t)
{
	struct analysis_result res;
	struct analysis_opts o = {.whole = 1, .device = -1};
	struct report r;
	char err[256];
	assert_int_equal(analysis_result_run(&res, t, &o, err), 0);
	assert_int_equal(report_build(&r, &res, "x.db", err), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fn(f, &r);
	fclose(f);
	report_release(&r);
	analysis_result_release(&res);
	return buf;
}

static void test_report_rows(void **state)
{
	(void)state;
	struct trace t;
	build(&t);
	char *text = render(report_text, &t);
	assert_non_null(strstr(text, "SAMPLED METRICS (NVML / GPM / PM sampling)"));
	const char *row = strstr(text, "pm_dram_throughput");
	assert_non_null(row);
	/* samples, mean, while busy */
	assert_non_null(strstr(row, "10"));
	assert_non_null(strstr(row, "37.2"));
	assert_non_null(strstr(row, "90.0"));
	free(text);
	char *json = render(report_json, &t);
	assert_non_null(strstr(json, "\"pm_dram_throughput\""));
	free(json);
	char *html = render(report_html, &t);
	assert_non_null(strstr(html, "PM sampling (% of peak"));
	free(html);
	trace_release(&t);
}

struct h200_case {
	const char *file;
	size_t kernels;	  /* the program's own launches */
	uint64_t windows; /* PM windows per metric in the database */
	int metric;
	double busy_lo, busy_hi; /* mean of the busy windows, % */
};

static void test_h200_recordings(void **state)
{
	(void)state;
	static const struct h200_case cases[] = {
	    /* 4 of 132 SMs: 3.03% */
	    {"pm/small_grid.db", 10, 172, PM_SM_ACTIVE, 2.5, 3.5},
	    {"pm/fma_bound.db", 4, 413, PM_SM_ACTIVE, 97, 100.01},
	    {"pm/bandwidth_stream.db", 3001, 1856, PM_DRAM, 85, 95},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct h200_case *c = &cases[i];
		char path[1024], err[512] = "";
		snprintf(path, sizeof(path), "%s/%s", FIXTURES_DIR, c->file);
		struct trace t;
		struct analysis a;
		assert_int_equal(analysis_load(&t, path, err), 0);
		assert_int_equal(t.n_kernels, c->kernels);
		assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
		for (int m = 0; m < PM_COUNT; m++) {
			/* every row loaded; the analysis counts those in its span
			 * (the windows after the last kernel, the copies back and
			 * the exit, are not the run's) */
			uint64_t rows = 0, in_span = 0;
			for (size_t k = 0; k < t.n_samples; k++)
				if (strcmp(trace_str(&t, t.samples[k].metric_id),
					   pm_trace_name(m)) == 0) {
					rows++;
					in_span += t.samples[k].ts_ns >= a.start_ns &&
						   t.samples[k].ts_ns <= a.end_ns;
				}
			assert_int_equal(rows, c->windows);
			assert_true(a.pm[m].valid);
			assert_int_equal(a.pm[m].n, in_span);
			assert_true(in_span * 10 >= rows * 8);
		}
		const struct an_metric *x = &a.pm[c->metric];
		print_message("%s: %s mean %.1f, busy %.1f over %llu windows\n", c->file, x->name,
			      x->mean, x->mean_busy, (unsigned long long)x->n_busy);
		assert_true(x->n_busy > 0 && x->n_busy <= x->n);
		assert_true(x->mean_busy >= c->busy_lo && x->mean_busy <= c->busy_hi);
		/* the idle windows (the copies back) lower the mean; the first
		 * window, a start-up of 110-680 ms, counts in it too */
		assert_true(x->mean <= x->mean_busy + 1);
		/* none of these programs touches the tensor pipe */
		assert_true(a.pm[PM_TENSOR].mean < 0.5);
		analysis_release(&a);
		trace_release(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_means_and_busy_windows),
	    cmocka_unit_test(test_report_rows),
	    cmocka_unit_test(test_h200_recordings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
