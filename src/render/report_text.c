/*
 * report_text.c - `gpuscope report --format text`: the report model as a
 * terminal report, section by section in the model's order (header and
 * warnings, the verdict, the summary, all findings, the evidence tables).
 * Fits a 100-column terminal, or the one report_text_set_cols names (issue
 * #36 item 7: the tty's width): sentences wrap 2 columns short of it, long
 * kernel names are cut in the middle so both ends stay readable (a table's
 * name column grows or shrinks with the width), and a table that had to
 * cut a name lists it whole under the table.
 */
#include <string.h>

#include "render/findings_render.h"
#include "render/report_render.h"
#include "util/i18n.h"
#include "util/wrap.h"
#include "util/demangle.h"

/* the text's width: 100 unless the command line set the terminal's; set
 * once before rendering (read-only while reports render on threads) */
static int text_cols = 100;
#define WRAP_COLS ((size_t)text_cols - 2)

void report_text_set_cols(int cols)
{
	text_cols = cols < 60 ? 60 : cols > 400 ? 400 : cols;
}

/* a column's width at this text width: a name column takes the difference
 * from 100 (at least 8 columns) */
static struct rm_column at_width(const struct rm_column *c)
{
	struct rm_column w = *c;
	if (c->kind == RM_NAME && c->width > 0) {
		int x = c->width + text_cols - 100;
		w.width = x < 8 ? 8 : x;
	}
	return w;
}

/* Fits s into w columns, eliding the middle. */
static const char *fit(char *buf, size_t n, const char *s, size_t w)
{
	size_t len = strlen(s);
	if (w >= n)
		w = n - 1;
	if (len <= w) {
		snprintf(buf, n, "%s", s);
		return buf;
	}
	size_t head = (w - 3) * 2 / 3, tail = w - 3 - head;
	snprintf(buf, n, "%.*s...%s", (int)head, s, s + len - tail);
	return buf;
}

/* An evidence number for reading: counts as counts (20000, not 2e+04),
 * other values to 4 significant digits (89.5, 0.0627). */
static const char *ev_num(char *b, size_t n, const struct evidence *e)
{
	double v = e->num;
	int whole = v == (double)(long long)v && v > -1e15 && v < 1e15;
	if (e->unknown)
		snprintf(b, n, "?");
	else
		snprintf(b, n, whole ? "%.0f" : "%.4g", v);
	return b;
}

void report_wrap(FILE *f, const char *first, const char *indent, const char *text)
{
	/* translated (non-ASCII) text: wrap by display columns, breaking between CJK */
	for (const char *q = text; *q; q++)
		if ((unsigned char)*q >= 0x80) {
			char lead[128]; /* this wrap puts a space before every word */
			snprintf(lead, sizeof(lead), "%s ", first);
			wrap_print(f, lead, indent, text, WRAP_COLS);
			return;
		}
	size_t col = strlen(first), ind = strlen(indent);
	fputs(first, f);
	for (const char *p = text; *p;) {
		const char *e = strchr(p, ' ');
		size_t w = e ? (size_t)(e - p) : strlen(p), shown = w;
		size_t room = WRAP_COLS - ind - 1;
		if (shown > room) /* a word longer than a line (a C++ name): cut its middle */
			shown = room;
		if (col > ind && col + 1 + shown > WRAP_COLS) {
			fprintf(f, "\n%s", indent);
			col = ind;
		} else {
			fputc(' ', f);
			col++;
		}
		if (shown < w) {
			size_t head = (shown - 3) * 2 / 3, tail = shown - 3 - head;
			fprintf(f, "%.*s...%.*s", (int)head, p, (int)tail, p + w - tail);
		} else {
			fwrite(p, 1, w, f);
		}
		col += shown;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

static void upper(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%s", s);
	for (char *c = dst; *c; c++)
		*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
}

/* "CRITICAL" in the chosen language (English: severity_name upper-cased). */
static const char *severity_label(enum severity s)
{
	return s == SEV_CRITICAL ? _("CRITICAL") : s == SEV_WARNING ? _("WARNING") : _("INFO");
}

static void verdict(FILE *f, const struct rm_section *s)
{
	const struct finding *p = s->primary;
	if (!p)
		return;
	/* severity_name's words are msgids too (explain's severity labels) */
	if (p->device >= 0) /* a run of several devices */
		fprintf(f, _("  %s on device %d (%s, explains %.1f%% of its span)\n"), p->id,
			p->device, _(severity_name(p->severity)), p->impact_pct);
	else
		fprintf(f, _("  %s (%s, explains %.1f%% of the run)\n"), p->id,
			_(severity_name(p->severity)), p->impact_pct);
	char line[400], t[sizeof(p->title)];
	snprintf(line, sizeof(line), _("%s."), finding_title(t, sizeof(t), p));
	report_wrap(f, " ", "  ", line);
	int shown = 0;
	size_t at = (size_t)snprintf(line, sizeof(line), "%s", report_tr(RM_T("evidence")));
	for (int i = 0; i < p->n_ev && shown < 3 && at < sizeof(line); i++) {
		if (!p->ev[i].is_num || p->ev[i].unknown || strstr(p->ev[i].key, "impact"))
			continue;
		char nb[32];
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s %s %s", shown ? "," : ":",
				       C_("evidence", p->ev[i].key),
				       ev_num(nb, sizeof(nb), &p->ev[i]));
		shown++;
	}
	report_wrap(f, " ", "    ", line);
	if (p->n_actions)
		report_wrap(f, report_tr(RM_T("  fix first:")), "    ",
			    finding_action_text(t, sizeof(t), p, 0));
}

/* Findings as blocks that stay within 100 columns. */
static void findings(FILE *f, const struct finding_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct finding *x = &l->v[i];
		char sev[16];
		upper(sev, sizeof(sev), severity_name(x->severity));
		const char *label = i18n_zh() ? severity_label(x->severity) : sev;
		if (x->device >= 0)
			fprintf(f, _("[%s] %s (impact %.1f%%, device %d)\n"), label, x->id,
				x->impact_pct, x->device);
		else
			fprintf(f, _("[%s] %s (impact %.1f%%)\n"), label, x->id, x->impact_pct);
		char t[sizeof(x->title)];
		report_wrap(f, "   ", "    ", finding_title(t, sizeof(t), x));
		for (int e = 0; e < x->n_ev; e++) {
			char nb[32], kb[512];
			const char *v = x->ev[e].str;
			if (x->ev[e].is_num)
				v = ev_num(nb, sizeof(nb), &x->ev[e]);
			else if (strstr(x->ev[e].key, "kernel"))
				v = gs_one_line_name(v, kb, sizeof(kb), 64);
			const char *k = C_("evidence", x->ev[e].key);
			int pad = 28 - (int)wrap_width(k, strlen(k));
			fprintf(f, "    %s%*s %.64s\n", k, pad > 0 ? pad : 0, "", v);
		}
		for (int k = 0; k < x->n_actions; k++) {
			char ab[sizeof(x->title) + 64];
			report_wrap(f, "  ->", "     ",
				    finding_action_block(ab, sizeof(ab), l, i, k));
		}
		fputc('\n', f);
	}
}

/* A kernel's demangled base name, for a table cell. */
static const char *base_name(char *buf, size_t n, const char *raw)
{
	char dm[512];
	return gs_base_name(gs_demangle(raw, dm, sizeof(dm)), buf, n);
}

/* The text of cell c in column col (names fitted to the width). */
static const char *cell(char *buf, size_t n, const struct rm_column *col, const struct rm_cell *c)
{
	if (c->valid && c->kind == RM_NAME) {
		char bn[512];
		const char *s = c->v.s ? c->v.s : "";
		if (c->style == RM_STYLE_BASE_NAME)
			s = base_name(bn, sizeof(bn), s);
		if (col->width > 0)
			return fit(buf, n, s, (size_t)col->width);
		snprintf(buf, n, "%s", s);
		return buf;
	}
	return report_cell_text(buf, n, c, -1, 0);
}

/* One cell in its column's width; the last column gets no trailing
 * padding. */
static void pad(FILE *f, const struct rm_column *c, const char *v, int first, int last)
{
	int gap = first ? 0 : c->gap ? c->gap : 1;
	fprintf(f, "%*s", gap, "");
	int w = c->width, padw = last && c->left ? 0 : w;
	if (c->trunc && w > 0) {
		fprintf(f, c->left ? "%-*.*s" : "%*.*s", padw, w, v);
		return;
	}
	/* pad by display columns: a translated header may be Chinese (2 columns a
	 * character); for ASCII this is printf's %-*s / %*s */
	int vw = (int)wrap_width(v, strlen(v)), fill = padw > vw ? padw - vw : 0;
	if (!c->left)
		fprintf(f, "%*s", fill, "");
	fputs(v, f);
	if (c->left)
		fprintf(f, "%*s", fill, "");
}

/* 1 when the row's name column shows less of the name than one line of it
 * would (the table then lists it under itself). */
static int name_cut(const struct rm_table *t, size_t row, size_t col)
{
	const struct rm_cell *c = rm_table_cell(t, row, col);
	char dm[512], bn[512], one[512], nm[160];
	if (!c->valid || c->kind != RM_NAME)
		return 0;
	const char *full = gs_demangle(c->v.s, dm, sizeof(dm));
	struct rm_column w = at_width(&t->cols[col]);
	fit(nm, sizeof(nm), gs_base_name(full, bn, sizeof(bn)), (size_t)w.width);
	return strcmp(nm, gs_one_line_name(full, one, sizeof(one), (size_t)text_cols - 8)) != 0;
}

static int name_col(const struct rm_table *t)
{
	for (size_t c = 0; c < t->n_cols; c++)
		if (t->cols[c].header && t->cols[c].kind == RM_NAME)
			return (int)c;
	return -1;
}

static int any_cut(const struct rm_table *t)
{
	int nc = name_col(t);
	for (size_t r = 0; t->name_notes && nc >= 0 && r < t->text_rows; r++)
		if (name_cut(t, r, (size_t)nc))
			return 1;
	return 0;
}

static void table(FILE *f, const struct rm_table *t)
{
	char v[640];
	size_t last = 0;
	int any = 0;
	for (size_t c = 0; c < t->n_cols; c++)
		if (t->cols[c].header)
			last = c, any = 1;
	if (!any) /* a JSON-only table */
		return;
	fputs("  ", f);
	int first = 1;
	for (size_t c = 0; c < t->n_cols; c++) {
		if (!t->cols[c].header)
			continue;
		struct rm_column w = at_width(&t->cols[c]);
		pad(f, &w, report_tr(t->cols[c].header), first, c == last);
		first = 0;
	}
	fputc('\n', f);
	for (size_t r = 0; r < t->text_rows; r++) {
		fputs("  ", f);
		first = 1;
		for (size_t c = 0; c < t->n_cols; c++) {
			if (!t->cols[c].header)
				continue;
			struct rm_column w = at_width(&t->cols[c]);
			pad(f, &w, cell(v, sizeof(v), &w, rm_table_cell(t, r, c)), first,
			    c == last);
			first = 0;
		}
		fputc('\n', f);
	}
	/* the demangled names the table had to cut, one line each */
	int nc = name_col(t);
	for (size_t r = 0; t->name_notes && nc >= 0 && r < t->text_rows; r++) {
		if (!name_cut(t, r, (size_t)nc))
			continue;
		char dm[512], one[512];
		const char *full =
		    gs_demangle(rm_table_cell(t, r, (size_t)nc)->v.s, dm, sizeof(dm));
		report_cell_text(v, sizeof(v), rm_table_cell(t, r, 0), -1, 0);
		fprintf(f, "  %-3s %s\n", v,
			gs_one_line_name(full, one, sizeof(one), (size_t)text_cols - 8));
	}
}

/* Prints line items[*i] with the lines joined to it; advances *i. */
static void line(FILE *f, const struct rm_section *s, size_t *i)
{
	char text[2048], part[1024];
	const struct rm_line *l = &s->items[*i].u.l;
	report_expand(text, sizeof(text), report_tr(l->tmpl), l, s);
	while (*i + 1 < s->n_items && s->items[*i + 1].kind == RM_ITEM_LINE &&
	       s->items[*i + 1].u.l.join) {
		const struct rm_line *j = &s->items[++*i].u.l;
		size_t at = strlen(text);
		report_expand(part, sizeof(part), report_tr(j->tmpl), j, s);
		snprintf(text + at, sizeof(text) - at, "%s", part);
	}
	if (l->cont)
		report_wrap(f, report_tr(l->prefix), l->cont, text);
	else
		fprintf(f, "%s%s\n", report_tr(l->prefix), text);
}

static void section(FILE *f, const struct rm_section *s)
{
	char head[512];
	if (s->kind == RM_SEC_FINDINGS && !s->findings->n)
		return;
	if (s->heading) {
		const char *h = s->heading;
		for (size_t i = 0; i < s->n_items && s->heading_cut; i++)
			if (s->items[i].kind == RM_ITEM_TABLE && any_cut(&s->items[i].u.t))
				h = s->heading_cut;
		fprintf(f, "%s\n", report_expand(head, sizeof(head), report_tr(h), NULL, s));
	}
	if (s->kind == RM_SEC_VERDICT)
		verdict(f, s);
	if (s->kind == RM_SEC_FINDINGS)
		findings(f, s->findings);
	for (size_t i = 0; i < s->n_items; i++) {
		if (s->items[i].kind == RM_ITEM_LINE)
			line(f, s, &i);
		else if (s->items[i].kind == RM_ITEM_TABLE)
			table(f, &s->items[i].u.t);
	}
	/* findings end each block with a blank line already */
	if (s->kind != RM_SEC_FINDINGS)
		fputc('\n', f);
}

void report_text(FILE *f, const struct report *r)
{
	for (size_t i = 0; i < r->n_secs; i++)
		if (r->secs[i].text)
			section(f, &r->secs[i]);
}
