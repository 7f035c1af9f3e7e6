/*
 * report_render.h - the report's text, JSON and HTML forms.
 *
 * All three render one `struct analysis` (analyze/analysis.h); the JSON is
 * the contract in docs/report-json.md (schema gpuscope.report.v1), the text
 * is for a 100-column terminal, verdict first. Rendering cannot fail except
 * on write errors, which the caller sees with ferror().
 */
#ifndef GPUSCOPE_REPORT_RENDER_H
#define GPUSCOPE_REPORT_RENDER_H

#include <stdio.h>

#include "analyze/analysis.h"

/* How many kernel groups the tables and JSON list (text: rows whose name
 * the table cut get it on one line under the table). */
#define REPORT_TOP_KERNELS 15
#define REPORT_JSON_TOP_KERNELS 50

void report_text(FILE *f, const struct analysis *a, const char *path);
void report_json(FILE *f, const struct analysis *a, const char *path);
void report_html(FILE *f, const struct analysis *a, const char *path);

/* "12.3 ms", "4.56 s", "870 us", "35 ns" into buf (returns buf). */
const char *report_fmt_ns(char *buf, size_t n, double ns);

/* Warnings a reader must not miss (dropped records, overhead, untraced
 * processes), one line each into f with prefix; returns how many. */
int report_warnings(FILE *f, const struct analysis *a, const char *prefix);

#endif
