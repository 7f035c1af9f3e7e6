/*
 * cmd_diff.c - `gpuscope diff BASE NEW [--format text|json|html]
 * [--fail-on-regression PCT]`: loads and analyses both runs as report does,
 * then hands them to the diff engine (analyze/diff.h) and its renderers
 * (render/diff_render.h). Exit codes: 3 when the gate finds a regression,
 * 4 when a side has no GPU work to gate on (docs/diff.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "diagnose/diagnose.h"
#include "diagnose/diff.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "render/diff_render.h"
#include "render/report_render.h"

struct side {
	const char *path;
	struct trace t;
	struct analysis a;
};

struct diff_opts {
	const char *format, *range, *lang;
	double gate; /* -1: no gate */
	long long device;
	int progress;
};

static const struct cli_option diff_options[] = {
    OPT_FORMAT(struct diff_opts, format, "text|json|html",
	       "text (default), json (gpuscope.diff.v1) or html (one page,\n"
	       "both runs side by side)"),
    OPT_DOUBLE(0, "fail-on-regression", struct diff_opts, gate, "PCT", 0, 1e9,
	       "exit 3 when NEW is slower than BASE by more than PCT percent"),
    OPT_STRING(0, "range", struct diff_opts, range, "NAME",
	       "compare the spans bounded by the NVTX ranges called NAME"),
    OPT_LLONG(0, "device", struct diff_opts, device, "N", 0, 4294967294.0,
	      "compare one GPU of multi-GPU traces (see 'gpuscope help report')"),
    OPT_LANG(struct diff_opts, lang),
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
    .footer = "exit status: 0 compared (and within the limit), 1 error, 2 usage, 3 NEW\n"
	      "regressed by more than PCT, 4 --fail-on-regression with a side that has no\n"
	      "GPU work (an empty recording does not pass a gate)\n",
};

static int load(struct side *s, const struct diff_opts *o, struct cli_progress *pr, char *err)
{
	cli_progress_step(pr, "reading '%s'", s->path);
	struct kineto_options ko = cli_read_options(pr);
	if (analysis_load_opt(&s->t, s->path, &ko, err) < 0 ||
	    (o->device >= 0 && trace_keep_device(&s->t, (uint32_t)o->device, err) < 0)) {
		trace_release(&s->t);
		return -1;
	}
	cli_progress_step(pr, "analysing '%s'", s->path);
	if (analysis_run_range(&s->a, &s->t, o->range, err) < 0) {
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

/* The HTML page: the diff and both runs' reports. 0, or -1 with err. */
static int html_page(const struct diff *d, const struct side *b, const struct side *n, char *err)
{
	/* report_build reads a run's result; a diff side is one analysis, borrowed
	 * as the result's `all` while the page is written */
	struct analysis_result xb = {.all = b->a, .device = -1}, xn = {.all = n->a, .device = -1};
	struct report rb, rn;
	if (report_build(&rb, &xb, b->path, err) < 0)
		return -1;
	if (report_build(&rn, &xn, n->path, err) < 0) {
		report_release(&rb);
		return -1;
	}
	diff_html(stdout, d, &rb, &rn);
	report_release(&rb);
	report_release(&rn);
	return 0;
}

/* The exit code of a diff that was printed. */
static int gate_result(const struct diff *d)
{
	if (d->gate == DIFF_GATE_REGRESSED) {
		fprintf(stderr,
			"gpuscope: diff: regression: new run is %.1f%% slower than the "
			"baseline (limit %.1f%%)\n",
			d->span_pct, d->gate_pct);
		return GS_EXIT_FOUND;
	}
	if (d->gate == DIFF_GATE_NO_WORK) {
		const struct diff_side *s = d->base.has_gpu_work ? &d->new_ : &d->base;
		fprintf(stderr,
			"gpuscope: diff: cannot gate: '%s' has no GPU work (no kernel, copy or "
			"memset)\n",
			s->path);
		return GS_EXIT_NO_WORK;
	}
	return GS_EXIT_OK;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = {.format = "text", .gate = -1, .device = -1, .progress = -1};
	int np = cli_parse(&cli_spec_diff, &o, argc, argv);
	if (np < 0)
		return cli_exit(np);
	if (o.range && !*o.range)
		return cli_usage_error(&cli_spec_diff, "--range needs the name of a range");
	struct cli_progress pr;
	cli_progress_init(&pr, o.progress);
	char err[GS_ERR_LEN] = "";
	struct side b = {.path = argv[0]}, n = {.path = argv[1]};
	if (load(&b, &o, &pr, err) < 0) {
		cli_progress_done(&pr);
		return error_print_file("diff", b.path, err);
	}
	if (load(&n, &o, &pr, err) < 0) {
		cli_progress_done(&pr);
		unload(&b);
		return error_print_file("diff", n.path, err);
	}
	cli_progress_done(&pr);
	struct diff d;
	int rc;
	if (diff_build(&d, &b.a, b.path, &n.a, n.path, o.gate, err) < 0) {
		rc = error_print("diff: %s", err);
		goto out;
	}
	errno = 0;
	if (strcmp(o.format, "json") == 0)
		diff_json(stdout, &d);
	else if (strcmp(o.format, "html") == 0 && html_page(&d, &b, &n, err) < 0) {
		rc = error_print("diff: %s", err);
		diff_release(&d);
		goto out;
	} else if (strcmp(o.format, "text") == 0)
		diff_text(stdout, &d);
	rc = cli_stdout_done("diff");
	if (rc == GS_EXIT_OK)
		rc = gate_result(&d);
	diff_release(&d);
out:
	unload(&b);
	unload(&n);
	return rc;
}
