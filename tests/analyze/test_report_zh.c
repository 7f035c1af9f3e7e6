/*
 * test_report_zh.c - `gpuscope report` in Chinese (#22): every committed trace
 * fixture is analysed and rendered (text, JSON, HTML) with --lang zh; no
 * message may be looked up untranslated (finding titles, actions, evidence
 * labels, section lines), every text line fits in 100 display columns, and
 * the English rendering looks nothing up at all. And an analysis does not
 * depend on the language: its findings are the same made under zh as under
 * en (English, with message ids), and are Chinese only when shown.
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
#include "report/finding.h"
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

/* The findings' titles and actions, as made (English) and as shown now. */
static void texts(const struct analysis *a, char *made, char *shown, size_t cap)
{
	size_t m = 0, s = 0;
	made[0] = shown[0] = 0;
	for (size_t i = 0; i < a->findings.n; i++) {
		const struct finding *f = &a->findings.v[i];
		char t[sizeof(f->title)];
		m += (size_t)snprintf(made + m, m < cap ? cap - m : 0, "%s\n", f->title);
		s += (size_t)snprintf(shown + s, s < cap ? cap - s : 0, "%s\n",
				      finding_title(t, sizeof(t), f));
		for (int k = 0; k < f->n_actions; k++) {
			m += (size_t)snprintf(made + m, m < cap ? cap - m : 0, "%s\n",
					      f->actions[k]);
			s += (size_t)snprintf(shown + s, s < cap ? cap - s : 0, "%s\n",
					      finding_action_text(t, sizeof(t), f, k));
		}
	}
	assert_true(m < cap && s < cap);
}

static void analysis_is_the_same_in_any_language(void **state)
{
	(void)state;
	static const char *const fixtures[] = {
	    "/zoo/tiny_kernel_storm.db", "/procs/multi_process.db",
	    "/pytorch/dataloader_starved.json.gz", "/zoo/bank_conflicts.db"};
	static char made[2][32768], shown[2][32768], later[32768], unused[32768];
	int differs = 0;
	for (size_t k = 0; k < sizeof(fixtures) / sizeof(fixtures[0]); k++) {
		char path[1024], err[512] = "";
		snprintf(path, sizeof(path), "%s%s", FIXTURES_DIR, fixtures[k]);
		struct analysis_result a[2];
		struct trace t;
		struct analysis_opts o = {.device = -1};
		assert_int_equal(analysis_load(&t, path, err), 0);
		for (int l = 0; l < 2; l++) {
			/* analysed under en, then under zh; each shown in its own */
			assert_int_equal(i18n_set_lang(l ? "zh" : "en"), 0);
			assert_int_equal(analysis_result_run(&a[l], &t, &o, err), 0);
			texts(&a[l].all, made[l], shown[l], sizeof(made[l]));
		}
		/* the same findings, in English, whatever the language */
		assert_string_equal(made[0], made[1]);
		assert_string_equal(shown[0], made[0]);
		/* shown in Chinese, and the same from the analysis made under en */
		texts(&a[0].all, unused, later, sizeof(later));
		assert_string_equal(later, shown[1]);
		differs += strcmp(shown[1], made[1]) != 0;
		for (int l = 0; l < 2; l++)
			analysis_result_release(&a[l]);
		trace_release(&t);
	}
	assert_int_equal(differs, 4); /* each one said in Chinese */
	assert_int_equal(i18n_set_lang("en"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_fixture_in_chinese),
	    cmocka_unit_test(analysis_is_the_same_in_any_language),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
