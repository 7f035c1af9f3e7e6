/*
 * test_pass_order.c - the pass table declares every part a pass reads, so
 * that the runner may start a pass as soon as the passes it waits for are
 * done (analyze/analysis.c: an_run_passes): each fixture's report made
 * with the passes in table order and with each step taking the last ready
 * pass instead (an_run_passes_with's latest_first: every pass runs before
 * the earlier ones it does not wait for) must read the same, byte for
 * byte. A pass that reads a part it does not declare (the span the idle
 * breakdown used to shorten, read by the GPM windows) sees it before its
 * writer ran and gives another report; a planted table with an undeclared
 * read shows that the check can fail. test_passes checks the writes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analysis_int.h"
#include "build_trace.h"
#include "report_check.h"
#include "analyze/comm.h"
#include "diagnose/diagnose.h"
#include "diagnose/rules_int.h"
#include "render/report_render.h"

/* analysis_result_run for a trace of one device, its passes in table order
 * or latest first, on this thread: the text and JSON report, NULL when the
 * trace has several devices (they get per-device analyses). */
static char *report_in_order(const struct trace *t, int latest_first)
{
	char err[512] = "";
	struct analysis_result r;
	memset(&r, 0, sizeof(r));
	r.comm.straggler = -1;
	r.device = -1;
	struct analysis *a = &r.all;
	const struct trace *v = an_window(a, t, NULL, 0, err);
	if (!v)
		fail_msg("an_window: %s", err);
	a->t = v;
	a->source = trace_source_name(v->source);
	finding_list_init(&a->findings);
	if (an_run_passes_with(a, an_engine_passes, an_n_engine_passes, 1, latest_first, err) < 0 ||
	    an_run_passes_with(a, diagnose_passes, n_diagnose_passes, 1, latest_first, err) < 0)
		fail_msg("passes: %s", err);
	if (a->n_devices > 1) {
		analysis_result_release(&r);
		return NULL;
	}
	if (comm_analyze(&r.comm, a->t, err) < 0 || analysis_result_job_rules(&r, err) < 0)
		fail_msg("job rules: %s", err);
	char *s = result_report(&r, 0);
	assert_non_null(s);
	analysis_result_release(&r);
	return s;
}

static const char *const fixtures[] = {
    "zoo/healthy_pipeline.db",
    "zoo/sync_every_step.db",
    "zoo/pageable_copies.db",
    "zoo/tiny_kernel_storm.db",
    "zoo/graph_storm.db",
    "zoo/register_pressure.db",
    "zoo/sync_every_step.apisync.db",
    "counters/divergent_warps.db",
    "pm/fma_bound.db",
    "pytorch/small_ops.json.gz",
    "pytorch/transformer_step.db",
    "pytorch/item_every_step.db",
    "pytorch/dataloader_starved.json.gz",
    "pytorch/healthy_train.db",
    "procs/multi_process.db",
    "procs/driver_api.db",
    "real/cupy_small_ops.db",
    "real/hf_bert_syncs.db",
    "real/hf_decode.db",
    "real/jax_train.db",
    "real/triton_fused.db",
    "real/tv_resnet_loader.db",
    "real/torch_cuda_graphs.db",
    "real/hf_llama_train.json.gz",
    "kineto-synthetic/small.json.gz",
};

static void reports_same_in_any_order(void **state)
{
	(void)state;
	int compared = 0;
	for (size_t k = 0; k < sizeof(fixtures) / sizeof(fixtures[0]); k++) {
		char path[512], err[512] = "";
		snprintf(path, sizeof(path), "%s/%s", FIXTURES_DIR, fixtures[k]);
		struct trace t;
		if (analysis_load(&t, path, err) < 0)
			fail_msg("%s: %s", path, err);
		char *table = report_in_order(&t, 0);
		if (table) {
			char *latest = report_in_order(&t, 1), *runner = report_of(&t, 0);
			assert_non_null(runner);
			if (strcmp(table, runner) != 0)
				fail_msg("%s: the harness's report is not the runner's",
					 fixtures[k]);
			if (strcmp(table, latest) != 0)
				fail_msg(
				    "%s: the report depends on the passes' order (a pass reads "
				    "what it does not declare)",
				    fixtures[k]);
			compared++;
			free(latest);
			free(runner);
			free(table);
		}
		trace_release(&t);
	}
	assert_true(compared >= 20);
}

/* Bursts of kernels with GPM samples, recorded in two capture windows:
 * the time between them is out of the span (the timeline's uncaptured
 * time), which the GPM chunks read. */
static void captured_bursts(struct trace *t)
{
	bt_init(t);
	uint32_t c = 1;
	uint32_t sm = trace_intern(t, "gpm_sm_util"), dram = trace_intern(t, "gpm_dram_bw_util");
	for (int b = 0; b < 40; b++) {
		double at = b * 2000.0;
		if (at >= 30000 && at < 50000)
			continue;
		for (int i = 0; i < 125; i++, c++)
			bt_launched(t, at + i * 12.0 + 5, at + i * 12.0 + 15, 7, c,
				    b % 3 ? "_Z4gemmPfS_i" : "_Z4tinyPf", 132, 256, at + i * 12.0,
				    at + i * 12.0 + 3);
	}
	for (int i = 1; i < 160; i++) {
		struct trace_sample *x = trace_add_sample(t);
		x->ts_ns = (int64_t)(i * 500.0 * US);
		x->metric_id = sm;
		x->value = 20.0 + (i * 37) % 60;
		x = trace_add_sample(t);
		x->ts_ns = (int64_t)(i * 500.0 * US);
		x->metric_id = dram;
		x->value = 10.0 + (i * 53) % 80;
	}
	const double win[2][2] = {{0, 30000}, {50000, 80000}};
	for (int w = 0; w < 2; w++) {
		struct trace_capture_window *x = trace_add_capture_window(t);
		x->start_ns = (int64_t)(win[w][0] * US);
		x->end_ns = (int64_t)(win[w][1] * US);
		x->opened_id = trace_intern(t, "cudaProfilerStart");
		x->closed_id = trace_intern(t, "cudaProfilerStop");
	}
	assert_int_equal(trace_set_meta(t, "capture_range", "cudaProfilerStart"), 0);
	analysis_sort(t);
}

static void built_trace_same_in_any_order(void **state)
{
	(void)state;
	struct trace t;
	captured_bursts(&t);
	char *table = report_in_order(&t, 0), *latest = report_in_order(&t, 1);
	assert_non_null(table);
	assert_non_null(latest);
	assert_non_null(strstr(table, "\"uncaptured_in_span_ns\""));
	assert_string_equal(table, latest);
	free(table);
	free(latest);
	trace_release(&t);
}

/* A planted table: "second" reads what "first" writes without declaring
 * it, so latest first runs it before "first" and the result differs. */
static int first(struct analysis *a, char *err)
{
	(void)err;
	a->busy_ns = 7;
	return 0;
}

static int second(struct analysis *a, char *err)
{
	(void)err;
	a->launch.launches = (uint64_t)a->busy_ns;
	return 0;
}

static void undeclared_read_caught(void **state)
{
	(void)state;
	char err[512] = "";
	struct trace t;
	trace_init(&t);
	const struct an_pass undeclared[] = {
	    {"first", first, AF_INPUT, AF_TIMELINE},
	    {"second", second, AF_INPUT, AF_LAUNCH},
	};
	const struct an_pass declared[] = {
	    {"first", first, AF_INPUT, AF_TIMELINE},
	    {"second", second, AF_INPUT | AF_TIMELINE, AF_LAUNCH},
	};
	for (int d = 0; d < 2; d++) {
		uint64_t got[2];
		for (int latest = 0; latest < 2; latest++) {
			struct analysis a;
			memset(&a, 0, sizeof(a));
			a.t = &t;
			assert_int_equal(
			    an_run_passes_with(&a, d ? declared : undeclared, 2, 1, latest, err),
			    0);
			got[latest] = a.launch.launches;
		}
		assert_int_equal(got[0], 7);
		if (d)
			assert_int_equal(got[1], 7);
		else
			assert_int_equal(got[1], 0);
	}
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reports_same_in_any_order),
	    cmocka_unit_test(built_trace_same_in_any_order),
	    cmocka_unit_test(undeclared_read_caught),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
