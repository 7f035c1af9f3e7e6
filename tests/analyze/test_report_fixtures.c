/*
 * test_report_fixtures.c - accuracy on real traces: for every zoo program
 * recorded on the H200 (tests/fixtures/zoo/NAME.db), every PyTorch workload
 * recorded there (tests/fixtures/pytorch/NAME.db) and its PyTorch profiler
 * trace (tests/fixtures/pytorch/NAME.json.gz), the designed bottleneck
 * (workloads/README.md) must be `primary`, and the listed ids must not be
 * critical (or, for healthy programs, above info). The test fails when
 * fewer than MIN_FIXTURES rows found their file, so the real recordings
 * cannot silently go missing.
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

#include "analyze/analysis.h"
#include "render/findings_render.h"
#include "render/report_render.h"

/* the 14 zoo recordings (and one by today's recorder), 6 PyTorch recordings,
 * 6 kineto traces and 5 recordings with per-kernel counters */
#define MIN_FIXTURES 32

#define HOST_SIDE "input_pipeline,launch_overhead,transfer,sync_stall"
/* A healthy program keeps the GPU busy: its primary is gpu_busy or the
 * speed-of-light class of its kernels, and no host-side finding reaches
 * warning. */
#define GPU_SIDE "gpu_busy|compute_bound|memory_bound|latency_bound"

struct row {
	const char *file;    /* under FIXTURES_DIR; without extension: first of exts[] */
	const char *primary; /* accepted primaries, '|'-separated; NULL = any */
	const char *no_crit; /* ids that must not be critical, ','-separated */
	const char *no_warn; /* ids that must stay info (or absent), ','-separated */
};

/* Expected primaries: workloads/README.md (each program's designed problem,
 * as the H200 measured it). */
static const struct row rows[] = {
    {"zoo/tiny_kernel_storm", "launch_overhead", "input_pipeline,sync_stall,transfer", ""},
    {"zoo/graph_storm", "launch_overhead", "input_pipeline,sync_stall,transfer", ""},
    {"zoo/pageable_copies", "transfer", "input_pipeline,launch_overhead,sync_stall", ""},
    {"zoo/pinned_copies", "transfer", "input_pipeline,launch_overhead,sync_stall", ""},
    {"zoo/sync_every_step", "sync_stall", "input_pipeline,transfer", ""},
    /* recorded without CUPTI's sync records: sync rows from the API calls */
    {"zoo/sync_every_step.apisync.db", "sync_stall", "input_pipeline,transfer", ""},
    {"zoo/small_grid", "small_grid", HOST_SIDE, HOST_SIDE},
    {"zoo/register_pressure", "low_occupancy", HOST_SIDE, HOST_SIDE},
    {"zoo/uncoalesced", "latency_bound|memory_bound", HOST_SIDE, HOST_SIDE},
    {"zoo/coalesced", "latency_bound", HOST_SIDE, HOST_SIDE},
    {"zoo/divergent_warps", "divergence|latency_bound", HOST_SIDE, HOST_SIDE},
    {"zoo/bank_conflicts", "latency_bound", HOST_SIDE, HOST_SIDE},
    {"zoo/bandwidth_stream", "memory_bound", HOST_SIDE, HOST_SIDE},
    {"zoo/fma_bound", "compute_bound", HOST_SIDE, HOST_SIDE},
    {"zoo/healthy_pipeline", "gpu_busy|compute_bound", HOST_SIDE, HOST_SIDE},
    /* PyTorch workloads recorded by gpuscope record (.db) */
    {"pytorch/dataloader_starved.db", "input_pipeline", "launch_overhead,sync_stall,transfer", ""},
    {"pytorch/small_ops.db", "launch_overhead", "input_pipeline,transfer", ""},
    {"pytorch/item_every_step.db", "sync_stall", "input_pipeline,transfer", ""},
    {"pytorch/bf16_gemm.db", "compute_bound|gpu_busy", HOST_SIDE, HOST_SIDE},
    {"pytorch/healthy_train.db", GPU_SIDE, HOST_SIDE, HOST_SIDE},
    {"pytorch/transformer_step.db", "launch_overhead", "input_pipeline,transfer,sync_stall", ""},
    /* the same workloads under torch.profiler (kineto traces) */
    {"pytorch/dataloader_starved.json.gz", "input_pipeline", "launch_overhead,sync_stall,transfer",
     ""},
    {"pytorch/small_ops.json.gz", "launch_overhead", "input_pipeline,transfer", ""},
    {"pytorch/item_every_step.json.gz", "sync_stall", "input_pipeline,transfer", ""},
    {"pytorch/bf16_gemm.json.gz", "gpu_busy|compute_bound", HOST_SIDE, HOST_SIDE},
    {"pytorch/healthy_train.json.gz", GPU_SIDE, HOST_SIDE, HOST_SIDE},
    {"pytorch/transformer_step.json.gz", "launch_overhead", "input_pipeline,transfer,sync_stall",
     ""},
    /* record --metrics kernels on the H200 (tests/fixtures/counters): the
     * per-kernel counters name the designed cause */
    {"counters/divergent_warps", "divergence", HOST_SIDE, HOST_SIDE},
    {"counters/bank_conflicts", "bank_conflicts", HOST_SIDE, HOST_SIDE},
    {"counters/uncoalesced", "uncoalesced", HOST_SIDE, HOST_SIDE},
    {"counters/bandwidth_stream", "memory_bound", HOST_SIDE, HOST_SIDE},
    {"counters/fma_bound", "compute_bound", HOST_SIDE, HOST_SIDE},
    {"kineto-synthetic/small", NULL, "", ""},
};

static const char *const exts[] = {".db",   ".gpuscope",      ".json.gz",
				   ".json", ".pt.trace.json", ".pt.trace.json.gz"};

static int find_file(const char *base, char *path, size_t n)
{
	if (strchr(strrchr(base, '/') ? strrchr(base, '/') : base, '.')) {
		snprintf(path, n, "%s/%s", FIXTURES_DIR, base);
		return access(path, R_OK);
	}
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		snprintf(path, n, "%s/%s%s", FIXTURES_DIR, base, exts[i]);
		if (access(path, R_OK) == 0)
			return 0;
	}
	return -1;
}

/* The text report's layout on real names (PyTorch's run to 400
 * characters): every line fits in TEXT_COLS columns and every row of the
 * top-kernel table and of its name list has a name. Returns problems found. */
#define TEXT_COLS 100
static int check_text(const char *file, const struct analysis_result *a)
{
	char *buf = NULL, err[512];
	size_t len = 0;
	struct report r;
	FILE *f = open_memstream(&buf, &len);
	if (!f || report_build(&r, a, file, err) < 0)
		return 1;
	report_text(f, &r);
	fclose(f);
	report_release(&r);
	int bad = 0, lineno = 0;
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		size_t n = next ? (size_t)(next - line) : strlen(line);
		next = next ? next + 1 : NULL;
		lineno++;
		if (n > TEXT_COLS) {
			print_error("%s: text line %d has %zu columns: %.*s\n", file, lineno, n,
				    (int)n, line);
			bad++;
		}
		/* "  #12 name ..." : a name must follow the row number */
		if (n > 6 && !strncmp(line, "  #", 3) && line[3] >= '1' && line[3] <= '9') {
			const char *q = line + 3;
			while (*q >= '0' && *q <= '9')
				q++;
			const char *name = q;
			while (*name == ' ' && name < line + n)
				name++;
			/* the name column starts at most two spaces after "#N" */
			if (name >= line + n || name - q > 2) {
				print_error("%s: text line %d has no kernel name: %.*s\n", file,
					    lineno, (int)n, line);
				bad++;
			}
		}
	}
	free(buf);
	return bad;
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
		struct analysis_result res;
		struct analysis_opts ao = {.device = -1};
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
		if (analysis_result_run(&res, &t, &ao, err) < 0) { /* as report does */
			print_error("%s: analysis: %s\n", path, err);
			trace_release(&t);
			bad++;
			continue;
		}
		ran++;
		const char *p = res.all.primary ? res.all.primary->id : "(none)";
		if (r->primary && !in_list(r->primary, p, '|')) {
			print_error("%s: primary %s, expected %s\n", r->file, p, r->primary);
			finding_list_text(stderr, &res.all.findings);
			bad++;
		}
		for (size_t k = 0; k < res.all.findings.n; k++) {
			const struct finding *f = &res.all.findings.v[k];
			if (f->severity == SEV_CRITICAL && in_list(r->no_crit, f->id, ',')) {
				print_error("%s: %s must not be critical\n", r->file, f->id);
				bad++;
			}
			if (f->severity != SEV_INFO && in_list(r->no_warn, f->id, ',')) {
				print_error("%s: %s must stay info (healthy), is %s\n", r->file,
					    f->id,
					    f->severity == SEV_CRITICAL ? "critical" : "warning");
				bad++;
			}
		}
		bad += check_text(r->file, &res);
		print_message("%-32s primary %-16s (%.1f%%)\n", r->file, p,
			      res.all.primary ? res.all.primary->impact_pct : 0.0);
		analysis_result_release(&res);
		trace_release(&t);
	}
	print_message("%d fixture(s) checked\n", ran);
	assert_int_equal(bad, 0);
	assert_true(ran >= MIN_FIXTURES);
}

/* A real recording made with CUPTI's synchronization records off (record's
 * default since the fourth session): its 4000 cudaDeviceSynchronize calls
 * are its 4000 sync rows, of kind context, stream unknown. */
static void test_api_syncs_fixture(void **state)
{
	char path[1024], err[512] = "";
	if (find_file("zoo/sync_every_step.apisync.db", path, sizeof(path)) < 0)
		fail_msg("zoo/sync_every_step.apisync.db missing");
	struct trace t;
	assert_int_equal(analysis_load(&t, path, err), 0);
	size_t derived = 0;
	for (size_t i = 0; i < t.n_syncs; i++)
		derived += t.syncs[i].stream == UINT32_MAX && t.syncs[i].kind == SYNC_CONTEXT;
	assert_int_equal(t.n_syncs, 4000);
	assert_int_equal(derived, 4000);
	struct analysis a;
	assert_int_equal(analysis_run_range(&a, &t, NULL, err), 0);
	assert_int_equal(a.sync.count, 4000);
	assert_int_equal(a.sync.by_kind[SYNC_CONTEXT], 4000);
	analysis_release(&a);
	trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixtures),
	    cmocka_unit_test(test_api_syncs_fixture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
