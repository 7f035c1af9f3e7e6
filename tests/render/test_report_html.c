/*
 * test_report_html.c - the HTML page's invariants on traces the fixtures
 * do not cover (tests/render/html_browser.py renders the real ones in
 * Chromium): a kernel whose name is markup, no GPU work, more streams than
 * lanes, per-kernel counters (the roofline; no H200 counter recording is
 * committed yet, so this synthetic one is the roofline's only test), and a
 * diff page. Each page must be one self-contained document: balanced
 * elements, no reference outside itself, no NaN or infinity written as a
 * number, every chart with a drawn datum or a stated reason, the name
 * escaped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../analyze/build_trace.h"
#include "diagnose/diagnose.h"
#include "diagnose/diff.h"
#include "analyze/kcounters.h"
#include "render/diff_render.h"
#include "render/report_render.h"

#define HOSTILE "<script>alert(1)</script>&\"'"

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* word w with no letter on either side (nan, inf as numbers), NULL if none */
static const char *has_word(const char *s, const char *w)
{
	for (const char *p = s; (p = strstr(p, w)); p++) {
		int before = p > s && ((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z');
		char a = p[strlen(w)];
		int after = (a | 32) >= 'a' && (a | 32) <= 'z';
		if (!before && !after)
			return p;
	}
	return NULL;
}

/* occurrences of what inside the chart figure named chart */
static size_t count_in(const char *html, const char *chart, const char *what)
{
	char key[96];
	snprintf(key, sizeof(key), "data-chart=\"%s\"", chart);
	const char *p = strstr(html, key), *e = p ? strstr(p, "</figure>") : NULL;
	size_t n = 0;
	for (; p && (p = strstr(p, what)) && p < e; p += strlen(what))
		n++;
	return n;
}

static void check_page(const char *html)
{
	assert_true(strncmp(html, "<!DOCTYPE html>\n<html lang=\"en\">", 32) == 0);
	size_t n = strlen(html);
	assert_true(n > 20 && strcmp(html + n - 15, "</body></html>\n") == 0);
	static const char *const pairs[][2] = {
	    {"<svg", "</svg>"},		{"<figure", "</figure>"}, {"<section", "</section>"},
	    {"<details", "</details>"}, {"<table", "</table>"},	  {"<title>", "</title>"},
	    {"<script>", "</script>"}};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (count(html, pairs[i][0]) != count(html, pairs[i][1]))
			fail_msg("%s x%zu but %s x%zu", pairs[i][0], count(html, pairs[i][0]),
				 pairs[i][1], count(html, pairs[i][1]));
	assert_int_equal(count(html, "<script>"), 1);
	/* self-contained: the only URL is the SVG namespace the script names */
	assert_int_equal(count(html, "http"), count(html, "http://www.w3.org/2000/svg"));
	assert_null(strstr(html, " src="));
	assert_null(strstr(html, "<link"));
	static const char *const bad[] = {"nan", "inf", "NaN", "-nan"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *p = has_word(html, bad[i]);
		if (p)
			fail_msg("%s written as a number: ...%.80s[%s]%.60s", bad[i],
				 p > html + 80 ? p - 80 : html, bad[i], p + strlen(bad[i]));
	}
	/* every chart draws something or says why not */
	for (const char *p = html; (p = strstr(p, "<figure class=\"chart\"")); p++) {
		const char *e = strstr(p, "</figure>");
		assert_non_null(e);
		const char *mark = strstr(p, "data-mark=");
		const char *empty = strstr(p, "data-empty=");
		if (!((mark && mark < e) || (empty && empty < e)))
			fail_msg("a chart with no data: %.120s", p);
	}
	assert_non_null(strstr(html, "id=\"verdict\""));
}

/* A test's page; HTML_DUMP=DIR writes each into DIR to look at. */
static char *render(struct trace *t, int whole, const char *name)
{
	struct analysis_result a;
	struct analysis_opts o = {.whole = whole, .device = -1};
	struct report r;
	char err[256], *buf = NULL;
	size_t len = 0;
	trace_sort(t);
	assert_int_equal(analysis_result_run(&a, t, &o, err), 0);
	assert_int_equal(report_build(&r, &a, "trace.db", err), 0);
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_html(f, &r);
	assert_int_equal(fclose(f), 0);
	report_release(&r);
	analysis_result_release(&a);
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.html", getenv("HTML_DUMP") ? getenv("HTML_DUMP") : "",
		 name);
	FILE *dump = getenv("HTML_DUMP") ? fopen(path, "w") : NULL;
	if (dump) {
		fputs(buf, dump);
		fclose(dump);
	}
	return buf;
}

static void test_hostile_name(void **state)
{
	(void)state;
	struct trace t;
	bt_init(&t);
	for (int i = 0; i < 100; i++)
		bt_launched(&t, 20.0 * i + 5, 20.0 * i + 8, 7, (uint32_t)i + 1, HOSTILE, 64, 128,
			    20.0 * i, 20.0 * i + 4);
	char *html = render(&t, 1, "hostile");
	check_page(html);
	assert_null(strstr(html, "<script>alert"));
	assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;"));
	/* the pictures of a run with GPU work */
	assert_non_null(strstr(html, "data-chart=\"timeline\""));
	assert_non_null(strstr(html, "data-chart=\"idle_gaps\""));
	assert_non_null(strstr(html, "data-chart=\"span\""));
	free(html);
	trace_release(&t);
}

static void test_no_gpu_work(void **state)
{
	(void)state;
	struct trace t;
	bt_init(&t);
	bt_api(&t, 0, 10, API_OTHER, 1, "cudaMalloc");
	char *html = render(&t, 1, "no_gpu_work");
	check_page(html);
	assert_non_null(strstr(html, "nothing to diagnose: the trace holds no GPU work"));
	free(html);
	trace_release(&t);
}

/* 20 streams: 16 lanes drawn, the last the merged "other streams (5)". */
static void test_many_streams(void **state)
{
	(void)state;
	struct trace t;
	bt_init(&t);
	for (int i = 0; i < 400; i++)
		bt_launched(&t, 10.0 * i + 2, 10.0 * i + 6, (uint32_t)(i % 20), (uint32_t)i + 1,
			    "k", 64, 128, 10.0 * i, 10.0 * i + 1);
	char *html = render(&t, 1, "many_streams");
	check_page(html);
	assert_int_equal(count_in(html, "timeline", "data-mark=\"kernel\""), AN_SERIES_LANES);
	assert_non_null(strstr(html, "other streams (5)"));
	free(html);
	trace_release(&t);
}

static void counter(struct trace *t, uint32_t corr, int id, double v)
{
	bt_counter(t, corr, kc_metric_name(id), v);
}

/* Two profiled kernels under the device's roofs: one point each, the roofs
 * they share drawn once (synthetic: no H200 counter recording exists yet). */
static void test_roofline(void **state)
{
	(void)state;
	struct trace t;
	bt_init(&t);
	t.devices[0].mem_bandwidth_bps = 4800000000000ull;
	bt_launched(&t, 10, 110, 7, 1, "strided", 8192, 256, 0, 5);
	bt_launched(&t, 200, 300, 7, 2, "dense", 8192, 256, 150, 155);
	for (uint32_t c = 1; c <= 2; c++) {
		counter(&t, c, KM_DURATION, 100000);
		counter(&t, c, KM_SM_SOL, c == 1 ? 20 : 70);
		counter(&t, c, KM_MEM_SOL, c == 1 ? 90 : 30);
		counter(&t, c, KM_DRAM_PCT, c == 1 ? 88 : 20);
		counter(&t, c, KM_L2_PCT, 40);
		counter(&t, c, KM_L1_PCT, 30);
		counter(&t, c, KM_PIPE_FMA, c == 1 ? 5 : 65);
		counter(&t, c, KM_ACHIEVED_OCC, 60);
		counter(&t, c, KM_DRAM_READ, c == 1 ? 3e8 : 1e6);
		counter(&t, c, KM_DRAM_WRITE, 1e6);
		counter(&t, c, KM_FFMA, c == 1 ? 1e6 : 4e9);
		counter(&t, c, KM_SM_CLOCK, 1.98e9);
	}
	char *html = render(&t, 1, "roofline");
	check_page(html);
	size_t pts = count_in(html, "roofline", "data-mark=\"kernel\"");
	size_t roofs = count_in(html, "roofline", "data-mark=\"roof\"");
	assert_int_equal(pts, 2);
	assert_int_equal(roofs, 1);
	free(html);
	trace_release(&t);
}

static void test_diff_page(void **state)
{
	(void)state;
	struct trace t[2];
	struct analysis_result a[2];
	struct analysis_opts o = {.whole = 1, .device = -1};
	struct report r[2];
	char err[256], *buf = NULL;
	size_t len = 0;
	for (int s = 0; s < 2; s++) {
		bt_init(&t[s]);
		for (int i = 0; i < 200; i++)
			bt_launched(&t[s], (s ? 8.0 : 20.0) * i + 5, (s ? 8.0 : 20.0) * i + 8, 7,
				    (uint32_t)i + 1, s ? "k" : HOSTILE, 64, 128,
				    (s ? 8.0 : 20.0) * i, (s ? 8.0 : 20.0) * i + 4);
		trace_sort(&t[s]);
		assert_int_equal(analysis_result_run(&a[s], &t[s], &o, err), 0);
		assert_int_equal(report_build(&r[s], &a[s], s ? "new.db" : "base.db", err), 0);
	}
	struct diff d;
	assert_int_equal(diff_build(&d, &a[0].all, "base.db", &a[1].all, "new.db", -1, err), 0);
	FILE *f = open_memstream(&buf, &len);
	diff_html(f, &d, &r[0], &r[1]);
	assert_int_equal(fclose(f), 0);
	check_page(buf);
	assert_non_null(strstr(buf, "the new run is faster"));
	assert_int_equal(count(buf, "data-chart=\"timeline\""), 2);
	assert_null(strstr(buf, "<script>alert"));
	free(buf);
	diff_release(&d);
	for (int s = 0; s < 2; s++) {
		report_release(&r[s]);
		analysis_result_release(&a[s]);
		trace_release(&t[s]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hostile_name), cmocka_unit_test(test_no_gpu_work),
	    cmocka_unit_test(test_many_streams), cmocka_unit_test(test_roofline),
	    cmocka_unit_test(test_diff_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
