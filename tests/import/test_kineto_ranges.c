/*
 * test_kineto_ranges.c - torch.profiler's CUPTI range counters
 * ("cuda_profiler_range" events, issue 18 item 4) into counter rows keyed
 * like record --metrics kernels' (pid, the launch's correlation), on
 * synthetic traces (tests/fixtures/kineto-synthetic/profiler_ranges*.json,
 * constructed by hand in kineto's output shape: torch 2.11 on the H200
 * wrote no such events, so no recorded trace exists; see docs/counters.md).
 * A wrong program would: pair by position across a skipped launch (the
 * second range would land on the graph launch or on kernel B), keep
 * "External id" as a metric, cut a metric name at 48 characters, lose the
 * ranges when the trace has no kernels, or disagree between the yajl and
 * the fast path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/kcounters.h"
#include "import/kineto.h"
#include "util/error.h"

#define WITH_KERNELS FIXTURES_DIR "/kineto-synthetic/profiler_ranges.json"
#define ONLY_RANGES FIXTURES_DIR "/kineto-synthetic/profiler_ranges_only.json"
#define BASE 1733141234000000000LL
#define LONG_METRIC "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
#define KA "void stream_copy<float4>(float4 const*, float4*, int)"

/* the value of metric for (pid, correlation); NAN when there is no row */
static double value_of(const struct trace *t, uint32_t corr, const char *metric)
{
	double v = NAN;
	int n = 0;
	for (size_t i = 0; i < t->n_counters; i++)
		if (t->counters[i].correlation == corr &&
		    strcmp(trace_str(t, t->counters[i].metric_id), metric) == 0) {
			assert_int_equal(t->counters[i].pid, 4242);
			v = t->counters[i].value;
			n++;
		}
	assert_true(n <= 1);
	return v;
}

static size_t rows_of(const struct trace *t, uint32_t corr)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n_counters; i++)
		n += t->counters[i].correlation == corr;
	return n;
}

static void both_paths(const char *path, struct trace *out)
{
	struct trace f;
	char err[GS_ERR_LEN] = "";
	struct kineto_options y = {.yajl_only = 1};
	assert_int_equal(kineto_load_opt(out, path, &y, err), 0);
	/* the fast path with chunks smaller than two events: ranges of several
	 * chunks are numbered in file order */
	for (size_t chunk = 300; chunk <= 4096; chunk *= 3) {
		struct kineto_options o = {.threads = 2, .chunk_bytes = chunk};
		assert_int_equal(kineto_load_opt(&f, path, &o, err), 0);
		if (!kineto_same_trace(out, &f))
			fail_msg("%s: the fast path (chunk %zu) differs from yajl", path, chunk);
		trace_release(&f);
	}
}

static void test_paired_by_name_past_skipped_launches(void **state)
{
	struct trace t;
	both_paths(WITH_KERNELS, &t);
	assert_int_equal(t.n_kernels, 3); /* no kernel made of a range */
	/* range 1 -> launch 11; range 2 skips the graph launch (12) and kernel
	 * B's launch (13): launch 14 */
	assert_int_equal(rows_of(&t, 11), 6);
	assert_int_equal(rows_of(&t, 12), 0);
	assert_int_equal(rows_of(&t, 13), 0);
	assert_int_equal(rows_of(&t, 14), 5);
	assert_int_equal(t.n_counters, 11);
	assert_true(value_of(&t, 11, "dram__bytes_read.sum") == 268435456.0);
	assert_true(value_of(&t, 14, "dram__bytes_read.sum") == 134217728.0);
	assert_true(value_of(&t, 11, LONG_METRIC) == 7.25);
	assert_true(value_of(&t, 11, "sm__inst_executed_pipe_tensor.sum") == 0.0);
	assert_true(isnan(value_of(&t, 11, "External id")));
	assert_string_equal(trace_get_meta(&t, "import.profiler_ranges"), "2");
	assert_string_equal(trace_get_meta(&t, "import.profiler_ranges_paired"), "2");
	assert_string_equal(trace_get_meta(&t, "import.profiler_ranges_unpaired"), "0");

	/* report's table: kernel A has counters from both launches, B none */
	struct kc_table kc;
	char err[GS_ERR_LEN];
	assert_int_equal(kc_build(&kc, &t, err), 0);
	assert_int_equal(kc.unmatched, 0);
	assert_int_equal(kc.n, 1);
	assert_string_equal(trace_str(&t, kc.g[0].name_id), KA);
	assert_int_equal(kc.g[0].profiled, 2);
	assert_int_equal(kc.g[0].launches, 2);
	assert_true(kc.g[0].v[KM_DRAM_READ] == (268435456.0 + 134217728.0) / 2);
	assert_true(kc.g[0].v[KM_SM_SOL] == 13.0);
	kc_release(&kc);
	trace_release(&t);
}

static void test_only_ranges_become_kernels(void **state)
{
	struct trace t;
	both_paths(ONLY_RANGES, &t);
	assert_int_equal(t.n_kernels, 3);
	/* each after its launch and the kernel before it, lasting its
	 * gpu__time_duration */
	static const struct {
		uint32_t corr;
		int64_t start, dur;
		const char *name;
	} want[] = {{21, 110000, 30000, KA}, {22, 140000, 2000, NULL}, {23, 142000, 31000, KA}};
	for (int i = 0; i < 3; i++) {
		const struct trace_kernel *k = &t.kernels[i];
		assert_int_equal(k->correlation, want[i].corr);
		assert_int_equal(k->pid, 4242);
		assert_true(k->start_ns == BASE + want[i].start);
		assert_true(k->end_ns - k->start_ns == want[i].dur);
		if (want[i].name)
			assert_string_equal(trace_str(&t, k->name_id), want[i].name);
		assert_int_equal(rows_of(&t, want[i].corr), 5);
		assert_true(value_of(&t, want[i].corr, "dram__bytes_read.sum") == 1000.0 * (i + 1));
	}
	assert_string_equal(trace_get_meta(&t, "import.profiler_kernel_times"),
			    "launch+gpu__time_duration");
	struct kc_table kc;
	char err[GS_ERR_LEN];
	assert_int_equal(kc_build(&kc, &t, err), 0);
	assert_int_equal(kc.unmatched, 0);
	assert_int_equal(kc.n, 2);
	trace_release(&t);
	kc_release(&kc);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	static char buf[1 << 16];
	*len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

/* One launch more than ranges: no position to trust. Kernels are still made
 * (kineto's split times, correlations past every launch's), counters kept. */
static void test_count_mismatch_pairs_nothing(void **state)
{
	size_t len;
	const char *src = slurp(ONLY_RANGES, &len);
	const char *at = strstr(src, "\"traceEvents\": [");
	assert_non_null(at);
	at += strlen("\"traceEvents\": [");
	static const char extra[] =
	    "\n  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
	    "\"pid\": 4242, \"tid\": 4242, \"ts\": 150.000, \"dur\": 4.000, "
	    "\"args\": {\"correlation\": 24}},";
	size_t head = (size_t)(at - src);
	char *text = malloc(len + sizeof(extra));
	memcpy(text, src, head);
	memcpy(text + head, extra, sizeof(extra) - 1);
	memcpy(text + head + sizeof(extra) - 1, src + head, len - head);
	size_t n = len + sizeof(extra) - 1;
	struct trace t, f;
	char err[GS_ERR_LEN] = "";
	assert_int_equal(
	    kineto_load_mem_opt(&t, text, n, &(struct kineto_options){.yajl_only = 1}, err), 0);
	assert_int_equal(
	    kineto_load_mem_opt(&f, text, n, &(struct kineto_options){.chunk_bytes = 500}, err), 0);
	assert_true(kineto_same_trace(&t, &f));
	trace_release(&f);
	free(text);
	assert_int_equal(t.n_kernels, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(t.kernels[i].correlation, 25 + i);
		assert_true(t.kernels[i].start_ns == BASE + 100000 + 1000000LL * i);
		assert_int_equal(rows_of(&t, 25 + i), 5);
	}
	assert_int_equal(rows_of(&t, 21), 0);
	assert_string_equal(trace_get_meta(&t, "import.profiler_ranges_paired"), "0");
	assert_string_equal(trace_get_meta(&t, "import.profiler_kernel_times"),
			    "kineto_span_split");
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paired_by_name_past_skipped_launches),
	    cmocka_unit_test(test_only_ranges_become_kernels),
	    cmocka_unit_test(test_count_mismatch_pairs_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
