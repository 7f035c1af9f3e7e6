/*
 * html_timeline.c - the timeline picture (html.h): one row for the GPU
 * busy union, one for the idle time by cause, one for the host's blocking
 * syncs and one per device/stream lane with its kernels, copies and
 * memsets, all over the analysed span in the model's bins (the timeline
 * and timeline_lane sections). A row shows, in each bin, the share of the
 * bin each kind of work or cause took, stacked from the bottom; areas are
 * step paths in bin units inside a group the script rescales to zoom.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/html.h"
#include "render/report_render.h"

#define ROW_GAP 6.0

/* Writes the band between the step functions lo and hi (shares of a bin,
 * 0..1) of a row whose bottom is at y base and height h: one closed path
 * per run of bins where the band has height. Returns the bins drawn. */
static int band(FILE *f, const double *lo, const double *hi, int n, double base, double h)
{
	int drawn = 0;
	for (int b = 0; b < n;) {
		if (hi[b] - lo[b] < 1e-4) {
			b++;
			continue;
		}
		int r0 = b;
		while (b < n && hi[b] - lo[b] >= 1e-4)
			b++;
		int r1 = b - 1;
		drawn += b - r0;
		/* y in tenths of a unit, so that equal steps merge */
		long top = lround((base - hi[r0] * h) * 10);
		fprintf(f, "M%d %.1f", r0, (double)top / 10);
		for (int k = r0 + 1; k <= r1; k++) {
			long t = lround((base - hi[k] * h) * 10);
			if (t != top)
				fprintf(f, "H%dV%.1f", k, (double)t / 10);
			top = t;
		}
		long bot = lround((base - lo[r1] * h) * 10);
		fprintf(f, "H%dV%.1f", r1 + 1, (double)bot / 10);
		for (int k = r1 - 1; k >= r0; k--) {
			long t = lround((base - lo[k] * h) * 10);
			if (t != bot)
				fprintf(f, "H%dV%.1f", k + 1, (double)t / 10);
			bot = t;
		}
		fprintf(f, "H%dZ", r0);
	}
	return drawn;
}

struct row {
	const char *label, *sub;
	double h;
};

/* A row's label on the left; sub (may be NULL) in a second line. */
static void row_label(FILE *f, const struct html_span *sp, const char *label, const char *sub,
		      double y, double h)
{
	double mid = y + h / 2 + (sub && h >= 20 ? -2 : 4);
	fprintf(f, "<text x=\"4\" y=\"%.1f\">", mid);
	html_esc(f, label);
	fputs("</text>", f);
	if (sub && h >= 20) {
		fprintf(f, "<text class=\"mut\" x=\"4\" y=\"%.1f\" font-size=\"10\">", mid + 11);
		html_esc(f, sub);
		fputs("</text>", f);
	}
	fprintf(f,
		"<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" fill=\"none\" "
		"stroke=\"#e3e3e3\"/>",
		sp->l, y, sp->p, h);
}

/* One stacked band of a row, with its title. */
static void area(FILE *f, const char *zoom, const char *kind, const double *lo, const double *hi,
		 int n, double base, double h, const char *title)
{
	char fill[96];
	fprintf(f, "<path fill=\"%s\" data-mark=\"%s\" d=\"",
		html_fill(fill, sizeof(fill), kind, zoom), kind);
	if (!band(f, lo, hi, n, base, h))
		fputs("M0 0", f);
	fputs("\"><title>", f);
	html_esc(f, title);
	fputs("</title></path>", f);
}

static double share(const struct rm_cell *c, int64_t bin_ns)
{
	double v = c->valid ? (double)c->v.i / (double)bin_ns : 0;
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

static double fld(const struct rm_section *s, const char *key)
{
	const struct rm_field *x = rm_section_field(s, key);
	return x && x->c.valid ? (double)x->c.v.i : 0;
}

/* The lanes to draw: every timeline_lane section, or the busiest `max`. */
static size_t pick_lanes(const struct report *r, const struct rm_section **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_secs; i++)
		if (strcmp(r->secs[i].id, "timeline_lane") == 0)
			out[n++] = &r->secs[i];
	while (n > max) { /* drop the least busy, keeping the order */
		size_t low = 0;
		for (size_t i = 1; i < n; i++)
			if (fld(out[i], "busy_ns") < fld(out[low], "busy_ns"))
				low = i;
		memmove(&out[low], &out[low + 1], (n - low - 1) * sizeof(*out));
		n--;
	}
	return n;
}

static void lane_names(char *label, size_t nl, char *sub, size_t ns, const struct rm_section *l,
		       double span)
{
	const struct rm_field *dev = rm_section_field(l, "device");
	const struct rm_field *st = rm_section_field(l, "stream");
	char pct[32];
	snprintf(pct, sizeof(pct), "%.1f%%", span > 0 ? 100 * fld(l, "busy_ns") / span : 0);
	if (st && st->c.valid)
		snprintf(label, nl, "device %lld, stream %lld", (long long)dev->c.v.i,
			 (long long)st->c.v.i);
	else
		snprintf(label, nl, "other streams (%lld)", (long long)fld(l, "streams"));
	snprintf(sub, ns, "busy %s, %lld ops", pct, (long long)fld(l, "ops"));
}

static void lane_row(FILE *f, const struct rm_section *l, const struct html_span *sp,
		     const char *zoom, double y, double h, double *buf, const char *label)
{
	int n = sp->n_bins;
	double *k = buf, *c = buf + n, *m = buf + 2 * n, *z = buf + 3 * n;
	memset(buf, 0, 4 * (size_t)n * sizeof(*buf));
	const struct rm_table *t = rm_section_table(l);
	int64_t sum[3] = {0, 0, 0};
	for (size_t i = 0; t && i < t->n_rows; i++) {
		int64_t b = rm_table_cell(t, i, 0)->v.i;
		if (b < 0 || b >= n)
			continue;
		double v[3];
		for (int j = 0; j < 3; j++) {
			v[j] = share(rm_table_cell(t, i, 1 + (size_t)j), sp->bin_ns);
			sum[j] += rm_table_cell(t, i, 1 + (size_t)j)->v.i;
		}
		k[b] = v[0] > 1 ? 1 : v[0];
		c[b] = k[b] + v[1] > 1 ? 1 : k[b] + v[1];
		m[b] = c[b] + v[2] > 1 ? 1 : c[b] + v[2];
	}
	static const char *const kinds[3] = {"kernel", "copy", "memset"};
	static const char *const words[3] = {"kernels", "copies", "memsets"};
	const double *lo[3] = {z, k, c}, *hi[3] = {k, c, m};
	double span = (double)n * (double)sp->bin_ns;
	for (int j = 0; j < 3; j++) {
		char title[320], d[32];
		if (!sum[j])
			continue;
		snprintf(title, sizeof(title), "%s: %s, %s (%.1f%% of the span)", label, words[j],
			 report_fmt_ns(d, sizeof(d), (double)sum[j]), 100 * (double)sum[j] / span);
		area(f, zoom, kinds[j], lo[j], hi[j], n, y + h, h, title);
	}
}

/* The GPU busy row, the idle-by-cause row and the sync row. */
static void span_rows(FILE *f, const struct rm_table *bins, const struct html_span *sp,
		      const char *zoom, const double *ys, const double *hs, double *buf)
{
	int n = sp->n_bins;
	double span = (double)n * (double)sp->bin_ns;
	double *z = buf, *acc = buf + n; /* acc: AN_IDLE_CAUSES + 1 cumulative arrays */
	memset(buf, 0, 9 * (size_t)n * sizeof(*buf));
	int64_t tot[9] = {0};
	for (size_t i = 0; i < bins->n_rows && i < (size_t)n; i++) {
		for (size_t c = 1; c < 9; c++)
			tot[c] += rm_table_cell(bins, i, c)->v.i;
		acc[i] = share(rm_table_cell(bins, i, 1), sp->bin_ns);	       /* busy */
		acc[7 * n + i] = share(rm_table_cell(bins, i, 2), sp->bin_ns); /* sync */
		double run = 0;
		for (int c = 0; c < 6; c++) {
			run += share(rm_table_cell(bins, i, 3 + (size_t)c), sp->bin_ns);
			acc[(size_t)(1 + c) * (size_t)n + i] = run > 1 ? 1 : run;
		}
	}
	char title[320], d[32];
	snprintf(title, sizeof(title), "GPU busy (any work on any device): %s (%.1f%% of the span)",
		 report_fmt_ns(d, sizeof(d), (double)tot[1]), 100 * (double)tot[1] / span);
	area(f, zoom, "busy", z, acc, n, ys[0] + hs[0], hs[0], title);
	for (int c = 0; c < 6; c++) {
		if (!tot[3 + c])
			continue;
		snprintf(title, sizeof(title), "GPU idle: %s, %s (%.1f%% of the span)",
			 html_cause_label[c], report_fmt_ns(d, sizeof(d), (double)tot[3 + c]),
			 100 * (double)tot[3 + c] / span);
		area(f, zoom, html_cause_kind[c], c ? acc + (size_t)c * (size_t)n : z,
		     acc + (size_t)(1 + c) * (size_t)n, n, ys[1] + hs[1], hs[1], title);
	}
	if (hs[2] > 0) {
		snprintf(title, sizeof(title), "inside blocking synchronize calls: %s",
			 report_fmt_ns(d, sizeof(d), (double)tot[2]));
		area(f, zoom, "sync", z, acc + 7 * (size_t)n, n, ys[2] + hs[2], hs[2], title);
	}
}

void html_timeline(FILE *f, const struct report *r, const char *zoom, int compact)
{
	struct html_span sp;
	const struct rm_section *tl = report_section(r, "timeline");
	const struct rm_table *bins = tl ? rm_section_table(tl) : NULL;
	if (!html_span_of(r, &sp, compact) || !bins) {
		fputs("<figure class=\"chart\" data-chart=\"timeline\" data-empty=\"no GPU work\">"
		      "<p class=\"note\">no timeline: the analysed span has no GPU work</p>"
		      "</figure>\n",
		      f);
		return;
	}
	const struct rm_section *lanes[64];
	size_t nl = pick_lanes(r, lanes, compact ? 4 : 64);
	int64_t sync = 0;
	for (size_t i = 0; i < bins->n_rows; i++)
		sync += rm_table_cell(bins, i, 2)->v.i;
	double ys[3], hs[3] = {20, compact ? 30 : 44, sync ? 14 : 0}, lh = compact ? 18 : 24;
	double y = 4;
	for (int i = 0; i < 3; i++) {
		ys[i] = y;
		y += hs[i] ? hs[i] + ROW_GAP : 0;
	}
	double lane0 = y, h = y + (double)nl * (lh + ROW_GAP) + 22;
	double *buf = malloc(9 * (size_t)sp.n_bins * sizeof(*buf));
	if (!buf)
		return;
	fputs("<figure class=\"chart\" data-chart=\"timeline\">", f);
	html_time_svg(f, &sp, zoom, "timeline",
		      "timeline of the analysed span: GPU busy, idle by cause, syncs, streams", h,
		      1);
	html_time_axis(f, &sp, h - 20, h - 24);
	row_label(f, &sp, "GPU busy", "all work, all devices", ys[0], hs[0]);
	row_label(f, &sp, compact ? "GPU idle" : "GPU idle, by cause",
		  compact ? NULL : "why nothing ran", ys[1], hs[1]);
	if (hs[2] > 0)
		row_label(f, &sp, "blocking syncs", NULL, ys[2], hs[2]);
	double span = (double)sp.n_bins * (double)sp.bin_ns;
	char label[96], sub[96];
	for (size_t i = 0; i < nl; i++) {
		lane_names(label, sizeof(label), sub, sizeof(sub), lanes[i], span);
		row_label(f, &sp, label, compact ? NULL : sub, lane0 + (double)i * (lh + ROW_GAP),
			  lh);
	}
	html_zoom_g(f, &sp, zoom, "timeline");
	span_rows(f, bins, &sp, zoom, ys, hs, buf);
	for (size_t i = 0; i < nl; i++) {
		lane_names(label, sizeof(label), sub, sizeof(sub), lanes[i], span);
		lane_row(f, lanes[i], &sp, zoom, lane0 + (double)i * (lh + ROW_GAP), lh, buf,
			 label);
	}
	fputs("</g></g></svg>", f);
	free(buf);
	char d[32];
	if (!compact) {
		fputs("<div class=\"keys\">", f);
		html_key(f, "kernel", "kernels");
		html_key(f, "copy", "copies");
		html_key(f, "memset", "memsets");
		html_key(f, "busy", "GPU busy");
		html_key(f, "sync", "blocking syncs");
		for (int c = 0; c < 6; c++)
			html_key(f, html_cause_kind[c], html_cause_label[c]);
		fputs("</div>", f);
	}
	fprintf(f,
		"<figcaption class=\"note\">%d bins of %s over the analysed span; a bar's "
		"height is the share of its bin that the work or the cause took. Idle time is "
		"split by cause gap by gap; a gap's causes are spread over its bins in proportion "
		"(the analysis knows how much of a gap each explains, not where in it).",
		sp.n_bins, report_fmt_ns(d, sizeof(d), (double)sp.bin_ns));
	if (nl < pick_lanes(r, lanes, 64))
		fputs(" The busiest streams only.", f);
	fputs("</figcaption></figure>\n", f);
}
