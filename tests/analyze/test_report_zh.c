/*
 * test_report_zh.c - `gpuscope report` in Chinese (#22): every committed trace
 * fixture is analysed and rendered (text, JSON, HTML) with --lang zh; no
 * message may be looked up untranslated (finding titles, actions, evidence
 * labels, section lines), every text line fits in 100 display columns, and
 * the English rendering looks nothing up at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/diagnose.h"
#include "report/report.h"
#include "render/report_render.h"
#include "util/i18n.h"
#include "util/wrap.h"

static int render_one(const char *path, int *lines_over)
{
	struct trace t;
	struct analysis_result a;
	struct analysis_opts o = {.device = -1};
	struct report r;
	char err[512] = "", *buf = NULL;
	size_t len = 0;
	if (analysis_load(&t, path, err) < 0) {
		trace_release(&t);
		return 0;
	}
	if (analysis_result_run(&a, &t, &o, err) < 0) {
		trace_release(&t);
		return 0;
	}
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report_build(&r, &a, path, err), 0);
	report_text(f, &r);
	fflush(f);
	size_t text_len = len;
	report_json(f, &r);
	report_html(f, &r);
	fclose(f);
	for (char *line = buf, *next; line && line < buf + text_len && *line; line = next) {
		next = strchr(line, '\n');
		size_t n = next ? (size_t)(next - line) : strlen(line);
		next = next ? next + 1 : NULL;
		/* the title line holds the file's path as given: not ours to wrap */
		if (wrap_width(line, n) > 100 && strncmp(line, "gpuscope ", 9) != 0) {
			print_error("%s: %zu columns: %.*s\n", path, wrap_width(line, n), (int)n,
				    line);
			(*lines_over)++;
		}
	}
	free(buf);
	report_release(&r);
	analysis_result_release(&a);
	trace_release(&t);
	return 1;
}

static void every_fixture_in_chinese(void **state)
{
	static const char *const pats[] = {"/zoo/*.db", "/pytorch/*.db", "/pytorch/*.json.gz",
					   "/procs/*.db", "/../../examples/*.db"};
	int ran = 0, over = 0;
	for (int l = 0; l < 2; l++) {
		assert_int_equal(i18n_set_lang(l ? "zh" : "en"), 0);
		assert_int_equal(i18n_zh(), l);
		i18n_missing_reset();
		for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
			char pat[1024];
			glob_t g;
			snprintf(pat, sizeof(pat), "%s%s", FIXTURES_DIR, pats[p]);
			if (glob(pat, 0, NULL, &g) != 0)
				continue;
			for (size_t i = 0; i < g.gl_pathc; i++)
				ran += render_one(g.gl_pathv[i], &over);
			globfree(&g);
		}
		if (i18n_missing())
			fail_msg("%s: %ld message(s) untranslated, e.g. \"%s\"", l ? "zh" : "en",
				 i18n_missing(), i18n_last_missing());
	}
	i18n_set_lang("en");
	assert_true(ran >= 40); /* both languages over every fixture */
	assert_int_equal(over, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_fixture_in_chinese),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
