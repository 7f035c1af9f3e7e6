/*
 * html_series.c - sampled metrics and device memory over the analysed
 * span (html.h), on the timeline's x axis and in its zoom group: one chart
 * per device and kind of quantity (GPM activity, NVML utilization, power,
 * temperature, clocks, PCIe), the GPU busy share of each bin shaded behind
 * the lines, so a metric can be read against when kernels ran. GPM values
 * are means over their window and are drawn as steps over it; NVML
 * readings as lines through the readings.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/html.h"
#include "render/report_render.h"

#define CH 90.0	 /* plot height */
#define CTOP 8.0 /* above the plot */

/* Line styles: colour and dash, so lines differ in grey too. */
static const struct {
	const char *stroke, *dash;
} styles[] = {
    {"#0072B2", ""},	    {"#D55E00", "6 3"}, {"#009E73", "2 2"},
    {"#CC79A7", "8 3 2 3"}, {"#E69F00", "1 3"}, {"#56B4E9", "4 4"},
};
#define N_STYLES (sizeof(styles) / sizeof(styles[0]))

/* The charts: which metrics go together, with a title and a y range. */
static const struct group {
	const char *title, *unit;
	const char *metrics[6];
	double max; /* 0: from the data */
} groups[] = {
    {"GPM activity (% of peak)",
     "%",
     {"gpm_sm_util", "gpm_sm_occupancy", "gpm_dram_bw_util", "gpm_tensor_util", "gpm_fp32_util"},
     100},
    {"PM sampling (% of peak, record --metrics pm)",
     "%",
     {"pm_sm_active", "pm_warps_active", "pm_dram_throughput", "pm_tensor_active", "pm_gr_active"},
     100},
    {"NVML utilization (%)", "%", {"gpu_util", "mem_util"}, 100},
    {"power (W)", "W", {"power_w"}, 0},
    {"temperature (C)", "C", {"temp_c"}, 0},
    {"clocks (MHz)", "MHz", {"sm_clock_mhz", "mem_clock_mhz"}, 0},
    {"PCIe (MB/s)", "MB/s", {"pcie_tx_mbps", "pcie_rx_mbps"}, 0},
};

static int64_t ifield(const struct rm_section *s, const char *key)
{
	const struct rm_field *x = rm_section_field(s, key);
	return x && x->c.valid ? x->c.v.i : 0;
}

static const char *sfield(const struct rm_section *s, const char *key)
{
	const struct rm_field *x = rm_section_field(s, key);
	return x && x->c.valid && x->c.v.s ? x->c.v.s : "";
}

/* The series section of metric on device, NULL when not sampled. */
static const struct rm_section *series_of(const struct report *r, const char *metric,
					  int64_t device)
{
	for (size_t i = 0; i < r->n_secs; i++) {
		const struct rm_section *s = &r->secs[i];
		if (strcmp(s->id, "series") == 0 && strcmp(sfield(s, "metric"), metric) == 0 &&
		    ifield(s, "device") == device)
			return s;
	}
	return NULL;
}

/* x in bins of a time on the span's clock. */
static double xb(const struct html_span *sp, int64_t t)
{
	return (double)(t - sp->t0) / (double)sp->bin_ns;
}

/* The GPU busy share of each bin as a light area of a chart (its top at
 * y top, height h). */
static void busy_shade(FILE *f, const struct report *r, double top, double h)
{
	const struct rm_section *tl = report_section(r, "timeline");
	const struct rm_table *t = tl ? rm_section_table(tl) : NULL;
	const struct rm_field *bin = tl ? rm_section_field(tl, "bin_ns") : NULL;
	if (!t || !bin || bin->c.v.i <= 0)
		return;
	double bn = (double)bin->c.v.i;
	fputs("<path fill=\"#d6e6f5\" d=\"", f);
	long prev = -1;
	fprintf(f, "M0 %.1f", top + h);
	for (size_t i = 0; i < t->n_rows; i++) {
		double v = (double)rm_table_cell(t, i, 1)->v.i / bn;
		long y = lround((top + h - (v > 1 ? 1 : v) * h) * 10);
		if (y != prev)
			fprintf(f, "H%zuV%.1f", i, (double)y / 10);
		prev = y;
	}
	fprintf(f, "H%zuV%.1fZ\"><title>GPU busy share of each bin</title></path>", t->n_rows,
		top + h);
}

static void line_key(FILE *f, size_t style, const char *label)
{
	fprintf(f,
		"<span class=\"key\"><svg width=\"22\" height=\"10\" aria-hidden=\"true\"><path "
		"d=\"M1 5H21\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"%s\"/></svg> ",
		styles[style % N_STYLES].stroke, styles[style % N_STYLES].dash);
	html_esc(f, label);
	fputs("</span>", f);
}

/* One metric's points as a path in the zoom group (x in bins). */
static void metric_path(FILE *f, const struct html_span *sp, const struct rm_section *s,
			size_t style, double max, double top)
{
	const struct rm_table *t = rm_section_table(s);
	int windowed = ifield(s, "windowed") != 0;
	if (!t || !t->n_rows)
		return;
	fprintf(
	    f,
	    "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" stroke-dasharray=\"%s\" "
	    "stroke-linecap=\"round\" vector-effect=\"non-scaling-stroke\" data-mark=\"%s\" d=\"",
	    styles[style % N_STYLES].stroke, styles[style % N_STYLES].dash, sfield(s, "metric"));
	for (size_t i = 0; i < t->n_rows; i++) {
		double from = xb(sp, rm_table_cell(t, i, 0)->v.i);
		double to = xb(sp, rm_table_cell(t, i, 1)->v.i);
		double v = rm_table_cell(t, i, 2)->v.d;
		double y = top + CH - (v > max ? 1 : v < 0 ? 0 : v / max) * CH;
		if (windowed)
			fprintf(f, "%s%.2f %.1fH%.2f", i ? "L" : "M", from, y, to);
		else
			fprintf(f, "%s%.2f %.1f", i ? "L" : "M", to, y);
	}
	fputs("\"><title>", f);
	html_escf(f, "%s, device %lld (%zu points)", sfield(s, "metric"),
		  (long long)ifield(s, "device"), t->n_rows);
	fputs("</title></path>", f);
	if (t->n_rows >= 80)
		return;
	/* a sparse series: a dot at each reading (zero-length round-capped
	 * segments stay round when the group is stretched) */
	fprintf(f,
		"<path fill=\"none\" stroke=\"%s\" stroke-width=\"5\" stroke-linecap=\"round\" "
		"vector-effect=\"non-scaling-stroke\" data-mark=\"%s\" d=\"",
		styles[style % N_STYLES].stroke, sfield(s, "metric"));
	for (size_t i = 0; i < t->n_rows; i++) {
		double v = rm_table_cell(t, i, 2)->v.d;
		fprintf(f, "M%.2f %.1fh0", xb(sp, rm_table_cell(t, i, 1)->v.i),
			top + CH -
			    (v > max ? 1
			     : v < 0 ? 0
				     : v / max) *
				CH);
	}
	fputs("\"><title>", f);
	html_escf(f, "%s readings", sfield(s, "metric"));
	fputs("</title></path>", f);
}

static double series_max(const struct rm_section *s)
{
	const struct rm_table *t = rm_section_table(s);
	double m = 0;
	for (size_t i = 0; t && i < t->n_rows; i++)
		m = fmax(m, rm_table_cell(t, i, 2)->v.d);
	return m;
}

/* A y axis with 3 ticks of 0..max at the left of the plot. */
static void y_axis(FILE *f, double top, double max, const char *unit)
{
	for (int k = 0; k <= 2; k++) {
		double y = top + CH - CH * k / 2;
		fprintf(f,
			"<line class=\"g\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/><text "
			"x=\"%d\" y=\"%.1f\" text-anchor=\"end\" class=\"mut\">%g %s</text>",
			HTML_L, HTML_L + HTML_P, y, y, HTML_L - 4, y + 4, max * k / 2, unit);
	}
}

static void group_chart(FILE *f, const struct report *r, const struct html_span *sp,
			const char *zoom, const struct group *g, int64_t device)
{
	const struct rm_section *have[6];
	size_t n = 0;
	double max = g->max;
	for (size_t m = 0; m < 6 && g->metrics[m]; m++) {
		const struct rm_section *s = series_of(r, g->metrics[m], device);
		if (s)
			have[n++] = s;
	}
	if (!n)
		return;
	for (size_t i = 0; !g->max && i < n; i++)
		max = fmax(max, series_max(have[i]));
	max = g->max ? max : html_nice(max > 0 ? max * 1.05 : 1);
	char chart[64], title[160];
	snprintf(chart, sizeof(chart), "series-%lld-%s", (long long)device, g->metrics[0]);
	snprintf(title, sizeof(title), "%s, device %lld", g->title, (long long)device);
	double h = CTOP + CH + 22;
	fprintf(f, "<figure class=\"chart\" data-chart=\"%s\"><h3>", chart);
	html_esc(f, title);
	fputs("</h3>", f);
	html_time_svg(f, sp, zoom, chart, title, h, 0);
	y_axis(f, CTOP, max, g->unit);
	html_time_axis(f, sp, CTOP + CH, CH);
	html_zoom_g(f, sp, zoom, chart);
	busy_shade(f, r, CTOP, CH);
	for (size_t i = 0; i < n; i++)
		metric_path(f, sp, have[i], i, max, CTOP);
	fputs("</g></g></svg><div class=\"keys\">", f);
	for (size_t i = 0; i < n; i++)
		line_key(f, i, sfield(have[i], "metric"));
	fputs("<span class=\"key\"><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><rect "
	      "width=\"14\" height=\"14\" fill=\"#d6e6f5\"/></svg> shaded: GPU busy share</span>"
	      "</div></figure>\n",
	      f);
}

/* The devices with sampled series, in order of first appearance. */
static size_t series_devices(const struct report *r, int64_t *dev, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_secs; i++) {
		const struct rm_section *s = &r->secs[i];
		if (strcmp(s->id, "series") != 0 && strcmp(s->id, "memory_live") != 0)
			continue;
		int64_t d = ifield(s, "device");
		size_t k = 0;
		while (k < n && dev[k] != d)
			k++;
		if (k == n && n < cap)
			dev[n++] = d;
	}
	return n;
}

/* The span (wide) and the devices to chart; 0 devices without a span. */
static size_t chart_devices(const struct report *r, struct html_span *sp, int64_t *dev, size_t cap)
{
	return html_span_of(r, sp, 0) ? series_devices(r, dev, cap) : 0;
}

void html_series(FILE *f, const struct report *r, const char *zoom)
{
	struct html_span sp;
	int64_t dev[16];
	size_t nd = chart_devices(r, &sp, dev, 16);
	for (size_t d = 0; d < nd; d++)
		for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
			group_chart(f, r, &sp, zoom, &groups[g], dev[d]);
	const struct rm_section *any = NULL;
	for (size_t i = 0; i < r->n_secs && !any; i++)
		if (strcmp(r->secs[i].id, "series") == 0)
			any = &r->secs[i];
	if (any) {
		char d[32];
		int64_t shift = ifield(any, "shift_ns");
		fprintf(f, "<p class=\"note\">Samples are placed on the trace's clock");
		if (shift)
			fprintf(f,
				", moved %s %s (the shift that best aligns GPM SM activity with "
				"the recorded kernels)",
				report_fmt_ns(d, sizeof(d), (double)(shift < 0 ? -shift : shift)),
				shift > 0 ? "earlier" : "later");
		fputs("; a GPM value is the mean over the window since the previous sample.</p>\n",
		      f);
	}
}

void html_memory(FILE *f, const struct report *r, const char *zoom)
{
	struct html_span sp;
	int64_t dev[16];
	size_t nd = chart_devices(r, &sp, dev, 16);
	for (size_t d = 0; d < nd; d++) {
		const struct rm_section *m = NULL, *used = series_of(r, "mem_used_bytes", dev[d]);
		for (size_t i = 0; i < r->n_secs && !m; i++)
			if (strcmp(r->secs[i].id, "memory_live") == 0 &&
			    ifield(&r->secs[i], "device") == dev[d])
				m = &r->secs[i];
		if (!m && !used)
			continue;
		double max =
		    fmax(m ? (double)ifield(m, "peak_bytes") : 0, used ? series_max(used) : 0);
		max = html_nice(max > 0 ? max * 1.05 : 1);
		char chart[48], title[96], b[32], gib[32];
		snprintf(chart, sizeof(chart), "memory-%lld", (long long)dev[d]);
		snprintf(title, sizeof(title), "device memory, device %lld", (long long)dev[d]);
		double h = CTOP + CH + 22;
		fprintf(f, "<figure class=\"chart\" data-chart=\"%s\"><h3>%s</h3>", chart, title);
		html_time_svg(f, &sp, zoom, chart, title, h, 0);
		for (int k = 0; k <= 2; k++) {
			double y = CTOP + CH - CH * k / 2;
			fprintf(
			    f,
			    "<line class=\"g\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" class=\"mut\">%s</text>",
			    HTML_L, HTML_L + HTML_P, y, y, HTML_L - 4, y + 4,
			    html_bytes(gib, sizeof(gib), max * k / 2));
		}
		html_time_axis(f, &sp, CTOP + CH, CH);
		html_zoom_g(f, &sp, zoom, chart);
		const struct rm_table *t = m ? rm_section_table(m) : NULL;
		if (t && t->n_rows) {
			fputs("<path fill=\"#0072B2\" fill-opacity=\".35\" stroke=\"#0072B2\" "
			      "vector-effect=\"non-scaling-stroke\" data-mark=\"allocated\" d=\"",
			      f);
			fprintf(f, "M0 %.1f", CTOP + CH);
			for (size_t i = 0; i < t->n_rows; i++) {
				double v = (double)rm_table_cell(t, i, 1)->v.i;
				fprintf(f, "H%lldV%.1f", (long long)rm_table_cell(t, i, 0)->v.i,
					CTOP + CH - fmax(0, v) / max * CH);
			}
			fprintf(
			    f,
			    "H%dV%.1fZ\"><title>live cudaMalloc'd memory, peak %s</title></path>",
			    sp.n_bins, CTOP + CH,
			    html_bytes(b, sizeof(b), (double)ifield(m, "peak_bytes")));
		}
		if (used)
			metric_path(f, &sp, used, 1, max, CTOP);
		fputs("</g></g></svg><div class=\"keys\">", f);
		if (t && t->n_rows) {
			fputs("<span class=\"key\"><svg width=\"14\" height=\"14\" "
			      "aria-hidden=\"true\">"
			      "<rect width=\"14\" height=\"14\" fill=\"#0072B2\" "
			      "fill-opacity=\".35\"/>"
			      "</svg> ",
			      f);
			html_escf(f, "allocated by the program (cudaMalloc minus free), peak %s",
				  html_bytes(b, sizeof(b), (double)ifield(m, "peak_bytes")));
			fputs("</span>", f);
		}
		if (used)
			line_key(f, 1, "used on the device (NVML, every process and the driver)");
		fputs("</div></figure>\n", f);
	}
}
