/*
 * html_model.c - the report model's sections as HTML (html.h): headings,
 * sentences (the model's templates, expanded and translated as the text
 * report's are), tables with their text columns, the verdict and the
 * findings. Names are shown whole: the short form first, the demangled
 * name under it (the text report cuts them to fit a terminal).
 */
#include <math.h>
#include <string.h>

#include "render/html.h"
#include "render/report_render.h"
#include "util/demangle.h"

/* Sentence items[*i] with the lines joined to it, into buf; advances *i. */
static const char *line_text(char *buf, size_t n, const struct rm_section *s, size_t *i)
{
	char part[1024];
	const struct rm_line *l = &s->items[*i].u.l;
	report_expand(buf, n, report_tr(l->tmpl), l, s);
	while (*i + 1 < s->n_items && s->items[*i + 1].kind == RM_ITEM_LINE &&
	       s->items[*i + 1].u.l.join) {
		const struct rm_line *j = &s->items[++*i].u.l;
		size_t at = strlen(buf);
		report_expand(part, sizeof(part), report_tr(j->tmpl), j, s);
		snprintf(buf + at, n - at, "%s", part);
	}
	return buf;
}

void html_lines(FILE *f, const struct rm_section *s)
{
	char text[2048];
	for (size_t i = 0; i < s->n_items; i++) {
		if (s->items[i].kind != RM_ITEM_LINE)
			continue;
		fputs("<p>", f);
		html_esc(f, line_text(text, sizeof(text), s, &i));
		fputs("</p>\n", f);
	}
}

/* A name cell: the short name, then the demangled one on a line (the
 * whole of it one click away). */
static void name_cell(FILE *f, const struct rm_cell *c)
{
	char dm[4096], bn[512], one[512];
	const char *full = gs_demangle(c->v.s ? c->v.s : "", dm, sizeof(dm));
	const char *shown =
	    c->style == RM_STYLE_BASE_NAME ? gs_base_name(full, bn, sizeof(bn)) : full;
	const char *line = gs_one_line_name(full, one, sizeof(one), 100);
	fputs("<td class=\"l name\">", f);
	html_esc(f, shown);
	if (strcmp(full, shown) != 0) {
		int whole = strcmp(line, full) == 0, same = strcmp(line, shown) == 0;
		fputs(whole ? "<div class=\"full\">" : "<details class=\"full\"><summary>", f);
		html_esc(f, whole ? full : same ? "signature" : line);
		if (!whole) {
			fputs("</summary>", f);
			html_esc(f, full);
		}
		fputs(whole ? "</div>" : "</details>", f);
	}
	fputs("</td>", f);
}

static void cell(FILE *f, const struct rm_column *col, const struct rm_cell *c)
{
	char v[640];
	if (c->valid && c->kind == RM_NAME) {
		name_cell(f, c);
		return;
	}
	fprintf(f, "<td%s>", col->left ? " class=\"l\"" : "");
	if (!c->valid) {
		fputs("<span title=\"unknown: not measured\">?</span></td>", f);
		return;
	}
	html_esc(f, report_cell_text(v, sizeof(v), c, -1, 0));
	/* a share as a bar too: 100% is 60 px */
	if (c->kind == RM_PERCENT && c->v.d > 0 && isfinite(c->v.d))
		fprintf(f, "<span class=\"bar\" data-mark=\"bar\" style=\"width:%.1fpx\"></span>",
			(c->v.d > 100 ? 100 : c->v.d) * 0.6);
	fputs("</td>", f);
}

static int col_of(const struct rm_table *t, const char *key)
{
	for (size_t c = 0; key && c < t->n_cols; c++)
		if (t->cols[c].key && strcmp(t->cols[c].key, key) == 0)
			return (int)c;
	return -1;
}

static void row(FILE *f, const struct rm_table *t, size_t r)
{
	fputs("<tr>", f);
	for (size_t c = 0; c < t->n_cols; c++)
		if (t->cols[c].header)
			cell(f, &t->cols[c], rm_table_cell(t, r, c));
	fputs("</tr>\n", f);
}

/* 1 when row r has a cell in some shown column: a table's rows kept for
 * JSON only (PROGRAM's, MEMORY's) have none, and "N more rows" must not
 * open onto empty rows (issue #36 item 7) */
static int row_has_cells(const struct rm_table *t, size_t r)
{
	for (size_t c = 0; c < t->n_cols; c++)
		if (t->cols[c].header && rm_table_cell(t, r, c)->valid)
			return 1;
	return 0;
}

static int row_matches(const struct rm_table *t, size_t r, int col, const char *value)
{
	if (!row_has_cells(t, r))
		return 0;
	if (col < 0)
		return 1;
	const struct rm_cell *c = rm_table_cell(t, r, (size_t)col);
	return c->valid && c->v.s && strcmp(c->v.s, value) == 0;
}

void html_table_where(FILE *f, const struct rm_table *t, size_t shown, const char *key,
		      const char *value)
{
	int kc = key ? col_of(t, key) : -1;
	if (key && kc < 0)
		return;
	fputs("<div class=\"tw\"><table><thead><tr>", f);
	for (size_t c = 0; c < t->n_cols; c++) {
		if (!t->cols[c].header)
			continue;
		fprintf(f, "<th%s>", t->cols[c].left ? " class=\"l\"" : "");
		html_esc(f, report_tr(t->cols[c].header));
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	size_t n = 0, more = 0;
	for (size_t r = 0; r < t->n_rows; r++) {
		if (!row_matches(t, r, kc, value))
			continue;
		if (n++ < shown)
			row(f, t, r);
		else
			more++;
	}
	fputs("</tbody></table></div>\n", f);
	if (!more)
		return;
	fprintf(f, "<details><summary>%zu more rows</summary><div class=\"tw\"><table><tbody>\n",
		more);
	for (size_t r = 0, k = 0; r < t->n_rows; r++)
		if (row_matches(t, r, kc, value) && k++ >= shown)
			row(f, t, r);
	fputs("</tbody></table></div></details>\n", f);
}

void html_table(FILE *f, const struct rm_table *t, size_t shown)
{
	html_table_where(f, t, shown, NULL, NULL);
}

void html_section_head(FILE *f, const struct rm_section *s)
{
	char head[512];
	fprintf(f, "<section id=\"%s\">", s->id);
	if (s->heading) {
		fputs("<h2>", f);
		html_esc(f, report_expand(head, sizeof(head), report_tr(s->heading), NULL, s));
		fputs("</h2>\n", f);
	}
}

void html_section_items(FILE *f, const struct rm_section *s)
{
	char text[2048];
	for (size_t i = 0; i < s->n_items; i++) {
		if (s->items[i].kind == RM_ITEM_LINE) {
			fputs("<p>", f);
			html_esc(f, line_text(text, sizeof(text), s, &i));
			fputs("</p>\n", f);
		} else if (s->items[i].kind == RM_ITEM_TABLE) {
			const struct rm_table *t = &s->items[i].u.t;
			html_table(f, t, t->text_rows);
		}
	}
}

void html_section(FILE *f, const struct rm_section *s)
{
	html_section_head(f, s);
	html_section_items(f, s);
	fputs("</section>\n", f);
}

/* An evidence number as the text report writes it: counts whole, other
 * values to 4 significant digits, ? when unknown. */
static const char *ev_value(char *b, size_t n, const struct evidence *e)
{
	double v = e->num;
	if (!e->is_num)
		snprintf(b, n, "%s", e->str);
	else if (e->unknown || !isfinite(v)) /* not measured (a NaN is no number to show) */
		snprintf(b, n, "?");
	else
		snprintf(b, n, v == (double)(long long)v && fabs(v) < 1e15 ? "%.0f" : "%.4g", v);
	return b;
}

static void sev_badge(FILE *f, enum severity sev)
{
	const char *name = severity_name(sev);
	fprintf(f, "<span class=\"sev sev-%s\">", name);
	for (const char *c = name; *c; c++)
		fputc(*c >= 'a' && *c <= 'z' ? *c - 32 : *c, f);
	fputs("</span>", f);
}

static void impact_bar(FILE *f, double pct)
{
	double w = pct < 0 ? 0 : pct > 100 ? 100 : pct;
	fprintf(f,
		"<span class=\"impact\" role=\"img\" aria-label=\"impact %.1f%% of the run\"><i "
		"style=\"width:%.1f%%\"></i></span>",
		pct, w);
}

/* A finding's severity, id and impact (as the verdict says it or as a
 * card's heading, closed with </p> or </h3>), then its title. */
static void finding_head(FILE *f, const struct finding *x, int verdict)
{
	sev_badge(f, x->severity);
	html_esc(f, x->id);
	if (verdict)
		fprintf(f, ": explains %.1f%% of the run", x->impact_pct);
	else
		fprintf(f, " <span class=\"note\">impact %.1f%%</span>", x->impact_pct);
	impact_bar(f, x->impact_pct);
	fputs(verdict ? "</p>\n<p>" : "</h3>\n<p>", f);
	char t[sizeof(x->title)];
	html_esc(f, finding_title(t, sizeof(t), x));
	fputs(verdict ? ".</p>\n" : "</p>\n", f);
}

void html_verdict(FILE *f, const struct rm_section *s)
{
	const struct finding *p = s->primary;
	char v[512];
	fprintf(f, "<section id=\"verdict\" class=\"verdict%s\"><h2>", p ? "" : " none");
	html_esc(f, report_tr(s->heading));
	fputs("</h2>\n", f);
	if (!p) {
		html_lines(f, s);
		fputs("</section>\n", f);
		return;
	}
	fputs("<p class=\"what\">", f);
	finding_head(f, p, 1);
	int shown = 0;
	for (int i = 0; i < p->n_ev && shown < 3; i++) {
		const struct evidence *e = &p->ev[i];
		if (!e->is_num || e->unknown || strstr(e->key, "impact"))
			continue;
		fputs(shown ? ", " : "<p class=\"note\">evidence: ", f);
		html_esc(f, e->key);
		fputc(' ', f);
		html_esc(f, ev_value(v, sizeof(v), e));
		shown++;
	}
	if (shown)
		fputs("</p>\n", f);
	if (p->n_actions) {
		fputs("<p><b>Fix first:</b> ", f);
		html_esc(f, finding_action_text(v, sizeof(v), p, 0));
		fputs("</p>\n", f);
	}
	fputs("</section>\n", f);
}

void html_findings(FILE *f, const struct rm_section *s)
{
	const struct finding_list *l = s->findings;
	char v[512];
	fputs("<section id=\"findings\"><h2>", f);
	html_esc(f, report_tr(s->heading));
	fputs("</h2>\n", f);
	for (size_t i = 0; i < l->n; i++) {
		const struct finding *x = &l->v[i];
		fprintf(f, "<article class=\"card\" id=\"finding-%s\"><h3>", x->id);
		finding_head(f, x, 0);
		if (x->n_ev) {
			fprintf(
			    f,
			    "<details%s><summary>evidence (%d)</summary><div class=\"tw\"><table "
			    "class=\"ev\"><tbody>",
			    x == s->primary ? " open" : "", x->n_ev);
			for (int e = 0; e < x->n_ev; e++) {
				fputs("<tr><td class=\"l\">", f);
				html_esc(f, x->ev[e].key);
				fputs("</td><td class=\"l\">", f);
				html_esc(f, ev_value(v, sizeof(v), &x->ev[e]));
				fputs("</td></tr>", f);
			}
			fputs("</tbody></table></div></details>\n", f);
		}
		if (x->n_actions) {
			fputs("<ol>", f);
			for (int a = 0; a < x->n_actions; a++) {
				fputs("<li>", f);
				html_esc(f, finding_action_text(v, sizeof(v), x, a));
				fputs("</li>", f);
			}
			fputs("</ol>\n", f);
		}
		fputs("</article>\n", f);
	}
	fputs("</section>\n", f);
}

void html_warnings(FILE *f, const struct rm_section *s)
{
	char text[2048];
	for (size_t i = 0; i < s->n_items; i++) {
		if (s->items[i].kind != RM_ITEM_LINE)
			continue;
		const struct rm_line *l = &s->items[i].u.l;
		fputs("<p class=\"warn\" role=\"alert\"><b>", f);
		html_esc(f, report_tr(l->prefix ? l->prefix : ""));
		fputs("</b>", f);
		html_esc(f, line_text(text, sizeof(text), s, &i));
		fputs("</p>\n", f);
	}
}
