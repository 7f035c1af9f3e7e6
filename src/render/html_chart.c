/*
 * html_chart.c - the report's smaller pictures (html.h): where the span
 * went as one bar (busy, idle by cause) and the time by category, the
 * idle gaps' histogram, and the kernels' roofline. Each reads the model's
 * sections; each datum drawn carries data-mark and a <title> with its
 * numbers.
 */
#include <math.h>
#include <string.h>

#include "render/html.h"
#include "render/report_render.h"

static int64_t ifield(const struct rm_section *s, const char *key)
{
	const struct rm_field *x = s ? rm_section_field(s, key) : NULL;
	return x && x->c.valid ? x->c.v.i : 0;
}

static double pct_field(const struct rm_section *s, const char *key)
{
	const struct rm_field *x = s ? rm_section_field(s, key) : NULL;
	return x && x->c.valid ? x->c.v.d : 0;
}

/* A horizontal bar segment [x, x + w) with its label inside when it fits. */
static void segment(FILE *f, double x, double w, double y, double h, const char *kind,
		    const char *label, const char *title)
{
	char fill[96];
	fprintf(f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
		"stroke=\"#fff\" stroke-width=\".5\" data-mark=\"%s\"><title>",
		x, y, w, h, html_fill(fill, sizeof(fill), kind, NULL), kind);
	html_esc(f, title);
	fputs("</title></rect>", f);
	if (label && w > 7 * (double)strlen(label) + 8)
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" font-weight=\"600\" paint-order=\"stroke\" "
			"stroke=\"#fff\" stroke-width=\"3\">%s</text>",
			x + 4, y + h / 2 + 4, label);
}

void html_span_bar(FILE *f, const struct report *r, int compact)
{
	const struct rm_section *sum = report_section(r, "summary");
	const struct rm_section *idle = report_section(r, "idle");
	const struct rm_section *run = report_section(r, "run");
	double span = (double)ifield(run, "span_ns");
	if (!sum || !idle || span <= 0)
		return;
	static const char *const keys[6] = {"host_ns", "dispatch_ns", "launch_ns",
					    "sync_ns", "copy_ns",     "cuda_api_ns"};
	double busy = (double)ifield(sum, "gpu_busy_ns"), x = 0, w = HTML_W - 2;
	char title[256], lab[64], d[32];
	fputs("<figure class=\"chart\" data-chart=\"span\"><svg viewBox=\"0 0 1000 34\" "
	      "role=\"img\" aria-label=\"the analysed span: GPU busy and idle by cause\">",
	      f);
	snprintf(lab, sizeof(lab), "busy %.1f%%", 100 * busy / span);
	snprintf(title, sizeof(title), "GPU busy %s, %.1f%% of the span",
		 report_fmt_ns(d, sizeof(d), busy), 100 * busy / span);
	segment(f, 1, w * busy / span, 2, 30, "busy", lab, title);
	x = 1 + w * busy / span;
	for (int c = 0; c < 6; c++) {
		double v = (double)ifield(idle, keys[c]);
		if (v <= 0)
			continue;
		snprintf(lab, sizeof(lab), "%.1f%%", 100 * v / span);
		snprintf(title, sizeof(title), "GPU idle, %s: %s, %.1f%% of the span",
			 html_cause_label[c], report_fmt_ns(d, sizeof(d), v), 100 * v / span);
		segment(f, x, w * v / span, 2, 30, html_cause_kind[c], lab, title);
		x += w * v / span;
	}
	fputs("</svg><div class=\"keys\">", f);
	snprintf(title, sizeof(title), "GPU busy %.1f%%", 100 * busy / span);
	html_key(f, "busy", title);
	for (int c = 0; c < 6; c++) {
		double v = (double)ifield(idle, keys[c]);
		if (v <= 0)
			continue;
		snprintf(title, sizeof(title), "idle: %s %.1f%%", html_cause_label[c],
			 100 * v / span);
		html_key(f, html_cause_kind[c], title);
	}
	fputs("</div><figcaption class=\"note\">The analysed span as one bar: GPU busy (any "
	      "work), then the idle time split by cause.</figcaption></figure>\n",
	      f);
	if (compact)
		return;

	/* time by category: unions, so they may overlap (a copy under a kernel) */
	static const struct {
		const char *key, *kind, *label;
	} cats[] = {{"kernels_pct", "kernel", "kernels"},
		    {"copies_pct", "copy", "copies"},
		    {"memsets_pct", "memset", "memsets"},
		    {"idle_pct", "idle", "idle"}};
	fputs("<figure class=\"chart\" data-chart=\"categories\"><svg viewBox=\"0 0 1000 92\" "
	      "role=\"img\" aria-label=\"time by category\">",
	      f);
	for (int i = 0; i < 4; i++) {
		double v = pct_field(sum, cats[i].key), y = 2 + 22.0 * i;
		fprintf(f, "<text x=\"4\" y=\"%.1f\">%s</text>", y + 14, cats[i].label);
		snprintf(title, sizeof(title), "%s: %.1f%% of the span", cats[i].label, v);
		segment(f, HTML_L, v / 100 * HTML_P, y, 18, cats[i].kind, NULL, title);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%.1f%%</text>",
			HTML_L + v / 100 * HTML_P + 6, y + 14, v);
	}
	fputs("</svg><figcaption class=\"note\">Time by category, each as a share of the span "
	      "(each is the union of its work, so kernels and copies that overlap count in "
	      "both).</figcaption></figure>\n",
	      f);
}

static void gap_label(char *buf, size_t n, int64_t ns)
{
	char d[32];
	snprintf(buf, n, "%s", ns ? report_fmt_ns(d, sizeof(d), (double)ns) : "0");
	/* "500 us" rather than "500.0 us" on an edge */
	char *dot = strstr(buf, ".0 ");
	if (dot)
		memmove(dot, dot + 2, strlen(dot + 2) + 1);
	char *dz = strstr(buf, ".00 ");
	if (dz)
		memmove(dz, dz + 3, strlen(dz + 3) + 1);
	char *d3 = strstr(buf, ".000 ");
	if (d3)
		memmove(d3, d3 + 4, strlen(d3 + 4) + 1);
}

void html_idle_hist(FILE *f, const struct report *r, int narrow)
{
	const double W = narrow ? HTML_NW : HTML_W, L = narrow ? HTML_NL : HTML_L;
	const double P = narrow ? HTML_NP : HTML_P;
	const struct rm_section *s = report_section(r, "idle_gaps");
	const struct rm_table *t = s ? rm_section_table(s) : NULL;
	if (!t || !t->n_rows)
		return;
	double max = 0;
	for (size_t i = 0; i < t->n_rows; i++)
		max = fmax(max, (double)rm_table_cell(t, i, 3)->v.i);
	double top = html_nice(max), H = 206, y0 = 24, ph = 150, bw = P / (double)t->n_rows;
	fprintf(f,
		"<figure class=\"chart\" data-chart=\"idle_gaps\"><svg viewBox=\"0 0 %.0f 206\" "
		"role=\"img\" aria-label=\"idle gaps by length: idle time by cause\"%s>",
		W, narrow ? " class=\"narrow\"" : "");
	fputs("<text x=\"4\" y=\"12\" class=\"mut\">idle time in gaps of each length</text>", f);
	char lab[48], title[600], d[32];
	for (int k = 0; k <= 4; k++) {
		double v = top * k / 4, y = y0 + ph - ph * k / 4;
		gap_label(lab, sizeof(lab), (int64_t)v);
		fprintf(f,
			"<line class=\"g\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\" class=\"mut\">%s</text>",
			L, L + P, y, y, L - 6, y + 4, lab);
	}
	for (size_t i = 0; i < t->n_rows; i++) {
		double x = L + bw * (double)i, y = y0 + ph;
		int64_t lo = rm_table_cell(t, i, 0)->v.i, gaps = rm_table_cell(t, i, 2)->v.i;
		const struct rm_cell *hi = rm_table_cell(t, i, 1);
		char a[32], b[32];
		gap_label(a, sizeof(a), lo);
		gap_label(b, sizeof(b), hi->valid ? hi->v.i : 0);
		size_t at = (size_t)snprintf(
		    title, sizeof(title), "gaps %s%s%s: %lld, idle %s",
		    hi->valid ? a : ">= ", hi->valid ? " to " : a, hi->valid ? b : "",
		    (long long)gaps,
		    report_fmt_ns(d, sizeof(d), (double)rm_table_cell(t, i, 3)->v.i));
		for (int c = 0; c < 6 && at < sizeof(title); c++) {
			int64_t v = rm_table_cell(t, i, 4 + (size_t)c)->v.i;
			if (v > 0)
				at += (size_t)snprintf(title + at, sizeof(title) - at, "; %s %s",
						       html_cause_label[c],
						       report_fmt_ns(d, sizeof(d), (double)v));
		}
		for (int c = 0; c < 6; c++) {
			double v = (double)rm_table_cell(t, i, 4 + (size_t)c)->v.i;
			if (v <= 0)
				continue;
			double hh = ph * v / top;
			char fill[96];
			y -= hh;
			fprintf(f,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.2f\" "
				"fill=\"%s\" data-mark=\"gap\"><title>",
				x + 2, y, bw - 4, hh,
				html_fill(fill, sizeof(fill), html_cause_kind[c], NULL));
			html_esc(f, title);
			fputs("</title></rect>", f);
		}
		if (gaps)
			fprintf(f,
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
				"font-size=\"10\">%lld</text>",
				x + bw / 2, y - 3, (long long)gaps);
		/* edge labels: every other one when the bars are narrow, none
		 * crowding the last */
		int step = bw < 34 ? 2 : 1;
		if (i % (size_t)step == 0 && (i + 1 < t->n_rows || bw >= 34))
			fprintf(f,
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"mut\" "
				"font-size=\"10\">%s</text>",
				x, y0 + ph + 14, lo ? a : "0");
	}
	const struct rm_cell *last = rm_table_cell(t, t->n_rows - 1, 1);
	gap_label(lab, sizeof(lab), last->valid ? last->v.i : 0);
	fprintf(f,
		"<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\" class=\"mut\" "
		"font-size=\"10\">%s</text>",
		L + P, y0 + ph + 14, last->valid ? lab : "and longer");
	fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" class=\"mut\">gap length (numbers: gaps)</text>", L,
		H - 4);
	fputs("</svg><div class=\"keys\">", f);
	for (int c = 0; c < 6; c++)
		html_key(f, html_cause_kind[c], html_cause_label[c]);
	fputs("</div><figcaption class=\"note\">Each bar is the GPU idle time that lies in gaps "
	      "of one length range, split by cause; the number above it counts the gaps. Gaps "
	      "under 50 us are launch latency; host stretches of 500 us or more are host "
	      "work.</figcaption></figure>\n",
	      f);
}

/* The value of key in a nested keyed table (roofline), NAN when absent. */
static double nested(const struct rm_cell *c, const char *key)
{
	if (!c->valid || c->kind != RM_TABLE || !c->v.t)
		return NAN;
	const struct rm_table *t = c->v.t;
	for (size_t i = 0; i < t->n_rows; i++) {
		const struct rm_cell *k = rm_table_cell(t, i, 0), *v = rm_table_cell(t, i, 1);
		if (k->valid && strcmp(k->v.s, key) == 0)
			return v->valid ? v->v.d : NAN;
	}
	return NAN;
}

static int col_key(const struct rm_table *t, const char *key)
{
	for (size_t c = 0; c < t->n_cols; c++)
		if (t->cols[c].key && strcmp(t->cols[c].key, key) == 0)
			return (int)c;
	return -1;
}

void html_roofline(FILE *f, const struct report *r)
{
	const struct rm_section *s = report_section(r, "kernel_counters");
	const struct rm_table *t = s ? rm_section_table(s) : NULL;
	int rc = t ? col_key(t, "roofline") : -1, bc = t ? col_key(t, "bound") : -1;
	if (rc < 0 || !t->n_rows)
		return;
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	size_t pts = 0;
	for (size_t i = 0; i < t->n_rows; i++) {
		const struct rm_cell *c = rm_table_cell(t, i, (size_t)rc);
		double in = nested(c, "intensity_flop_per_byte"), fl = nested(c, "flop_per_s");
		double rf = nested(c, "roof_flop_per_s"), rb = nested(c, "roof_dram_bytes_per_s");
		if (!(in > 0) || !(fl > 0))
			continue;
		pts++;
		xmin = fmin(xmin, in), xmax = fmax(xmax, in);
		ymin = fmin(ymin, fl), ymax = fmax(ymax, fl);
		if (rf > 0 && rb > 0) {
			xmin = fmin(xmin, rf / rb), xmax = fmax(xmax, rf / rb);
			ymax = fmax(ymax, rf);
		}
	}
	if (!pts) {
		fputs("<figure class=\"chart\" data-chart=\"roofline\" data-empty=\"no counters\">"
		      "<p class=\"note\">no roofline: no kernel has both FLOP and DRAM counters</p>"
		      "</figure>\n",
		      f);
		return;
	}
	double lx0 = floor(log10(xmin / 2)), lx1 = ceil(log10(xmax * 2));
	double ly0 = floor(log10(ymin / 2)), ly1 = ceil(log10(ymax * 2));
	double W = 580, H = 360, L = 64, B = 36, pw = W - L - 26, ph = H - B - 10;
#define RX(v) (L + (log10(v) - lx0) / (lx1 - lx0) * pw)
#define RY(v) (10 + ph - (log10(v) - ly0) / (ly1 - ly0) * ph)
	fprintf(
	    f,
	    "<figure class=\"chart\" data-chart=\"roofline\"><svg class=\"small\" viewBox=\"0 0 "
	    "%.0f %.0f\" role=\"img\" aria-label=\"roofline of the profiled kernels\">",
	    W, H);
	for (double e = lx0; e <= lx1; e++)
		fprintf(
		    f,
		    "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"10\" y2=\"%.1f\" stroke=\"#eee\"/><text "
		    "x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"mut\">%g</text>",
		    RX(pow(10, e)), RX(pow(10, e)), 10 + ph, RX(pow(10, e)), 10 + ph + 14,
		    pow(10, e));
	for (double e = ly0; e <= ly1; e++)
		fprintf(
		    f,
		    "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/><text "
		    "x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"mut\">%g</text>",
		    L, L + pw, RY(pow(10, e)), RY(pow(10, e)), L - 4, RY(pow(10, e)) + 4,
		    pow(10, e) / 1e12);
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">arithmetic intensity (FLOP per "
		"DRAM byte)</text><text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" "
		"text-anchor=\"middle\">TFLOP/s</text>",
		L + pw / 2, H - 4, 10 + ph / 2, 10 + ph / 2);
	/* each roof once: min(peak, intensity x bandwidth); roofs within 5% of
	 * each other are one (the peak follows each kernel's measured clock) */
	double seen[16][2], labels[16];
	size_t n_seen = 0, n_labels = 0;
	for (size_t i = 0; i < t->n_rows && n_seen < 16; i++) {
		const struct rm_cell *c = rm_table_cell(t, i, (size_t)rc);
		double rf = nested(c, "roof_flop_per_s"), rb = nested(c, "roof_dram_bytes_per_s");
		int dup = !(rf > 0 && rb > 0);
		for (size_t k = 0; k < n_seen && !dup; k++)
			dup =
			    fabs(seen[k][0] - rf) < 0.05 * rf && fabs(seen[k][1] - rb) < 0.05 * rb;
		if (dup)
			continue;
		seen[n_seen][0] = rf, seen[n_seen++][1] = rb;
		double x1 = pow(10, lx1), ridge = rf / rb;
		double xs = fmax(pow(10, lx0), pow(10, ly0) / rb); /* where the slope enters */
		fprintf(f,
			"<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1f\" fill=\"none\" stroke=\"#333\" "
			"stroke-width=\"1.5\" data-mark=\"roof\"><title>roof: DRAM %.4g GB/s, peak "
			"%.4g TFLOP/s</title></path>",
			RX(xs), RY(xs * rb), RX(ridge), RY(rf), RX(x1), RY(rf), rb / 1e9,
			rf / 1e12);
		int crowded = 0; /* a label within 11 units of another is left out */
		for (size_t k = 0; k < n_labels; k++)
			crowded |= fabs(labels[k] - RY(rf)) < 11;
		if (!crowded) {
			labels[n_labels++] = RY(rf);
			fprintf(
			    f,
			    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">peak %.3g TFLOP/s</text>",
			    RX(ridge) + 4, RY(rf) - 4, rf / 1e12);
		}
		if (n_seen == 1) /* the slope: DRAM bandwidth */
			fprintf(
			    f,
			    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">DRAM "
			    "%.4g GB/s</text>",
			    RX(ridge) - 8, RY(rf) + 14, rb / 1e9);
	}
	for (size_t i = 0; i < t->n_rows; i++) {
		const struct rm_cell *c = rm_table_cell(t, i, (size_t)rc);
		double in = nested(c, "intensity_flop_per_byte"), fl = nested(c, "flop_per_s");
		if (!(in > 0) || !(fl > 0))
			continue;
		const struct rm_cell *b = bc >= 0 ? rm_table_cell(t, i, (size_t)bc) : NULL;
		const char *bound = b && b->valid ? b->v.s : "?";
		fprintf(
		    f,
		    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"#0072B2\" "
		    "fill-opacity=\".8\" "
		    "stroke=\"#fff\" data-mark=\"kernel\"><title>#%zu: %.4g FLOP/byte, %.4g "
		    "TFLOP/s "
		    "(%s)</title></circle><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">#%zu</text>",
		    RX(in), RY(fl), i + 1, in, fl / 1e12, bound, RX(in) + 6, RY(fl) - 5, i + 1);
	}
#undef RX
#undef RY
	fputs("</svg><figcaption class=\"note\">Each profiled kernel (#N as in the table) at "
	      "its measured FLOP per DRAM byte and FLOP/s, under its device's roofs: DRAM "
	      "bandwidth (the slope) and the peak of the pipe its arithmetic uses (the "
	      "flat line).</figcaption></figure>\n",
	      f);
}
