/*
 * test_series.c - the chart series (analyze/series.h) add up to the
 * analysis they come from, on every real H200 fixture (zoo, PyTorch,
 * multi-process): the bins' busy time is the busy union, busy plus idle
 * fills each bin, the gap histogram holds every gap and each cause's
 * total, the lanes hold every kernel, copy and memset nanosecond, the
 * memory peak is the allocations' replayed peak and the sample series are
 * the samples, shifted by the analysis's clock shift. Synthetic traces
 * cover what no fixture has: more streams than lanes, more samples than
 * points, no GPU work.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "diagnose/diagnose.h"
#include "report/report.h"
#include "build_trace.h"

static const char *const fixtures[] = {
    "zoo/tiny_kernel_storm.db",	   "zoo/sync_every_step.db",
    "zoo/pageable_copies.db",	   "zoo/healthy_pipeline.db",
    "zoo/graph_storm.db",	   "zoo/bandwidth_stream.db",
    "pytorch/transformer_step.db", "pytorch/dataloader_starved.db",
    "pytorch/small_ops.json.gz",   "procs/multi_process.db",
    "procs/py_torchrun.db",	   "procs/driver_api.db",
};

static int64_t bin_len(const struct an_series *s, const struct analysis *a, int b)
{
	int64_t lo = s->start_ns + (int64_t)b * s->bin_ns, hi = lo + s->bin_ns;
	return (hi < a->end_ns ? hi : a->end_ns) - lo;
}

static void check_bins(const struct analysis *a)
{
	const struct an_series *s = &a->series;
	assert_true(s->n_bins > 0 && s->n_bins <= AN_SERIES_BINS);
	assert_true((int64_t)s->n_bins * s->bin_ns >= a->span_ns);
	int64_t busy = 0;
	double idle = 0;
	for (int b = 0; b < s->n_bins; b++) {
		double bi = 0;
		for (int c = 0; c < AN_IDLE_CAUSES; c++)
			bi += s->idle[(size_t)b * AN_IDLE_CAUSES + (size_t)c];
		/* invariant 2: busy + idle fill the bin */
		assert_true(bi + (double)s->busy[b] > (double)bin_len(s, a, b) - 2.0);
		assert_true(bi + (double)s->busy[b] < (double)bin_len(s, a, b) + 2.0);
		busy += s->busy[b];
		idle += bi;
	}
	assert_int_equal(busy, a->busy_ns);
	assert_true(idle > (double)a->idle.total_ns - 1.0 * s->n_bins);
	assert_true(idle < (double)a->idle.total_ns + 1.0 * s->n_bins);
}

static void check_gaps(const struct analysis *a)
{
	const struct an_series *s = &a->series;
	uint64_t gaps = 0;
	int64_t by[AN_IDLE_CAUSES] = {0};
	for (int k = 0; k < AN_GAP_BINS; k++) {
		gaps += s->gap_count[k];
		for (int c = 0; c < AN_IDLE_CAUSES; c++)
			by[c] += s->gap_ns[k][c];
	}
	assert_int_equal(gaps, a->idle.gaps);
	/* invariant 3, cause by cause (idle.c's sync overlap moves included) */
	assert_int_equal(by[AN_IDLE_HOST], a->idle.host_ns);
	assert_int_equal(by[AN_IDLE_DISPATCH], a->idle.dispatch_ns);
	assert_int_equal(by[AN_IDLE_LAUNCH], a->idle.launch_ns);
	assert_int_equal(by[AN_IDLE_SYNC], a->idle.sync_ns);
	assert_int_equal(by[AN_IDLE_COPY], a->idle.copy_ns);
	assert_int_equal(by[AN_IDLE_API], a->idle.api_ns);
	/* gaps of >= 500 ms are the last two bins' (500 ms..1 s, >= 1 s) */
	assert_int_equal(s->gap_count[AN_GAP_BINS - 1] + s->gap_count[AN_GAP_BINS - 2],
			 a->idle.gaps_ge_500ms);
}

static void check_lanes(const struct analysis *a)
{
	const struct an_series *s = &a->series;
	int64_t sum[AN_LANE_KINDS] = {0};
	uint64_t ops = 0;
	assert_int_equal(s->n_lanes,
			 a->n_streams < AN_SERIES_LANES ? a->n_streams : AN_SERIES_LANES);
	for (size_t l = 0; l < s->n_lanes; l++) {
		ops += s->lanes[l].ops;
		for (int b = 0; b < s->n_bins; b++)
			for (int k = 0; k < AN_LANE_KINDS; k++)
				sum[k] += s->lanes[l].ns[(size_t)b * AN_LANE_KINDS + (size_t)k];
	}
	assert_int_equal(sum[AN_LANE_KERNEL], a->kernel_sum_ns);
	assert_int_equal(sum[AN_LANE_COPY], a->copy_sum_ns);
	assert_int_equal(sum[AN_LANE_MEMSET], a->memset_sum_ns);
	assert_int_equal(ops, a->n_kernels + a->n_copies + a->n_memsets);
}

/* The peak of live device memory in the span, replayed here. */
static void check_memory(const struct analysis *a)
{
	const struct trace *t = a->t;
	const struct an_series *s = &a->series;
	for (size_t m = 0; m < s->n_mem; m++) {
		int64_t live = 0, peak = INT64_MIN;
		for (size_t i = 0; i < t->n_allocs; i++) {
			const struct trace_alloc *x = &t->allocs[i];
			if (x->mem_kind != MEM_DEVICE || x->device != s->mem[m].device)
				continue;
			if (x->ts_ns >= s->start_ns + (int64_t)s->n_bins * s->bin_ns)
				break;
			if (x->ts_ns >= s->start_ns && live > peak)
				peak = live; /* held until this change */
			live += x->bytes;
			if (x->ts_ns >= s->start_ns && live > peak)
				peak = live;
		}
		if (live > peak)
			peak = live;
		assert_int_equal(s->mem[m].peak_bytes, peak);
	}
}

static void check_samples(const struct analysis *a)
{
	const struct an_series *s = &a->series;
	assert_int_equal(s->sample_shift_ns, a->sol.lag_ns);
	for (size_t k = 0; k < s->n_samples; k++) {
		const struct an_sample_series *x = &s->samples[k];
		assert_true(x->n > 0 && x->n <= AN_SERIES_POINTS);
		for (size_t i = 0; i < x->n; i++) {
			assert_true(x->from[i] <= x->to[i]);
			/* unmerged (every fixture has < 1000 in its span): a recorded
			 * sample at to + shift with that value */
			int found = 0;
			for (size_t j = 0; j < a->t->n_samples && !found; j++) {
				const struct trace_sample *p = &a->t->samples[j];
				found = p->device == x->device &&
					p->ts_ns == x->to[i] + s->sample_shift_ns &&
					p->value == x->value[i] &&
					strcmp(trace_str(a->t, p->metric_id), x->metric) == 0;
			}
			assert_true(found);
		}
	}
}

static void test_fixtures(void **state)
{
	(void)state;
	int seen = 0;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		char path[512], err[512];
		snprintf(path, sizeof(path), "%s/%s", FIXTURES_DIR, fixtures[i]);
		struct trace t;
		struct analysis_result res;
		struct analysis_opts o = {.device = -1};
		if (access(path, R_OK) != 0)
			continue;
		if (analysis_load(&t, path, err) < 0 || analysis_result_run(&res, &t, &o, err) < 0)
			fail_msg("%s: %s", fixtures[i], err);
		const struct analysis *a = &res.all;
		check_bins(a);
		check_gaps(a);
		check_lanes(a);
		check_memory(a);
		check_samples(a);
		/* the report carries them in sections that text and JSON leave out */
		struct report r;
		assert_int_equal(report_build(&r, &res, path, err), 0);
		const struct rm_section *tl = report_section(&r, "timeline");
		assert_non_null(tl);
		assert_false(tl->text);
		assert_int_equal(tl->json, RM_SJ_NONE);
		assert_int_equal(rm_section_table(tl)->n_rows, (size_t)a->series.n_bins);
		size_t lanes = 0, series = 0;
		for (size_t s = 0; s < r.n_secs; s++) {
			lanes += strcmp(r.secs[s].id, "timeline_lane") == 0;
			series += strcmp(r.secs[s].id, "series") == 0;
		}
		assert_int_equal(lanes, a->series.n_lanes);
		assert_int_equal(series, a->series.n_samples);
		report_release(&r);
		analysis_result_release(&res);
		trace_release(&t);
		seen++;
	}
	assert_int_equal(seen, (int)(sizeof(fixtures) / sizeof(fixtures[0])));
}

/* 20 streams: the 15 busiest get lanes, the other 5 one merged lane. */
static void test_lane_merge(void **state)
{
	(void)state;
	struct trace t;
	struct analysis a;
	char err[256];
	bt_init(&t);
	for (int i = 0; i < 200; i++) {
		uint32_t stream = (uint32_t)(i % 20);
		/* stream s runs kernels of (s + 1) us: busiest last */
		bt_launched(&t, 10.0 * i + 2, 10.0 * i + 3 + stream / 4.0, stream, (uint32_t)i + 1,
			    "k", 64, 128, 10.0 * i, 10.0 * i + 1);
	}
	trace_sort(&t);
	assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
	const struct an_series *s = &a.series;
	assert_int_equal(s->n_lanes, AN_SERIES_LANES);
	const struct an_lane *other = &s->lanes[s->n_lanes - 1];
	assert_int_equal(other->stream, UINT32_MAX);
	assert_int_equal(other->streams, 20 - (AN_SERIES_LANES - 1));
	for (size_t l = 0; l + 1 < s->n_lanes; l++) /* the merged ones are the least busy */
		assert_true(s->lanes[l].stream >= 20 - (AN_SERIES_LANES - 1));
	check_lanes(&a);
	check_bins(&a);
	check_gaps(&a);
	analysis_release(&a);
	trace_release(&t);
}

/* 5000 GPM samples: merged into <= 1000 windows keeping the time-weighted
 * mean over the span. */
static void test_sample_bound(void **state)
{
	(void)state;
	struct trace t;
	struct analysis a;
	char err[256];
	bt_init(&t);
	uint32_t m = trace_intern(&t, "gpm_sm_util");
	bt_launched(&t, 0, 50000, 0, 1, "k", 64, 128, 0, 0);
	double sum = 0;
	for (int i = 0; i < 5000; i++) {
		struct trace_sample *p = trace_add_sample(&t);
		p->ts_ns = (int64_t)(i + 1) * 10 * US;
		p->metric_id = m;
		p->value = (double)(i % 7) * 10;
		if (i)
			sum += p->value * 10 * US;
	}
	trace_sort(&t);
	assert_int_equal(analysis_run_opts(&a, &t, NULL, 1, err), 0);
	assert_int_equal(a.series.n_samples, 1);
	const struct an_sample_series *x = &a.series.samples[0];
	assert_true(x->windowed);
	assert_true(x->n <= AN_SERIES_POINTS && x->n >= AN_SERIES_POINTS / 2);
	double got = 0;
	for (size_t i = 0; i < x->n; i++)
		got += x->value[i] * (double)(x->to[i] - x->from[i]);
	assert_true(got > sum * 0.999 && got < sum * 1.001);
	analysis_release(&a);
	trace_release(&t);
}

/* No GPU work: the span is the host calls', its bins hold no busy time and
 * no lane; the report still builds its sections. */
static void test_no_gpu_work(void **state)
{
	(void)state;
	struct trace t;
	struct analysis_result res;
	struct analysis_opts o = {.whole = 1, .device = -1};
	struct report r;
	char err[256];
	bt_init(&t);
	bt_api(&t, 0, 10, API_OTHER, 1, "cudaMalloc");
	trace_sort(&t);
	assert_int_equal(analysis_result_run(&res, &t, &o, err), 0);
	const struct an_series *s = &res.all.series;
	assert_int_equal(s->n_lanes, 0);
	for (int b = 0; b < s->n_bins; b++)
		assert_int_equal(s->busy[b], 0);
	assert_int_equal(report_build(&r, &res, "x", err), 0);
	assert_int_equal(report_section(&r, "timeline_lane") == NULL, 1);
	report_release(&r);
	analysis_result_release(&res);
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixtures),
	    cmocka_unit_test(test_lane_merge),
	    cmocka_unit_test(test_sample_bound),
	    cmocka_unit_test(test_no_gpu_work),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
