/*
 * diff_text.c - the text form of a diff (diff_render.h): the headline
 * (span, GPU busy, primary, why), time by category, matched kernels and the
 * findings that moved, for a 100-column terminal.
 */
#include <stdio.h>
#include <string.h>

#include "render/diff_render.h"
#include "render/report_render.h"
#include "util/demangle.h"
#include "util/i18n.h"
#include "util/wrap.h"

/* "1.23x", or "N/A" when the ratio is not defined */
static const char *ratio_text(char *buf, size_t n, double r)
{
	if (r != r)
		snprintf(buf, n, "N/A");
	else
		snprintf(buf, n, "%.2fx", r);
	return buf;
}

static const char *kernel_cell(char *buf, size_t n, const struct diff_kstat *s, int count)
{
	if (!s->present)
		snprintf(buf, n, "N/A");
	else if (count)
		snprintf(buf, n, "%llu", (unsigned long long)s->count);
	else
		report_fmt_ns(buf, n, (double)s->total_ns);
	return buf;
}

static void headline(FILE *f, const struct diff *d)
{
	char x[32], y[32], z[32], r[16];
	const struct diff_side *A = &d->base, *B = &d->new_;
	fprintf(f, _("gpuscope diff: %s (base) -> %s (new)\n\n"), A->path, B->path);
	report_fmt_ns(x, 32, (double)A->span_ns);
	report_fmt_ns(y, 32, (double)B->span_ns);
	report_fmt_ns(z, 32, (double)(B->span_ns - A->span_ns));
	if (d->verdict == DIFF_NO_WORK)
		fprintf(f,
			_("  span      %s -> %s  (%s; %s has no GPU work: nothing to compare)\n"),
			x, y, z,
			!A->has_gpu_work && !B->has_gpu_work ? _("neither run")
			: !A->has_gpu_work		     ? _("the base run")
							     : _("the new run"));
	else
		fprintf(f, _("  span      %s -> %s  (%s, %s, %+.1f%%) %s\n"), x, y, z,
			ratio_text(r, sizeof(r), d->span_ratio), d->span_pct,
			d->verdict == DIFF_FASTER   ? _("faster")
			: d->verdict == DIFF_SLOWER ? _("slower")
						    : _("same"));
	fprintf(f, _("  GPU busy  %.1f%% -> %.1f%% (%+.1f points)\n"), A->busy_pct, B->busy_pct,
		B->busy_pct - A->busy_pct);
	fprintf(f, _("  primary   %s -> %s\n"), A->primary ? A->primary->id : _("none"),
		B->primary ? B->primary->id : _("none"));
	if (d->identical)
		fprintf(f, "%s",
			_("  no changes: the same span, time by category, kernels and findings\n"));
	if (d->why >= 0) {
		const struct diff_cat *c = &d->cats[d->why];
		fprintf(f, _("  why       %s: %s -> %s (%s)\n"), d->why_words,
			report_fmt_ns(x, 32, (double)c->base_ns),
			report_fmt_ns(y, 32, (double)c->new_ns),
			report_fmt_ns(z, 32, (double)(c->new_ns - c->base_ns)));
	}
	fprintf(f, "\n");
}

static void categories(FILE *f, const struct diff *d)
{
	char x[32], y[32], z[32], rs[16];
	fprintf(f, "%s\n  %-12s %12s %12s %12s %7s\n", _("TIME BY CATEGORY"), "category", "base",
		"new", "delta", "ratio");
	for (int i = 0; i < d->n_cats; i++) {
		const struct diff_cat *c = &d->cats[i];
		fprintf(
		    f, "  %-12s %12s %12s %12s %7s\n", c->name,
		    report_fmt_ns(x, 32, (double)c->base_ns),
		    report_fmt_ns(y, 32, (double)c->new_ns),
		    report_fmt_ns(z, 32, (double)(c->new_ns - c->base_ns)),
		    ratio_text(rs, sizeof(rs), diff_ratio((double)c->base_ns, (double)c->new_ns)));
	}
}

static void kernels(FILE *f, const struct diff *d)
{
	fprintf(f, "\n%s\n", _("KERNELS (matched by name, largest change first)"));
	fprintf(f, "  %-38s %9s %9s %11s %11s %11s %7s\n", "kernel", "base n", "new n",
		"base total", "new total", "delta", "ratio");
	for (size_t i = 0; i < d->n_kernels && i < DIFF_TEXT_KERNELS; i++) {
		const struct diff_kernel *r = &d->kernels[i];
		char bn[24], nn[24], bt[32], nt[32], z[32], rs[16], nm[64];
		if (r->base.present && r->new_.present && r->base.total_ns > 0)
			snprintf(rs, sizeof(rs), "%.2fx",
				 (double)r->new_.total_ns / (double)r->base.total_ns);
		else
			snprintf(rs, sizeof(rs), "N/A");
		/* demangled and cut to one line (diff.h invariant 4) */
		char one[256];
		const char *shown = gs_one_line_name(r->name, one, sizeof(one), 200);
		size_t len = strlen(shown);
		snprintf(nm, sizeof(nm), "%s", shown);
		if (len > 38)
			snprintf(nm, sizeof(nm), "%.23s...%s", shown, shown + len - 12);
		fprintf(f, "  %-38s %9s %9s %11s %11s %11s %7s\n", nm,
			kernel_cell(bn, sizeof(bn), &r->base, 1),
			kernel_cell(nn, sizeof(nn), &r->new_, 1),
			kernel_cell(bt, sizeof(bt), &r->base, 0),
			kernel_cell(nt, sizeof(nt), &r->new_, 0),
			report_fmt_ns(z, 32, (double)r->delta_ns), rs);
	}
}

/* "  pageable_pct 100 -> 0, htod_gbps 11.7 -> 55.2": the evidence that moved */
static void moved(FILE *f, const struct diff_finding *x)
{
	if (!x->n_moved)
		return;
	char line[1024];
	size_t at = 0;
	line[0] = '\0';
	for (int i = 0; i < x->n_moved && at < sizeof(line); i++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s %.4g -> %.4g",
				       i ? ", " : "", x->moved[i].base->key, x->moved[i].base->num,
				       x->moved[i].new_->num);
	char first[64];
	snprintf(first, sizeof(first), "               %s ", _("evidence:"));
	wrap_print(f, first, "                 ", line, 100);
}

static const char *status_word(enum diff_status s)
{
	switch (s) {
	case DIFF_RESOLVED:
		return _("resolved");
	case DIFF_REDUCED:
		return _("reduced");
	case DIFF_UNCHANGED:
		return _("unchanged");
	case DIFF_INCREASED:
		return _("increased");
	default:
		return _("new");
	}
}

static void findings(FILE *f, const struct diff *d)
{
	char x[32], y[32];
	fprintf(f, "\n%s\n", _("FINDINGS"));
	if (d->identical && d->n_findings)
		fprintf(f, "%s",
			_("  no changes: the two runs have the same findings and evidence\n"));
	for (size_t i = 0; i < d->n_findings && !d->identical; i++) {
		const struct diff_finding *q = &d->findings[i];
		const struct finding *b = q->base, *n = q->new_;
		char t[sizeof(q->base->title)]; /* sizeof: not read */
		switch (q->change) {
		case DIFF_DISAPPEARED:
			fprintf(f, _("  %-12s %-16s %-8s %5.1f%%  %s\n"), status_word(q->status),
				b->id, severity_name(b->severity), b->impact_pct,
				finding_title(t, sizeof(t), b));
			break;
		case DIFF_CHANGED:
			fprintf(
			    f,
			    _("  %-12s %-16s %-8s %5.1f%% -> %5.1f%% (%+.1f) of the run: %s -> "
			      "%s\n"),
			    status_word(q->status), b->id, severity_name(n->severity),
			    b->impact_pct, n->impact_pct, n->impact_pct - b->impact_pct,
			    report_fmt_ns(x, 32, b->impact_pct / 100.0 * (double)d->base.span_ns),
			    report_fmt_ns(y, 32, n->impact_pct / 100.0 * (double)d->new_.span_ns));
			moved(f, q);
			break;
		case DIFF_APPEARED:
			fprintf(f, _("  %-12s %-16s %-8s %5.1f%%  %s\n"), status_word(q->status),
				n->id, severity_name(n->severity), n->impact_pct,
				finding_title(t, sizeof(t), n));
			break;
		}
	}
	if (!d->n_findings)
		fprintf(f, "%s", _("  none in either run\n"));
	const struct finding *p = d->why_primary;
	if (p && d->why_primary_new)
		fprintf(f,
			_("\nWHY: %s, the baseline's primary problem (%.1f%% of its run), fell to "
			  "%.1f%% in the new run.\n"),
			p->id, p->impact_pct, d->why_primary_new->impact_pct);
	else if (p)
		fprintf(f,
			_("\nWHY: %s, the baseline's primary problem (%.1f%% of its run), is gone "
			  "in the new run.\n"),
			p->id, p->impact_pct);
}

void diff_text(FILE *f, const struct diff *d)
{
	headline(f, d);
	categories(f, d);
	kernels(f, d);
	findings(f, d);
}
