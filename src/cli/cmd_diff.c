/*
 * cmd_diff.c - `gpuscope diff BASE NEW [--format text|json]
 * [--fail-on-regression PCT]`, in the spirit of perf diff: the baseline
 * comes first, entries are matched by key (kernels by name, findings by
 * id), one-sided entries show as N/A, and both delta and ratio are given.
 * With --fail-on-regression, exits 3 when NEW's span is more than PCT
 * percent longer than BASE's (a CI gate). Format: docs/diff.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "cli/cli.h"
#include "render/report_render.h"

#define DIFF_TEXT_KERNELS 20
#define DIFF_JSON_KERNELS 200

struct side {
	const char *path, *range;
	long device; /* --device, -1 = all */
	struct trace t;
	struct analysis a;
};

struct krow {
	const char *name;
	const struct an_kernel_group *b, *n;
	int64_t delta;
};

struct diff_opts {
	const char *format, *range;
	double gate; /* -1: no gate */
	long long device;
	int progress;
};

static const struct cli_option diff_options[] = {
    OPT_FORMAT(struct diff_opts, format, "text|json", "text (default) or json (gpuscope.diff.v1)"),
    OPT_DOUBLE(0, "fail-on-regression", struct diff_opts, gate, "PCT", 0, 1e9,
	       "exit 3 when NEW is slower than BASE by more than PCT percent"),
    OPT_STRING(0, "range", struct diff_opts, range, "NAME",
	       "compare the spans bounded by the NVTX ranges called NAME"),
    OPT_LLONG(0, "device", struct diff_opts, device, "N", 0, 4294967294.0,
	      "compare one GPU of multi-GPU traces (see 'gpuscope help report')"),
    OPT_PROGRESS(struct diff_opts, progress),
    OPT_END(),
};

const struct cli_spec cli_spec_diff = {
    .name = "diff",
    .args = "BASE NEW",
    .min_args = 2,
    .max_args = 2,
    .options = diff_options,
    .description = "Compare a run (NEW) with its baseline (BASE): span, GPU busy, time by\n"
		   "category, top kernels matched by name (delta and ratio, N/A when one-sided),\n"
		   "findings that appeared, disappeared or changed.\n",
};

static int load(struct side *s, char *err)
{
	if (analysis_load(&s->t, s->path, err) < 0) {
		trace_release(&s->t);
		return -1;
	}
	if (s->device >= 0 && trace_keep_device(&s->t, (uint32_t)s->device, err) < 0) {
		trace_release(&s->t);
		return -1;
	}
	if (analysis_run_range(&s->a, &s->t, s->range, err) < 0) {
		trace_release(&s->t);
		return -1;
	}
	return 0;
}

static void unload(struct side *s)
{
	analysis_release(&s->a);
	trace_release(&s->t);
}

struct named {
	const char *name;
	const struct an_kernel_group *g;
};

static int cmp_named(const void *x, const void *y)
{
	return strcmp(((const struct named *)x)->name, ((const struct named *)y)->name);
}

static int cmp_krow(const void *x, const void *y)
{
	const struct krow *a = x, *b = y;
	int64_t da = llabs(a->delta), db = llabs(b->delta);
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

static struct named *names_of(const struct side *s)
{
	struct named *v = calloc(s->a.n_kgroups + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < s->a.n_kgroups; i++) {
		v[i].name = trace_str(&s->t, s->a.kgroups[i].name_id);
		v[i].g = &s->a.kgroups[i];
	}
	qsort(v, s->a.n_kgroups, sizeof(*v), cmp_named);
	return v;
}

/* Kernel rows matched by name, sorted by |delta| (largest change first). */
static struct krow *match_kernels(const struct side *b, const struct side *n, size_t *out_n)
{
	struct named *vb = names_of(b), *vn = names_of(n);
	struct krow *rows = calloc(b->a.n_kgroups + n->a.n_kgroups + 1, sizeof(*rows));
	size_t i = 0, j = 0, k = 0;
	if (!vb || !vn || !rows) {
		free(vb);
		free(vn);
		free(rows);
		return NULL;
	}
	while (i < b->a.n_kgroups || j < n->a.n_kgroups) {
		int c = i == b->a.n_kgroups   ? 1
			: j == n->a.n_kgroups ? -1
					      : strcmp(vb[i].name, vn[j].name);
		struct krow *r = &rows[k++];
		if (c <= 0) {
			r->name = vb[i].name;
			r->b = vb[i++].g;
		}
		if (c >= 0) {
			r->name = vn[j].name;
			r->n = vn[j++].g;
		}
		r->delta = (r->n ? r->n->sum_ns : 0) - (r->b ? r->b->sum_ns : 0);
	}
	qsort(rows, k, sizeof(*rows), cmp_krow);
	free(vb);
	free(vn);
	*out_n = k;
	return rows;
}

static double ratio(double b, double n)
{
	return b > 0 ? n / b : NAN;
}

struct cat {
	const char *name;
	int64_t b, n;
};

static int cats(const struct analysis *b, const struct analysis *n, struct cat *c)
{
	int k = 0;
	c[k++] = (struct cat){"span", b->span_ns, n->span_ns};
	c[k++] = (struct cat){"gpu_busy", b->busy_ns, n->busy_ns};
	c[k++] = (struct cat){"kernels", b->kernel_ns, n->kernel_ns};
	c[k++] = (struct cat){"copies", b->copy_ns, n->copy_ns};
	for (int i = 1; i < 6; i++)
		if (b->copy_kind_ns[i] || n->copy_kind_ns[i])
			c[k++] =
			    (struct cat){copy_kind_name(i), b->copy_kind_ns[i], n->copy_kind_ns[i]};
	c[k++] = (struct cat){"memsets", b->memset_ns, n->memset_ns};
	c[k++] = (struct cat){"idle", b->idle.total_ns, n->idle.total_ns};
	c[k++] = (struct cat){"idle_host", b->idle.host_ns, n->idle.host_ns};
	c[k++] = (struct cat){"idle_dispatch", b->idle.dispatch_ns, n->idle.dispatch_ns};
	c[k++] = (struct cat){"idle_launch", b->idle.launch_ns, n->idle.launch_ns};
	c[k++] = (struct cat){"idle_sync", b->idle.sync_ns, n->idle.sync_ns};
	c[k++] = (struct cat){"idle_copy", b->idle.copy_ns, n->idle.copy_ns};
	c[k++] = (struct cat){"idle_cuda_api", b->idle.api_ns, n->idle.api_ns};
	return k;
}

/* The category whose time changed most (what the span change is made of):
 * kernels, copies, memsets and the idle classes; -1 when none changed. */
static int why(const struct cat *c, int nc)
{
	int best = -1;
	int64_t most = 0;
	for (int i = 0; i < nc; i++) {
		const char *n = c[i].name;
		if (!strcmp(n, "span") || !strcmp(n, "gpu_busy") || !strcmp(n, "idle") ||
		    !strcmp(n, "copies") || !strcmp(n, "memsets"))
			continue;
		int64_t d = c[i].n - c[i].b;
		d = d < 0 ? -d : d;
		if (d > most) {
			most = d;
			best = i;
		}
	}
	return best;
}

static const char *cat_words(const char *name)
{
	static const struct {
		const char *id, *words;
	} w[] = {
	    {"kernels", "kernel time"},
	    {"idle_host", "GPU idle while the host works outside CUDA"},
	    {"idle_dispatch", "GPU idle while the host dispatches call after call"},
	    {"idle_launch", "GPU idle waiting on kernel launches"},
	    {"idle_sync", "GPU idle around blocking synchronizations"},
	    {"idle_copy", "GPU idle during copy calls"},
	    {"idle_cuda_api", "GPU idle inside other CUDA calls"},
	    {"HtoD", "host-to-device copy time"},
	    {"DtoH", "device-to-host copy time"},
	    {"DtoD", "device-to-device copy time"},
	    {"HtoH", "host-to-host copy time"},
	    {"PtoP", "peer-to-peer copy time"},
	};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (!strcmp(w[i].id, name))
			return w[i].words;
	return name;
}

static void text(const struct side *b, const struct side *n, const struct krow *rows, size_t nrows,
		 double span_pct)
{
	char x[32], y[32], z[32], nm[64];
	const struct analysis *A = &b->a, *B = &n->a;
	printf("gpuscope diff: %s (base) -> %s (new)\n\n", b->path, n->path);
	printf("  span      %s -> %s  (%s, %.2fx, %+.1f%%) %s\n",
	       report_fmt_ns(x, 32, (double)A->span_ns), report_fmt_ns(y, 32, (double)B->span_ns),
	       report_fmt_ns(z, 32, (double)(B->span_ns - A->span_ns)),
	       ratio((double)A->span_ns, (double)B->span_ns), span_pct,
	       span_pct < 0   ? "faster"
	       : span_pct > 0 ? "slower"
			      : "same");
	printf("  GPU busy  %.1f%% -> %.1f%% (%+.1f points)\n", an_pct(A, (double)A->busy_ns),
	       an_pct(B, (double)B->busy_ns),
	       an_pct(B, (double)B->busy_ns) - an_pct(A, (double)A->busy_ns));
	printf("  primary   %s -> %s\n", A->primary ? A->primary->id : "none",
	       B->primary ? B->primary->id : "none");

	struct cat c[20];
	int nc = cats(A, B, c);
	int w = why(c, nc);
	if (w >= 0)
		printf("  why       %s: %s -> %s (%s)\n", cat_words(c[w].name),
		       report_fmt_ns(x, 32, (double)c[w].b), report_fmt_ns(y, 32, (double)c[w].n),
		       report_fmt_ns(z, 32, (double)(c[w].n - c[w].b)));
	printf("\n");
	printf("TIME BY CATEGORY\n  %-12s %12s %12s %12s %7s\n", "category", "base", "new", "delta",
	       "ratio");
	for (int i = 0; i < nc; i++) {
		double r = ratio((double)c[i].b, (double)c[i].n);
		char rs[16];
		if (isnan(r))
			snprintf(rs, sizeof(rs), "N/A");
		else
			snprintf(rs, sizeof(rs), "%.2fx", r);
		printf("  %-12s %12s %12s %12s %7s\n", c[i].name,
		       report_fmt_ns(x, 32, (double)c[i].b), report_fmt_ns(y, 32, (double)c[i].n),
		       report_fmt_ns(z, 32, (double)(c[i].n - c[i].b)), rs);
	}

	printf("\nKERNELS (matched by name, largest change first)\n");
	printf("  %-38s %9s %9s %11s %11s %11s %7s\n", "kernel", "base n", "new n", "base total",
	       "new total", "delta", "ratio");
	for (size_t i = 0; i < nrows && i < DIFF_TEXT_KERNELS; i++) {
		const struct krow *r = &rows[i];
		char bn[24], nn[24], bt[32], nt[32], rs[16];
		snprintf(bn, sizeof(bn), r->b ? "%llu" : "N/A",
			 r->b ? (unsigned long long)r->b->count : 0ULL);
		snprintf(nn, sizeof(nn), r->n ? "%llu" : "N/A",
			 r->n ? (unsigned long long)r->n->count : 0ULL);
		if (r->b)
			report_fmt_ns(bt, 32, (double)r->b->sum_ns);
		else
			snprintf(bt, sizeof(bt), "N/A");
		if (r->n)
			report_fmt_ns(nt, 32, (double)r->n->sum_ns);
		else
			snprintf(nt, sizeof(nt), "N/A");
		if (r->b && r->n && r->b->sum_ns > 0)
			snprintf(rs, sizeof(rs), "%.2fx",
				 (double)r->n->sum_ns / (double)r->b->sum_ns);
		else
			snprintf(rs, sizeof(rs), "N/A");
		size_t len = strlen(r->name);
		snprintf(nm, sizeof(nm), "%s", r->name);
		if (len > 38)
			snprintf(nm, sizeof(nm), "%.23s...%s", r->name, r->name + len - 12);
		printf("  %-38s %9s %9s %11s %11s %11s %7s\n", nm, bn, nn, bt, nt,
		       report_fmt_ns(z, 32, (double)r->delta), rs);
	}

	printf("\nFINDINGS\n");
	int any = 0;
	for (size_t i = 0; i < A->findings.n; i++) {
		const struct finding *f = &A->findings.v[i];
		const struct finding *g = finding_find(&B->findings, f->id);
		if (!g)
			printf("  disappeared  %-16s %-8s %5.1f%%  %s\n", f->id,
			       severity_name(f->severity), f->impact_pct, f->title);
		else
			printf("  changed      %-16s %-8s %5.1f%% -> %5.1f%% (%+.1f) of the run: "
			       "%s -> "
			       "%s\n",
			       f->id, severity_name(g->severity), f->impact_pct, g->impact_pct,
			       g->impact_pct - f->impact_pct,
			       report_fmt_ns(x, 32, f->impact_pct / 100.0 * (double)A->span_ns),
			       report_fmt_ns(y, 32, g->impact_pct / 100.0 * (double)B->span_ns));
		any = 1;
	}
	for (size_t i = 0; i < B->findings.n; i++) {
		const struct finding *g = &B->findings.v[i];
		if (finding_find(&A->findings, g->id))
			continue;
		printf("  appeared     %-16s %-8s %5.1f%%  %s\n", g->id, severity_name(g->severity),
		       g->impact_pct, g->title);
		any = 1;
	}
	if (!any)
		printf("  none in either run\n");
	if (A->primary && (!B->primary || strcmp(A->primary->id, B->primary->id)) && span_pct < 0) {
		const struct finding *g = finding_find(&B->findings, A->primary->id);
		if (g)
			printf("\nWHY: %s, the baseline's primary problem (%.1f%% of its run), "
			       "fell to "
			       "%.1f%% in the new run.\n",
			       A->primary->id, A->primary->impact_pct, g->impact_pct);
		else
			printf("\nWHY: %s, the baseline's primary problem (%.1f%% of its run), is "
			       "gone "
			       "in the new run.\n",
			       A->primary->id, A->primary->impact_pct);
	}
}

static void json_side(struct json_out *j, const char *key, const struct side *s)
{
	json_key(j, key);
	json_begin_object(j);
	json_kv_string(j, "file", s->path);
	json_kv_string(j, "source", s->a.source);
	json_kv_int(j, "span_ns", s->a.span_ns);
	json_kv_double(j, "gpu_busy_pct", an_pct(&s->a, (double)s->a.busy_ns));
	json_kv_int(j, "kernels", (int64_t)s->a.n_kernels);
	json_key(j, "primary");
	if (s->a.primary)
		json_string(j, s->a.primary->id);
	else
		json_null(j);
	json_end_object(j);
}

static void json_ratio(struct json_out *j, const char *k, double b, double n)
{
	json_key(j, k);
	double r = ratio(b, n);
	if (isnan(r))
		json_null(j);
	else
		json_double(j, r);
}

static void json_kgroup(struct json_out *j, const char *k, const struct an_kernel_group *g)
{
	json_key(j, k);
	if (!g) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_kv_int(j, "count", (int64_t)g->count);
	json_kv_int(j, "total_ns", g->sum_ns);
	json_kv_double(j, "mean_ns", (double)g->sum_ns / (double)g->count);
	json_kv_int(j, "median_ns", g->median_ns);
	json_end_object(j);
}

static void json_finding(struct json_out *j, const struct finding *f)
{
	json_begin_object(j);
	json_kv_string(j, "id", f->id);
	json_kv_string(j, "severity", severity_name(f->severity));
	json_kv_double(j, "impact_pct", f->impact_pct);
	json_kv_string(j, "title", f->title);
	json_end_object(j);
}

static void json(const struct side *b, const struct side *n, const struct krow *rows, size_t nrows,
		 double span_pct, double gate, int regressed)
{
	const struct analysis *A = &b->a, *B = &n->a;
	struct json_out j;
	json_out_init(&j, stdout, 1);
	json_begin_object(&j);
	json_kv_string(&j, "schema", "gpuscope.diff.v1");
	json_side(&j, "base", b);
	json_side(&j, "new", n);
	json_key(&j, "span");
	json_begin_object(&j);
	json_kv_int(&j, "base_ns", A->span_ns);
	json_kv_int(&j, "new_ns", B->span_ns);
	json_kv_int(&j, "delta_ns", B->span_ns - A->span_ns);
	json_ratio(&j, "ratio", (double)A->span_ns, (double)B->span_ns);
	json_kv_double(&j, "delta_pct", span_pct);
	json_end_object(&j);
	json_key(&j, "gpu_busy_pct");
	json_begin_object(&j);
	json_kv_double(&j, "base", an_pct(A, (double)A->busy_ns));
	json_kv_double(&j, "new", an_pct(B, (double)B->busy_ns));
	json_kv_double(&j, "delta", an_pct(B, (double)B->busy_ns) - an_pct(A, (double)A->busy_ns));
	json_end_object(&j);
	struct cat c[20];
	int nc = cats(A, B, c);
	json_key(&j, "categories");
	json_begin_array(&j);
	for (int i = 0; i < nc; i++) {
		json_begin_object(&j);
		json_kv_string(&j, "name", c[i].name);
		json_kv_int(&j, "base_ns", c[i].b);
		json_kv_int(&j, "new_ns", c[i].n);
		json_kv_int(&j, "delta_ns", c[i].n - c[i].b);
		json_ratio(&j, "ratio", (double)c[i].b, (double)c[i].n);
		json_end_object(&j);
	}
	json_end_array(&j);
	int w = why(c, nc);
	json_key(&j, "why");
	if (w >= 0) {
		json_begin_object(&j);
		json_kv_string(&j, "category", c[w].name);
		json_kv_string(&j, "words", cat_words(c[w].name));
		json_kv_int(&j, "delta_ns", c[w].n - c[w].b);
		json_end_object(&j);
	} else {
		json_null(&j);
	}
	json_key(&j, "kernels");
	json_begin_array(&j);
	for (size_t i = 0; i < nrows && i < DIFF_JSON_KERNELS; i++) {
		json_begin_object(&j);
		json_kv_string(&j, "name", rows[i].name);
		json_kgroup(&j, "base", rows[i].b);
		json_kgroup(&j, "new", rows[i].n);
		json_kv_int(&j, "delta_ns", rows[i].delta);
		if (rows[i].b && rows[i].n)
			json_ratio(&j, "ratio", (double)rows[i].b->sum_ns,
				   (double)rows[i].n->sum_ns);
		else
			json_kv_string(&j, "ratio", "N/A");
		json_end_object(&j);
	}
	json_end_array(&j);
	json_key(&j, "findings");
	json_begin_object(&j);
	json_key(&j, "appeared");
	json_begin_array(&j);
	for (size_t i = 0; i < B->findings.n; i++)
		if (!finding_find(&A->findings, B->findings.v[i].id))
			json_finding(&j, &B->findings.v[i]);
	json_end_array(&j);
	json_key(&j, "disappeared");
	json_begin_array(&j);
	for (size_t i = 0; i < A->findings.n; i++)
		if (!finding_find(&B->findings, A->findings.v[i].id))
			json_finding(&j, &A->findings.v[i]);
	json_end_array(&j);
	json_key(&j, "changed");
	json_begin_array(&j);
	for (size_t i = 0; i < A->findings.n; i++) {
		const struct finding *f = &A->findings.v[i];
		const struct finding *g = finding_find(&B->findings, f->id);
		if (!g)
			continue;
		json_begin_object(&j);
		json_kv_string(&j, "id", f->id);
		json_kv_string(&j, "base_severity", severity_name(f->severity));
		json_kv_string(&j, "new_severity", severity_name(g->severity));
		json_kv_double(&j, "base_impact_pct", f->impact_pct);
		json_kv_double(&j, "new_impact_pct", g->impact_pct);
		json_kv_double(&j, "delta_impact_pct", g->impact_pct - f->impact_pct);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_key(&j, "regression");
	json_begin_object(&j);
	json_key(&j, "threshold_pct");
	if (gate >= 0)
		json_double(&j, gate);
	else
		json_null(&j);
	json_kv_bool(&j, "regressed", regressed);
	json_end_object(&j);
	json_end_object(&j);
	putchar('\n');
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = {.format = "text", .gate = -1, .device = -1, .progress = -1};
	int np = cli_parse(&cli_spec_diff, &o, argc, argv);
	if (np < 0)
		return cli_exit(np);
	const char *paths[2] = {argv[0], argv[1]}, *format = o.format, *range = o.range;
	double gate = o.gate;
	long device = (long)o.device;

	char err[GS_ERR_LEN] = "";
	struct side b = {.path = paths[0], .range = range, .device = device},
		    n = {.path = paths[1], .range = range, .device = device};
	if (load(&b, err) < 0)
		return error_print("diff: '%s': %s", b.path, err);
	if (load(&n, err) < 0) {
		unload(&b);
		return error_print("diff: '%s': %s", n.path, err);
	}
	size_t nrows = 0;
	struct krow *rows = match_kernels(&b, &n, &nrows);
	int rc = GS_EXIT_OK;
	if (!rows) {
		rc = error_print("diff: out of memory");
		goto out;
	}
	double span_pct =
	    b.a.span_ns > 0 ? 100.0 * (double)(n.a.span_ns - b.a.span_ns) / (double)b.a.span_ns : 0;
	int regressed = gate >= 0 && span_pct > gate;
	if (strcmp(format, "json") == 0)
		json(&b, &n, rows, nrows, span_pct, gate, regressed);
	else
		text(&b, &n, rows, nrows, span_pct);
	if (fflush(stdout) != 0 || ferror(stdout))
		rc = error_print("diff: write error");
	else if (regressed) {
		fprintf(stderr,
			"gpuscope: diff: regression: new run is %.1f%% slower than the "
			"baseline (limit %.1f%%)\n",
			span_pct, gate);
		rc = GS_EXIT_FOUND;
	}
out:
	free(rows);
	unload(&b);
	unload(&n);
	return rc;
}
