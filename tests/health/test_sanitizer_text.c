/*
 * test_sanitizer_text.c - pasted compute-sanitizer reports
 * (src/health/sanitizer_text.h): every real report of
 * tests/fixtures/sanitizer/reports.txt reads its first group's kind,
 * kernel, source line, count, where the address lies, how far and the
 * allocation's size; errors of one kernel and line group together;
 * explain says what the group means; junk reads as nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/explain.h"
#include "health/sanitizer_text.h"
#include "util/error.h"

#include "fixture_cases.h"

static void check(const struct fixture_case *k, void *ctx)
{
	static const char *const at[] = {"unknown", "after", "before",
					 "inside",  "oob",   "misaligned"};
	struct san_text t;
	(void)ctx;
	if (!san_text_parse(k->msg, k->len, &t))
		fail_msg("%s: not read", k->source);
	const struct san_group *g = &t.g[0];
	const char *where = case_need(k, "where");
	if (strcmp(g->kind, case_need(k, "kind")) || strcmp(g->func, case_need(k, "func")) ||
	    strcmp(*g->where ? g->where : "-", where) || g->count != atoi(case_need(k, "count")) ||
	    strcmp(at[g->at], case_need(k, "at")) ||
	    g->distance != atof(case_need(k, "distance")) ||
	    g->alloc != atof(case_need(k, "alloc")) || t.errors != atoi(case_need(k, "errors")))
		fail_msg("%s: read as '%s' in '%s' at '%s', %d, %s, %.0f, %.0f, %d errors",
			 k->source, g->kind, g->func, g->where, g->count, at[g->at], g->distance,
			 g->alloc, t.errors);
}

static void real_reports(void **state)
{
	(void)state;
	assert_true(each_fixture_case(FIXTURES_DIR "/sanitizer/reports.txt", check, NULL) >= 7);
}

static void explain_and_junk(void **state)
{
	(void)state;
	static const char q[] = "========= COMPUTE-SANITIZER\n"
				"========= Invalid __shared__ write of size 4 bytes\n"
				"=========     at tile(float *)+0x70 in k.cu:9\n"
				"=========     by thread (7,0,0) in block (1,0,0)\n"
				"=========     Address 0x1000 is out of bounds\n"
				"========= Invalid __shared__ write of size 4 bytes\n"
				"=========     at tile(float *)+0x70 in k.cu:9\n"
				"=========     by thread (8,0,0) in block (1,0,0)\n"
				"=========     Address 0x1004 is out of bounds\n"
				"========= ERROR SUMMARY: 64 errors\n";
	struct san_text t;
	assert_int_equal(san_text_parse(q, sizeof(q) - 1, &t), 1);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.g[0].count, 2);
	assert_int_equal(t.summary, 64);
	assert_string_equal(t.g[0].thread, "(7,0,0)");
	struct explain_result r;
	char err[GS_ERR_LEN], *buf = NULL;
	size_t len = 0;
	assert_int_equal(explain_match(q, strlen(q), &r, err), 0);
	FILE *f = open_memstream(&buf, &len);
	explain_print_text(f, &r, q);
	fclose(f);
	assert_non_null(
	    strstr(buf, "Invalid __shared__ write of 4 bytes in tile (k.cu:9): 2 errors"));
	assert_non_null(strstr(buf, "outside the shared array"));
	assert_non_null(strstr(buf, "64 errors in the ERROR SUMMARY, 2 of them"));
	free(buf);
	static const char *const junk[] = {"=========", "Invalid __global__", "ERROR SUMMARY: 3",
					   ""};
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		assert_int_equal(san_text_parse(junk[i], strlen(junk[i]), &t), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(real_reports),
	    cmocka_unit_test(explain_and_junk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
