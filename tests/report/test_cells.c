/*
 * test_cells.c - report.h's invariant 3 on real reports: every cell of every
 * table (nested tables too) has its column's kind, and a valid cell of a
 * text kind has a string. The report of each fixture is built and walked;
 * report.c asserts the same in Debug builds (the ASan build) as the cells
 * are set. And rm_table_fill's contract: a column is its entry, filled
 * from each row, wherever the entry stands; a fill out of memory fails
 * the table.
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
#include "report/report_int.h"

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

struct row {
	uint64_t n;
	const char *s;
};
RM_FILL(f_n, struct row, rm_count(x->n))
RM_FILL(f_s, struct row, rm_made(w, rm_text(rm_strdup(w->r, x->s))))
RM_FILL(f_i, struct row, rm_count(w->i + *(const uint64_t *)w->ctx))
/* out of memory on the second row */
RM_FILL(f_oom, struct row, rm_made(w, rm_text(w->i == 1 ? NULL : x->s)))
/* size 0: the row is the struct of parallel arrays, the index its element */
struct cols {
	uint64_t v[3];
};
RM_FILL(f_col, struct cols, rm_count(x->v[w->i]))

static void columns_carry_their_values(void **state)
{
	(void)state;
	static const struct rm_entry e[] = {
	    {{.key = "n", .kind = RM_COUNT, .json = 1}, f_n},
	    {{.key = "s", .kind = RM_TEXT, .json = 1}, f_s},
	    {{.key = "i", .kind = RM_COUNT, .json = 1}, f_i},
	};
	/* the same columns in another order */
	static const struct rm_entry swapped[] = {e[2], e[0], e[1]};
	static const struct rm_entry oom[] = {e[0], {{.key = "s", .kind = RM_TEXT}, f_oom}};
	static const struct rm_entry par[] = {{{.key = "v", .kind = RM_COUNT}, f_col}};
	const struct row rows[] = {{7, "seven"}, {9, "nine"}, {11, "eleven"}};
	const struct cols pc = {{3, 5, 8}};
	const uint64_t base = 100;
	struct report r = {0};
	struct rm_section *s = rm_section_add(&r, "t", NULL, RM_SJ_NONE, NULL, 0);
	assert_non_null(s);
	const struct rm_table *t =
	    rm_table_fill(&r, s, "t", RM_TJ_ARRAY, e, NCOLS(e), rows, sizeof(*rows), 3, &base);
	assert_non_null(t);
	assert_int_equal(t->n_rows, 3);
	assert_int_equal(t->n_cols, 3);
	assert_string_equal(t->cols[1].key, "s");
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(rm_table_cell(t, i, 0)->v.i, rows[i].n);
		assert_string_equal(rm_table_cell(t, i, 1)->v.s, rows[i].s);
		assert_ptr_not_equal(rm_table_cell(t, i, 1)->v.s, rows[i].s); /* the report's */
		assert_int_equal(rm_table_cell(t, i, 2)->v.i, 100 + i);
	}
	t = rm_table_fill_detached(&r, RM_TJ_ARRAY, swapped, NCOLS(swapped), rows, sizeof(*rows), 3,
				   &base);
	assert_non_null(t);
	assert_string_equal(t->cols[0].key, "i");
	assert_int_equal(rm_table_cell(t, 2, 0)->v.i, 102);
	assert_int_equal(rm_table_cell(t, 2, 1)->v.i, 11);
	assert_string_equal(rm_table_cell(t, 2, 2)->v.s, "eleven");
	t = rm_table_fill_detached(&r, RM_TJ_ARRAY, par, NCOLS(par), &pc, 0, 3, NULL);
	assert_non_null(t);
	assert_int_equal(rm_table_cell(t, 0, 0)->v.i, 3);
	assert_int_equal(rm_table_cell(t, 2, 0)->v.i, 8);
	assert_null(
	    rm_table_fill_detached(&r, RM_TJ_ARRAY, oom, NCOLS(oom), rows, sizeof(*rows), 3, NULL));
	report_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_cell_has_its_columns_kind),
	    cmocka_unit_test(columns_carry_their_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
