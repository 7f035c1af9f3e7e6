/*
 * report_render.h - the report's text, JSON and HTML forms, all rendered
 * from one report model (analyze/report.h, built by report_build): the
 * renderers choose how things look, never what is said. The JSON is the
 * contract in docs/report-json.md (schema gpuscope.report.v1); the text is
 * for a 100-column terminal, verdict first. Rendering cannot fail except on
 * write errors, which the caller sees with ferror().
 */
#ifndef GPUSCOPE_REPORT_RENDER_H
#define GPUSCOPE_REPORT_RENDER_H

#include <stdio.h>

#include "report/report.h"

void report_text(FILE *f, const struct report *r);
void report_json(FILE *f, const struct report *r);
void report_html(FILE *f, const struct report *r);

/* `report --list-rules`: the rule table and the thresholds (the model of
 * report_build_rules), as text or as JSON (schema gpuscope.rules.v1: rules
 * with scope, side, status, doc anchor, charges, evidence keys with units;
 * thresholds with values). */
void report_rules_text(FILE *f, const struct report *r);
void report_rules_json(FILE *f, const struct report *r);

/* "12.3 ms", "4.56 s", "870 us", "35 ns" into buf (returns buf). */
const char *report_fmt_ns(char *buf, size_t n, double ns);

/* The text of one cell into buf (returns buf): "?" when unknown; prec >= 0
 * and sign override the cell's decimals and add a sign. */
const char *report_cell_text(char *buf, size_t n, const struct rm_cell *c, int prec, int sign);

/* Expands template tmpl (report.h: {key}, {key:SPEC}, {th.NAME}) into buf
 * with the values of line l (may be NULL), then of section s (may be NULL);
 * an unknown key is written as it stands. Returns buf. */
const char *report_expand(char *buf, size_t n, const char *tmpl, const struct rm_line *l,
			  const struct rm_section *s);

/* Prints first, then text wrapped at 98 columns (a word longer than a line
 * is cut in the middle); continuation lines start with indent. */
void report_wrap(FILE *f, const char *first, const char *indent, const char *text);
/* The text form's width in columns (60..400; 100 unless set): the command
 * line passes the terminal's (COLUMNS, the tty) when stdout is one. */
void report_text_set_cols(int cols);

/* A template's text in the reader's language (English today: the hook for
 * gettext, #22). */
const char *report_tr(const char *msgid);

#endif
