/*
 * html.h - the pieces gpuscope's HTML pages are made of (report_html.c,
 * diff_html.c): escaping, the page frame (inline CSS and a small inline
 * script that only adds zooming), the model's sections as HTML
 * (html_model.c) and its pictures as inline SVG (html_chart*.c).
 *
 * A page is one self-contained file: nothing is fetched when it is viewed,
 * it works without JavaScript (the script only zooms the time charts), its
 * text is text (selectable, printable), and no meaning is carried by colour
 * alone: every series is labelled, every area in a chart has a pattern
 * and a <title>, and the numbers are in tables beside the pictures.
 * Charts are drawn from report model sections only (analyze/report.h);
 * their size is bounded by the model's (series.h), not by the trace.
 *
 * The DOM contract the browser test checks (tests/render/html_browser.py):
 * the verdict is #verdict; every chart is an element with class "chart"
 * and a data-chart name, and holds at least one element with a data-mark
 * attribute (a drawn datum) unless it says data-empty with a reason shown.
 */
#ifndef GPUSCOPE_RENDER_HTML_H
#define GPUSCOPE_RENDER_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

/* Writes s with <, >, &, " and ' escaped (text and attribute values). */
void html_esc(FILE *f, const char *s);
/* printf, then the result escaped. */
void html_escf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* <!DOCTYPE html> through <body>: title (escaped), the CSS, the static
 * patterns the charts and legends share. */
void html_page_begin(FILE *f, const char *title);
/* The footer, the zoom script, </body></html>. */
void html_page_end(FILE *f);

/* ---- the model as HTML (html_model.c) ---- */

/* A section's heading (h2 with the section id as anchor), lines and tables;
 * or its opening tag with the heading, and its lines and tables (the
 * caller closes it with </section>). */
void html_section(FILE *f, const struct rm_section *s);
void html_section_head(FILE *f, const struct rm_section *s);
void html_section_items(FILE *f, const struct rm_section *s);
/* A section's lines as paragraphs (joined lines as one). */
void html_lines(FILE *f, const struct rm_section *s);
/* A table's text columns; rows beyond `shown` go into a <details>. */
void html_table(FILE *f, const struct rm_table *t, size_t shown);
/* The table's rows whose column key equals value (all when key is NULL). */
void html_table_where(FILE *f, const struct rm_table *t, size_t shown, const char *key,
		      const char *value);
/* The verdict box (the primary finding, or why there is none). */
void html_verdict(FILE *f, const struct rm_section *s);
/* Every finding as a card: severity word, impact, evidence, actions. */
void html_findings(FILE *f, const struct rm_section *s);
/* Warnings as alert boxes. */
void html_warnings(FILE *f, const struct rm_section *s);

/* ---- pictures (html_chart.c, html_timeline.c) ---- */

/* Busy and idle by cause as one 100% bar, and (not compact) the time by
 * category. */
void html_span_bar(FILE *f, const struct report *r, int compact);
/* The timeline: GPU busy, idle by cause, blocking syncs and each lane.
 * zoom: the id of its zoom group (charts of one group share the x axis);
 * compact: fewer lanes, no legend (diff's side-by-side columns). */
void html_timeline(FILE *f, const struct report *r, const char *zoom, int compact);
/* The idle gaps' lengths as a histogram of idle time by cause (narrow:
 * for a column). */
void html_idle_hist(FILE *f, const struct report *r, int narrow);
/* The sampled metrics over time, GPU busy shaded (zoom group as above). */
void html_series(FILE *f, const struct report *r, const char *zoom);
/* Live device memory over time (allocations, NVML's used memory). */
void html_memory(FILE *f, const struct report *r, const char *zoom);
/* The roofline of the kernel counters section (nothing without rows). */
void html_roofline(FILE *f, const struct report *r);

/* ---- shared by the chart files ---- */

/* Chart geometry in SVG units: the picture is w wide, its plot spans x in
 * [l, l + p) (labels left of it); narrow for diff's side-by-side columns. */
#define HTML_W 1000
#define HTML_L 190
#define HTML_P 800
#define HTML_NW 600
#define HTML_NL 118
#define HTML_NP 474

struct html_span {
	int64_t t0, bin_ns;
	int n_bins;
	double w, l, p; /* geometry */
};

/* The timeline section's bins (0 when the report has none), in the wide or
 * the narrow geometry. */
int html_span_of(const struct report *r, struct html_span *sp, int narrow);
/* A time axis at y under the plot (ticks over the whole span; the script
 * redraws them when zoomed). */
void html_time_axis(FILE *f, const struct html_span *sp, double y, double h);
/* The opening tag of a time chart's <svg> of height h in zoom group zoom,
 * with its clip (named by chart) and, when patterns, the group's patterns
 * (once per group: the first chart of it). */
void html_time_svg(FILE *f, const struct html_span *sp, const char *zoom, const char *chart,
		   const char *label, double h, int patterns);
/* Opens the clipped group that zooms (x in bins from 0 to n_bins); closed
 * with "</g></g>". */
void html_zoom_g(FILE *f, const struct html_span *sp, const char *zoom, const char *chart);
/* A pattern fill reference for a series kind ("kernel", "copy", ...): in a
 * zoom group (zoom != NULL) or static (legends, bars). */
const char *html_fill(char *buf, size_t n, const char *kind, const char *zoom);
/* A legend swatch and label. */
void html_key(FILE *f, const char *kind, const char *label);
/* The cause names the charts use, by enum an_idle_cause order. */
extern const char *const html_cause_kind[6];
extern const char *const html_cause_label[6];

/* A nice number for an axis: 1, 2 or 5 times a power of ten >= x. */
double html_nice(double x);
/* A byte count for reading: "1.50 GiB", "512 MiB". */
const char *html_bytes(char *buf, size_t n, double bytes);

#endif
