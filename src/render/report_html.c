/*
 * report_html.c - `gpuscope report --format html`: the report model as one
 * self-contained page (html.h). Its order is the text report's: the run,
 * warnings, the verdict, the summary, every finding; then the pictures
 * that prove them (the timeline, where the idle time lies) and the
 * evidence sections, each with its chart: top kernels, launches, the idle
 * breakdown with the gap histogram, copies and device memory, syncs, the
 * PyTorch ops and other ranges, the sampled metrics over time, the kernel
 * counters with their roofline, the processes.
 */
#include <string.h>

#include "render/html.h"
#include "render/report_render.h"

/* The sections the table of contents links to, when they are shown. */
static const struct {
	const char *id, *label;
} toc[] = {
    {"summary", "summary"},	     {"findings", "findings"},	 {"timeline", "timeline"},
    {"top_kernels", "kernels"},	     {"idle", "idle time"},	 {"copies", "copies"},
    {"device-memory", "memory"},     {"nvtx", "ops and ranges"}, {"samples", "metrics"},
    {"kernel_counters", "counters"}, {"processes", "processes"},
};

/* Memory over time is known: cudaMalloc'd bytes or NVML's used memory. */
static int has_memory(const struct report *r)
{
	for (size_t i = 0; i < r->n_secs; i++) {
		const struct rm_section *s = &r->secs[i];
		const struct rm_field *m = rm_section_field(s, "metric");
		if (!strcmp(s->id, "memory_live") || (!strcmp(s->id, "series") && m && m->c.v.s &&
						      !strcmp(m->c.v.s, "mem_used_bytes")))
			return 1;
	}
	return 0;
}

static int shown(const struct report *r, const char *id)
{
	const struct rm_section *s = report_section(r, id);
	if (!strcmp(id, "timeline"))
		return 1;
	if (!strcmp(id, "device-memory"))
		return has_memory(r);
	if (s && s->kind == RM_SEC_FINDINGS)
		return s->findings && s->findings->n > 0;
	return s && s->text;
}

static void header(FILE *f, const struct report *r)
{
	const struct rm_section *run = report_section(r, "run");
	fputs("<header><h1>gpuscope report</h1>", f);
	if (run) {
		/* the run's line, as the text report's first line */
		fputs("<div class=\"meta\">", f);
		html_lines(f, run);
		fputs("</div>", f);
	}
	fputs("<nav aria-label=\"sections\">", f);
	for (size_t i = 0; i < sizeof(toc) / sizeof(toc[0]); i++)
		if (shown(r, toc[i].id))
			fprintf(f, "<a href=\"#%s\">%s</a>", toc[i].id, toc[i].label);
	fputs("</nav></header>\n", f);
}

/* The PyTorch operators (cpu_op rows of the ranges table) apart from the
 * other ranges (NVTX, annotations, Python functions). */
static void ranges(FILE *f, const struct rm_section *s)
{
	const struct rm_table *t = rm_section_table(s);
	char head[512];
	size_t ops = 0;
	int kind = -1;
	for (size_t c = 0; t && c < t->n_cols; c++)
		if (t->cols[c].key && !strcmp(t->cols[c].key, "kind"))
			kind = (int)c;
	for (size_t i = 0; t && kind >= 0 && i < t->n_rows; i++) {
		const struct rm_cell *c = rm_table_cell(t, i, (size_t)kind);
		ops += c->valid && c->v.s && !strcmp(c->v.s, "cpu_op");
	}
	fputs("<section id=\"nvtx\"><h2>", f);
	html_esc(f, report_expand(head, sizeof(head), report_tr(s->heading), NULL, s));
	fputs("</h2>\n", f);
	if (!t || !ops || kind < 0) {
		if (t)
			html_table(f, t, t->text_rows);
		fputs("</section>\n", f);
		return;
	}
	fputs("<h3>PyTorch operators (by GPU time)</h3>\n", f);
	html_table_where(f, t, 15, "kind", "cpu_op");
	static const char *const other[] = {"nvtx", "annotation", "python_function"};
	static const char *const label[] = {"NVTX ranges", "annotations (record_function)",
					    "Python functions"};
	for (size_t k = 0; k < 3; k++) {
		size_t n = 0;
		for (size_t i = 0; i < t->n_rows; i++) {
			const struct rm_cell *c = rm_table_cell(t, i, (size_t)kind);
			n += c->valid && c->v.s && !strcmp(c->v.s, other[k]);
		}
		if (!n)
			continue;
		fprintf(f, "<h3>%s</h3>\n", label[k]);
		html_table_where(f, t, 10, "kind", other[k]);
	}
	fputs("</section>\n", f);
}

/* One evidence section with the chart that belongs to it. */
static void evidence(FILE *f, const struct report *r, const struct rm_section *s)
{
	if (!strcmp(s->id, "nvtx")) {
		ranges(f, s);
		return;
	}
	if (!strcmp(s->id, "idle")) {
		html_section_head(f, s);
		html_idle_hist(f, r, 0);
		html_section_items(f, s);
		fputs("</section>\n", f);
		return;
	}
	html_section_head(f, s);
	html_section_items(f, s);
	if (!strcmp(s->id, "samples"))
		html_series(f, r, "t");
	if (!strcmp(s->id, "kernel_counters"))
		html_roofline(f, r);
	fputs("</section>\n", f);
}

void report_html(FILE *f, const struct report *r)
{
	const struct rm_section *run = report_section(r, "run");
	const struct rm_field *file = run ? rm_section_field(run, "file") : NULL;
	char title[600];
	snprintf(title, sizeof(title), "gpuscope report: %s",
		 file && file->c.v.s && *file->c.v.s ? file->c.v.s : "-");
	html_page_begin(f, title);
	header(f, r);
	for (size_t i = 0; i < r->n_secs; i++) {
		const struct rm_section *s = &r->secs[i];
		if (!strcmp(s->id, "run"))
			continue;
		if (!strcmp(s->id, "warnings")) {
			html_warnings(f, s);
		} else if (s->kind == RM_SEC_VERDICT) {
			html_verdict(f, s);
		} else if (s->kind == RM_SEC_FINDINGS) {
			if (s->findings->n)
				html_findings(f, s);
			/* the pictures that prove them come next */
			fputs("<section id=\"timeline\"><h2>TIMELINE</h2>\n", f);
			html_timeline(f, r, "t", 0);
			fputs("</section>\n", f);
		} else if (!strcmp(s->id, "summary")) {
			html_section(f, s);
			html_span_bar(f, r, 0);
		} else if (s->text) {
			evidence(f, r, s);
		}
		if (!strcmp(s->id, "copies") && has_memory(r)) {
			fputs("<section id=\"device-memory\"><h2>DEVICE MEMORY</h2>\n", f);
			html_memory(f, r, "t");
			fputs("</section>\n", f);
		}
	}
	html_page_end(f);
}
