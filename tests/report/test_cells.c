/*
 * test_cells.c - report.h's invariant 3 on real reports: every cell of every
 * table (nested tables too) has its column's kind, and a valid cell of a
 * text kind has a string. The report of each fixture is built and walked;
 * rm_set asserts the same in Debug builds (the ASan build) as the cells
 * are set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "diagnose/diagnose.h"
#include "report/report.h"

static size_t cells;

static void check_table(const struct rm_table *t, const char *fixture, const char *sec)
{
	for (size_t r = 0; r < t->n_rows; r++)
		for (size_t c = 0; c < t->n_cols; c++) {
			const struct rm_cell *x = rm_table_cell(t, r, c);
			cells++;
			if (x->kind != t->cols[c].kind)
				fail_msg(
				    "%s: section %s, table %s, row %zu, column %s: kind %d, the "
				    "column's %d",
				    fixture, sec, t->key ? t->key : "-", r, t->cols[c].key, x->kind,
				    t->cols[c].kind);
			if (x->valid && (x->kind == RM_TEXT || x->kind == RM_NAME) && !x->v.s)
				fail_msg(
				    "%s: section %s, column %s: a valid text cell without text",
				    fixture, sec, t->cols[c].key);
			if (x->valid && x->kind == RM_TABLE)
				check_table(x->v.t, fixture, sec);
		}
}

static const char *const fixtures[] = {
    "zoo/healthy_pipeline.db",	     "zoo/tiny_kernel_storm.db", "zoo/pageable_copies.db",
    "counters/divergent_warps.db",   "pm/fma_bound.db",		 "pytorch/transformer_step.db",
    "pytorch/dataloader_starved.db", "procs/multi_process.db",	 "real/hf_bert_syncs.db",
    "real/cupy_small_ops.db",
};

static void every_cell_has_its_columns_kind(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(fixtures) / sizeof(fixtures[0]); k++) {
		char path[512], err[512] = "";
		snprintf(path, sizeof(path), "%s/%s", FIXTURES_DIR, fixtures[k]);
		struct trace t;
		if (analysis_load(&t, path, err) < 0)
			fail_msg("%s: %s", path, err);
		struct analysis_result res;
		struct analysis_opts o = {.device = -1};
		if (analysis_result_run(&res, &t, &o, err) < 0)
			fail_msg("%s: %s", path, err);
		struct report r;
		if (report_build(&r, &res, fixtures[k], err) < 0)
			fail_msg("%s: %s", path, err);
		for (size_t s = 0; s < r.n_secs; s++)
			for (size_t i = 0; i < r.secs[s].n_items; i++)
				if (r.secs[s].items[i].kind == RM_ITEM_TABLE)
					check_table(&r.secs[s].items[i].u.t, fixtures[k],
						    r.secs[s].id);
		report_release(&r);
		analysis_result_release(&res);
		trace_release(&t);
	}
	assert_true(cells > 1000); /* the walk saw the reports' tables */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_cell_has_its_columns_kind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
