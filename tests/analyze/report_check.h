/*
 * report_check.h - what the analysis tests share to look at their results:
 * a finding's words (title and actions), and a whole report as one string
 * (text and JSON, and the HTML page with the charts' series on request),
 * for the tests that compare reports made two ways (test_threads,
 * test_pass_order).
 */
#ifndef GPUSCOPE_TEST_REPORT_CHECK_H
#define GPUSCOPE_TEST_REPORT_CHECK_H

#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "diagnose/diagnose.h"
#include "render/report_render.h"
#include "report/finding.h"
#include "report/report.h"

/* 1 when word is in f's title or one of its actions */
static inline int any_text(const struct finding *f, const char *word)
{
	if (strstr(f->title, word))
		return 1;
	for (int i = 0; i < f->n_actions; i++)
		if (strstr(f->actions[i], word))
			return 1;
	return 0;
}

/* Moves this thread onto the first CPU of its affinity (the threads it
 * makes then see one CPU: util/cpus.h), *all set to the affinity to
 * restore; 0, or -1 when the affinity cannot be read or set. */
static inline int to_one_cpu(cpu_set_t *all)
{
	cpu_set_t one;
	if (sched_getaffinity(0, sizeof(*all), all) < 0)
		return -1;
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, all)) {
			CPU_SET(c, &one);
			break;
		}
	return sched_setaffinity(0, sizeof(one), &one);
}

/* r's report as text, JSON and (html) the HTML page in one string to
 * free; NULL on failure, said on stderr. r is left to the caller. */
static inline char *result_report(const struct analysis_result *r, int html)
{
	char err[512] = "", *buf = NULL;
	size_t len = 0;
	struct report rep;
	if (report_build(&rep, r, "trace", err) < 0) {
		fprintf(stderr, "report_build: %s\n", err);
		return NULL;
	}
	FILE *f = open_memstream(&buf, &len);
	if (f) {
		report_text(f, &rep);
		report_json(f, &rep);
		if (html)
			report_html(f, &rep);
		fclose(f);
	}
	report_release(&rep);
	return buf;
}

/* The runner's report of t (analysis_result_run, every device), as
 * result_report makes it; NULL on failure. */
static inline char *report_of(const struct trace *t, int html)
{
	char err[512] = "";
	struct analysis_result res;
	struct analysis_opts o = {.device = -1};
	if (analysis_result_run(&res, t, &o, err) < 0) {
		fprintf(stderr, "analysis_result_run: %s\n", err);
		return NULL;
	}
	char *s = result_report(&res, html);
	analysis_result_release(&res);
	return s;
}

#endif
