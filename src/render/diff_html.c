/*
 * diff_html.c - `gpuscope diff --format html`: one self-contained page
 * (html.h) of a diff (analyze/diff.h) and the two runs' reports: the
 * verdict (faster, slower, why), time by category as paired bars, the
 * kernels that changed most as a diverging bar chart, the findings that
 * appeared, disappeared or changed, then the two runs side by side, each
 * with its verdict, where its span went, its timeline and its idle gaps.
 * What is compared and concluded is the engine's; this file only draws it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/diff_render.h"
#include "render/html.h"
#include "render/report_render.h"
#include "util/demangle.h"

static const char *verdict_word(const struct diff *d)
{
	return d->verdict == DIFF_FASTER   ? "faster"
	       : d->verdict == DIFF_SLOWER ? "slower"
	       : d->verdict == DIFF_SAME   ? "the same"
					   : "not comparable";
}

static void verdict(FILE *f, const struct diff *d)
{
	char x[32], y[32], z[32];
	const struct diff_side *A = &d->base, *B = &d->new_;
	fprintf(f,
		"<section id=\"verdict\" class=\"verdict%s\"><h2>VERDICT</h2>\n<p class=\"what\">",
		d->verdict == DIFF_SLOWER ? "" : " none");
	report_fmt_ns(x, 32, (double)A->span_ns);
	report_fmt_ns(y, 32, (double)B->span_ns);
	report_fmt_ns(z, 32, (double)(B->span_ns - A->span_ns));
	if (d->verdict == DIFF_NO_WORK)
		fprintf(f, "nothing to compare: %s has no GPU work (span %s -> %s)",
			!A->has_gpu_work && !B->has_gpu_work ? "neither run"
			: !A->has_gpu_work		     ? "the base run"
							     : "the new run",
			x, y);
	else
		fprintf(f, "the new run is %s: span %s -> %s (%s, %.2fx, %+.1f%%)", verdict_word(d),
			x, y, z, d->span_ratio, d->span_pct);
	fprintf(f,
		"</p>\n<p>GPU busy %.1f%% -> %.1f%% (%+.1f points); primary finding %s -> %s</p>\n",
		A->busy_pct, B->busy_pct, B->busy_pct - A->busy_pct,
		A->primary ? A->primary->id : "none", B->primary ? B->primary->id : "none");
	if (d->why >= 0) {
		const struct diff_cat *c = &d->cats[d->why];
		fputs("<p><b>Why:</b> ", f);
		html_esc(f, d->why_words);
		fprintf(f, ": %s -> %s (%s)</p>\n", report_fmt_ns(x, 32, (double)c->base_ns),
			report_fmt_ns(y, 32, (double)c->new_ns),
			report_fmt_ns(z, 32, (double)(c->new_ns - c->base_ns)));
	}
	const struct finding *p = d->why_primary;
	if (p && d->why_primary_new)
		fprintf(f,
			"<p>%s, the baseline's primary problem (%.1f%% of its run), fell to %.1f%% "
			"in the new run.</p>\n",
			p->id, p->impact_pct, d->why_primary_new->impact_pct);
	else if (p)
		fprintf(f,
			"<p>%s, the baseline's primary problem (%.1f%% of its run), is gone in the "
			"new run.</p>\n",
			p->id, p->impact_pct);
	if (d->gate == DIFF_GATE_REGRESSED)
		fprintf(f, "<p class=\"warn\"><b>regression:</b> slower by more than %.1f%%</p>\n",
			d->gate_pct);
	else if (d->gate == DIFF_GATE_PASS)
		fprintf(f, "<p>within the regression limit of %.1f%%</p>\n", d->gate_pct);
	else if (d->gate == DIFF_GATE_NO_WORK)
		fputs("<p class=\"warn\"><b>cannot gate:</b> a run has no GPU work</p>\n", f);
	fputs("</section>\n", f);
}

/* One bar of the paired chart with its value at its end. */
static void pair_bar(FILE *f, double y, double w, const char *kind, const char *title,
		     const char *value)
{
	char fill[96];
	fprintf(f,
		"<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"10\" fill=\"%s\" "
		"data-mark=\"%s\"><title>",
		HTML_L, y, w, html_fill(fill, sizeof(fill), kind, NULL), kind);
	html_esc(f, title);
	fprintf(f, "</title></rect><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%s</text>",
		HTML_L + w + 4, y + 9, value);
}

static void categories(FILE *f, const struct diff *d)
{
	double max = 1;
	int n = 0;
	for (int i = 0; i < d->n_cats; i++) {
		const struct diff_cat *c = &d->cats[i];
		max = fmax(max, (double)fmax(c->base_ns, c->new_ns));
		n += c->base_ns || c->new_ns;
	}
	fprintf(f,
		"<section id=\"categories\"><h2>TIME BY CATEGORY</h2><figure class=\"chart\" "
		"data-chart=\"diff_categories\"><svg viewBox=\"0 0 1000 %d\" role=\"img\" "
		"aria-label=\"time by category, base and new\">",
		n * 30 + 4);
	int row = 0;
	for (int i = 0; i < d->n_cats; i++) {
		const struct diff_cat *c = &d->cats[i];
		if (!c->base_ns && !c->new_ns)
			continue;
		double y = 4 + 30.0 * row++;
		char b[32], nw[32], title[256];
		fprintf(f, "<text x=\"4\" y=\"%.1f\">", y + 15);
		html_esc(f, c->name);
		fputs("<title>", f);
		html_esc(f, c->words);
		fputs("</title></text>", f);
		report_fmt_ns(b, sizeof(b), (double)c->base_ns);
		report_fmt_ns(nw, sizeof(nw), (double)c->new_ns);
		snprintf(title, sizeof(title), "%s: base %s", c->name, b);
		pair_bar(f, y, (double)c->base_ns / max * (HTML_P - 90), "base", title, b);
		snprintf(title, sizeof(title), "%s: new %s", c->name, nw);
		pair_bar(f, y + 12, (double)c->new_ns / max * (HTML_P - 90), "new", title, nw);
	}
	fputs("</svg><div class=\"keys\">", f);
	html_key(f, "base", "base (upper bar)");
	html_key(f, "new", "new (lower bar)");
	fputs("</div></figure>\n<div class=\"tw\"><table><thead><tr><th class=\"l\">category</th>"
	      "<th>base</th><th>new</th><th>delta</th><th>ratio</th><th class=\"l\">what it is"
	      "</th></tr></thead><tbody>\n",
	      f);
	for (int i = 0; i < d->n_cats; i++) {
		const struct diff_cat *c = &d->cats[i];
		char b[32], nw[32], z[32];
		double r = diff_ratio((double)c->base_ns, (double)c->new_ns);
		fputs("<tr><td class=\"l\">", f);
		html_esc(f, c->name);
		fprintf(f, "</td><td>%s</td><td>%s</td><td>%s</td><td>",
			report_fmt_ns(b, 32, (double)c->base_ns),
			report_fmt_ns(nw, 32, (double)c->new_ns),
			report_fmt_ns(z, 32, (double)(c->new_ns - c->base_ns)));
		if (isnan(r))
			fputs("N/A", f);
		else
			fprintf(f, "%.2fx", r);
		fputs("</td><td class=\"l\">", f);
		html_esc(f, c->words);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></div></section>\n", f);
}

static void kstat(FILE *f, const struct diff_kstat *s)
{
	char t[32];
	if (s->present)
		fprintf(f, "<td>%llu</td><td>%s</td>", (unsigned long long)s->count,
			report_fmt_ns(t, 32, (double)s->total_ns));
	else
		fputs("<td>N/A</td><td>N/A</td>", f);
}

static void kernels(FILE *f, const struct diff *d)
{
	size_t n = d->n_kernels < 12 ? d->n_kernels : 12;
	double max = 1;
	for (size_t i = 0; i < n; i++)
		max = fmax(max, fabs((double)d->kernels[i].delta_ns));
	fprintf(
	    f,
	    "<section id=\"kernels\"><h2>KERNELS (matched by name, largest change first)</h2>"
	    "<figure class=\"chart\" data-chart=\"diff_kernels\"%s><svg viewBox=\"0 0 1000 %zu\" "
	    "role=\"img\" aria-label=\"change of each kernel's total time\">",
	    n ? "" : " data-empty=\"no kernels\"", n * 20 + 24);
	double mid = HTML_L + HTML_P / 2.0, half = HTML_P / 2.0 - 80;
	fprintf(
	    f,
	    "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%zu\" stroke=\"#888\"/><text x=\"%.1f\" "
	    "y=\"%zu\" text-anchor=\"end\" class=\"mut\">less time in new</text><text x=\"%.1f\" "
	    "y=\"%zu\" class=\"mut\">more time in new</text>",
	    mid, mid, n * 20 + 4, mid - 6, n * 20 + 18, mid + 6, n * 20 + 18);
	for (size_t i = 0; i < n; i++) {
		const struct diff_kernel *k = &d->kernels[i];
		char dm[1024], bn[256], z[32];
		double w = fabs((double)k->delta_ns) / max * half, y = 4 + 20.0 * (double)i;
		double x = k->delta_ns < 0 ? mid - w : mid;
		gs_base_name(gs_demangle(k->name, dm, sizeof(dm)), bn, sizeof(bn));
		report_fmt_ns(z, 32, (double)k->delta_ns);
		fprintf(f, "<text x=\"4\" y=\"%.1f\">", y + 11);
		html_esc(f, bn);
		fprintf(f,
			"</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"13\" "
			"fill=\"url(#p-new)\" data-mark=\"kernel\"><title>",
			x, y, w > 0.5 ? w : 0.5);
		html_esc(f, dm);
		fprintf(f,
			": %s%s</title></rect><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
			"text-anchor=\"%s\">%s%s</text>",
			k->delta_ns > 0 ? "+" : "", z, k->delta_ns < 0 ? x - 4 : x + w + 4, y + 10,
			k->delta_ns < 0 ? "end" : "start", k->delta_ns > 0 ? "+" : "", z);
	}
	fputs("</svg></figure>\n<div class=\"tw\"><table><thead><tr><th class=\"l\">kernel</th>"
	      "<th>base n</th><th>base total</th><th>new n</th><th>new total</th><th>delta</th>"
	      "<th>ratio</th></tr></thead><tbody>\n",
	      f);
	for (size_t i = 0; i < d->n_kernels && i < DIFF_TEXT_KERNELS; i++) {
		const struct diff_kernel *k = &d->kernels[i];
		char dm[4096], z[32];
		fputs("<tr><td class=\"l name\">", f);
		html_esc(f, gs_demangle(k->name, dm, sizeof(dm)));
		fputs("</td>", f);
		kstat(f, &k->base);
		kstat(f, &k->new_);
		fprintf(f, "<td>%s</td><td>", report_fmt_ns(z, 32, (double)k->delta_ns));
		if (k->base.present && k->new_.present && k->base.total_ns > 0)
			fprintf(f, "%.2fx", (double)k->new_.total_ns / (double)k->base.total_ns);
		else
			fputs("N/A", f);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></div></section>\n", f);
}

static void findings(FILE *f, const struct diff *d)
{
	static const char *const word[] = {"disappeared", "changed", "appeared"};
	fputs("<section id=\"findings\"><h2>FINDINGS</h2>\n", f);
	if (!d->n_findings)
		fputs("<p>none in either run</p>\n", f);
	for (size_t i = 0; i < d->n_findings; i++) {
		const struct diff_finding *x = &d->findings[i];
		const struct finding *g = x->new_ ? x->new_ : x->base;
		fprintf(f, "<article class=\"card\"><h3><span class=\"sev sev-%s\">%s</span>",
			severity_name(g->severity), word[x->change]);
		html_esc(f, g->id);
		if (x->change == DIFF_CHANGED)
			fprintf(f, " <span class=\"note\">impact %.1f%% -> %.1f%% (%+.1f)</span>",
				x->base->impact_pct, x->new_->impact_pct,
				x->new_->impact_pct - x->base->impact_pct);
		else
			fprintf(f, " <span class=\"note\">impact %.1f%% in the %s run</span>",
				g->impact_pct, x->new_ ? "new" : "base");
		fputs("</h3><p>", f);
		char t[sizeof(g->title)];
		html_esc(f, finding_title(t, sizeof(t), g));
		fputs("</p></article>\n", f);
	}
	fputs("</section>\n", f);
}

/* One run in its column: what it is, its verdict, its pictures. */
static void side(FILE *f, const char *which, const struct diff_side *s, const struct report *r,
		 const char *zoom)
{
	fprintf(f, "<div><h3>%s: ", which);
	html_esc(f, s->path);
	fputs("</h3>\n<p>", f);
	if (s->primary) {
		fprintf(f, "<span class=\"sev sev-%s\">%s</span>",
			severity_name(s->primary->severity), s->primary->id);
		fprintf(f, "explains %.1f%% of the run: ", s->primary->impact_pct);
		char t[sizeof(s->primary->title)];
		html_esc(f, finding_title(t, sizeof(t), s->primary));
	} else {
		fputs("no finding", f);
	}
	fputs("</p>\n", f);
	html_span_bar(f, r, 1);
	html_timeline(f, r, zoom, 1);
	html_idle_hist(f, r, 1);
	fputs("</div>\n", f);
}

void diff_html(FILE *f, const struct diff *d, const struct report *base, const struct report *new_)
{
	char title[1200];
	snprintf(title, sizeof(title), "gpuscope diff: %s -> %s", d->base.path, d->new_.path);
	html_page_begin(f, title);
	fputs("<header><h1>gpuscope diff</h1><p class=\"meta\">", f);
	html_esc(f, d->base.path);
	fputs(" (base) &#8594; ", f);
	html_esc(f, d->new_.path);
	fputs(" (new)</p><nav aria-label=\"sections\"><a href=\"#categories\">time by category</a>"
	      "<a href=\"#kernels\">kernels</a><a href=\"#findings\">findings</a><a "
	      "href=\"#runs\">the two runs</a></nav></header>\n",
	      f);
	verdict(f, d);
	categories(f, d);
	kernels(f, d);
	findings(f, d);
	fputs("<section id=\"runs\"><h2>THE TWO RUNS, SIDE BY SIDE</h2><div class=\"cols\">\n", f);
	side(f, "base", &d->base, base, "b");
	side(f, "new", &d->new_, new_, "n");
	fputs("</div></section>\n", f);
	html_page_end(f);
}
