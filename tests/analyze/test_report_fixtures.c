/*
 * test_report_fixtures.c - accuracy on real traces: for every zoo program
 * recorded on the H200 (tests/fixtures/zoo/NAME.db) and every PyTorch
 * profiler trace (tests/fixtures/pytorch/NAME.json[.gz]), the designed
 * bottleneck (workloads/README.md) must be `primary`, and the listed ids
 * must not be critical. A row whose file is absent is skipped, so fixtures
 * can be dropped in without touching this file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/analysis.h"

#define HOST_SIDE "input_pipeline,launch_overhead,transfer,sync_stall"

struct row {
	const char *file;    /* under FIXTURES_DIR, without extension */
	const char *primary; /* accepted primaries, '|'-separated; NULL = any */
	const char *no_crit; /* ids that must not be critical, ','-separated */
};

static const struct row rows[] = {
    {"zoo/tiny_kernel_storm", "launch_overhead", "input_pipeline,sync_stall,transfer"},
    {"zoo/graph_storm", "launch_overhead|gpu_busy", "input_pipeline,sync_stall,transfer"},
    {"zoo/pageable_copies", "transfer", "input_pipeline,launch_overhead,sync_stall"},
    {"zoo/pinned_copies", "transfer", "input_pipeline,launch_overhead,sync_stall"},
    {"zoo/sync_every_step", "sync_stall", "input_pipeline,transfer"},
    {"zoo/small_grid", "small_grid", HOST_SIDE},
    {"zoo/register_pressure", "low_occupancy", HOST_SIDE},
    {"zoo/uncoalesced", "memory_bound|latency_bound", HOST_SIDE},
    {"zoo/coalesced", "memory_bound", HOST_SIDE},
    {"zoo/divergent_warps", "divergence|latency_bound|compute_bound|gpu_busy", HOST_SIDE},
    {"zoo/bank_conflicts", "latency_bound", HOST_SIDE},
    {"zoo/bandwidth_stream", "memory_bound", HOST_SIDE},
    {"zoo/fma_bound", "compute_bound", HOST_SIDE},
    {"zoo/healthy_pipeline", "gpu_busy", HOST_SIDE},
    {"pytorch/dataloader_starved", "input_pipeline", "launch_overhead,sync_stall,transfer"},
    {"pytorch/small_ops", "launch_overhead", "input_pipeline,transfer"},
    {"pytorch/item_every_step", "sync_stall", "input_pipeline,transfer"},
    {"pytorch/bf16_gemm", "gpu_busy|compute_bound", HOST_SIDE},
    {"pytorch/healthy_train", "gpu_busy|compute_bound", HOST_SIDE},
    {"kineto-synthetic/small", NULL, ""},
};

static const char *const exts[] = {".db",   ".gpuscope",      ".json.gz",
				   ".json", ".pt.trace.json", ".pt.trace.json.gz"};

static int find_file(const char *base, char *path, size_t n)
{
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		snprintf(path, n, "%s/%s%s", FIXTURES_DIR, base, exts[i]);
		if (access(path, R_OK) == 0)
			return 0;
	}
	return -1;
}

/* 1 when id is an item of the separated list. */
static int in_list(const char *list, const char *id, char sep)
{
	size_t n = strlen(id);
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, sep);
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && strncmp(p, id, n) == 0)
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

static void test_fixtures(void **state)
{
	int ran = 0, bad = 0;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		char path[1024], err[512] = "";
		if (find_file(r->file, path, sizeof(path)) < 0)
			continue;
		struct trace t;
		struct analysis a;
		if (analysis_load(&t, path, err) < 0) {
			/* a kineto trace without the importer linked in is not a failure */
			if (strstr(path, ".json")) {
				trace_release(&t);
				continue;
			}
			print_error("%s: load: %s\n", path, err);
			trace_release(&t);
			bad++;
			continue;
		}
		if (analysis_run(&a, &t, err) < 0) {
			print_error("%s: analysis: %s\n", path, err);
			trace_release(&t);
			bad++;
			continue;
		}
		ran++;
		const char *p = a.primary ? a.primary->id : "(none)";
		if (r->primary && !in_list(r->primary, p, '|')) {
			print_error("%s: primary %s, expected %s\n", r->file, p, r->primary);
			finding_list_text(stderr, &a.findings);
			bad++;
		}
		for (size_t k = 0; k < a.findings.n; k++) {
			const struct finding *f = &a.findings.v[k];
			if (f->severity == SEV_CRITICAL && in_list(r->no_crit, f->id, ',')) {
				print_error("%s: %s must not be critical\n", r->file, f->id);
				bad++;
			}
		}
		print_message("%-32s primary %-16s (%.1f%%)\n", r->file, p,
			      a.primary ? a.primary->impact_pct : 0.0);
		analysis_release(&a);
		trace_release(&t);
	}
	print_message("%d fixture(s) checked\n", ran);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixtures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
