/*
 * report_html.c - `gpuscope report --format html`: one self-contained page
 * (no scripts, no external resources) carrying the text report, escaped,
 * with the verdict highlighted. (#20 renders the model as a page of its
 * own: sections, tables and the series in them.)
 */
#include <stdlib.h>
#include <string.h>

#include "render/report_render.h"

static void esc(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(s[i], f);
		}
	}
}

void report_html(FILE *f, const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return;
	report_text(m, r);
	fclose(m);
	const struct rm_section *run = report_section(r, "run");
	const struct rm_field *file = run ? rm_section_field(run, "file") : NULL;
	const char *path = file && file->c.v.s && *file->c.v.s ? file->c.v.s : "-";
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpuscope report</title>"
	      "<style>body{font-family:sans-serif;margin:2em}pre{font-size:13px;background:#f6f6f6;"
	      "padding:1em}h1{font-size:20px}.v{background:#fff3cd;padding:.6em;font-size:16px}"
	      "</style></head><body>\n<h1>gpuscope report: ",
	      f);
	esc(f, path, strlen(path));
	fputs("</h1>\n", f);
	const struct rm_section *v = report_section(r, "verdict");
	const struct finding *p = v ? v->primary : NULL;
	if (p) {
		fputs("<p class=\"v\"><b>", f);
		esc(f, p->id, strlen(p->id));
		fputs("</b>: ", f);
		esc(f, p->title, strlen(p->title));
		fprintf(f, " (explains %.1f%% of the run)</p>\n", p->impact_pct);
	}
	fputs("<pre>", f);
	esc(f, buf, len);
	fputs("</pre>\n</body></html>\n", f);
	free(buf);
}
