/*
 * cmd_report.c - `gpuscope report FILE... [--format text|json|html]`: load a
 * trace (any reader of import/load.h, by content), or the traces of one
 * job's ranks (several files, a directory) merged into one, analyse it,
 * print the diagnosis to stdout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "diagnose/diagnose.h"
#include "diagnose/summary.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "render/report_render.h"
#include "util/heap.h"
#include "util/timing.h"

struct report_opts {
	const char *format, *range, *lang, *output;
	int whole, progress, list_rules, summary;
	long long device; /* -1: every device */
};

static const struct cli_option report_options[] = {
    OPT_FORMAT(struct report_opts, format, "text|json|html",
	       "text (default), json (schema gpuscope.report.v1, docs/report-json.md)\n"
	       "or html"),
    OPT_STRING(0, "range", struct report_opts, range, "NAME",
	       "bound the analysed span by the NVTX ranges (or PyTorch\n"
	       "annotations) called NAME: first start to last end"),
    OPT_FLAG(0, "whole", struct report_opts, whole,
	     "analyse the recording from its first event (no warm-up cut)"),
    OPT_LLONG(0, "device", struct report_opts, device, "N", 0, 4294967294.0,
	      "diagnose one GPU of a multi-GPU trace"),
    OPT_LANG(struct report_opts, lang),
    OPT_PROGRESS(struct report_opts, progress),
    OPT_FLAG(0, "summary", struct report_opts, summary,
	     "write the rank's summary to -o FILE (.gss) instead of a report:\n"
	     "`report A.gss B.gss ...` (or a DIR of them) is the job's report"),
    OPT_OUTPUT(struct report_opts, output, "the summary's file (with --summary)"),
    OPT_FLAG(0, "list-rules", struct report_opts, list_rules,
	     "list the rules (finding ids, docs/findings.md) and their thresholds\n"
	     "instead of reading a trace; --format json for tools"),
    OPT_END(),
};

const struct cli_spec cli_spec_report = {
    .name = "report",
    .args = "FILE...",
    .min_args = 0,
    .max_args = -1,
    .options = report_options,
    .description = "Diagnose a trace (of a format below, told apart by content): where the time\n"
		   "goes, why, and what to change. The verdict comes first.\n"
		   "\n"
		   "A recorded process is analysed from the end of its warm-up (the first\n"
		   "launches of each kernel: module loading, library set-up); --whole analyses\n"
		   "the recording from its first event. --device N diagnoses one GPU of a\n"
		   "multi-GPU trace (its work and the processes that launched it, e.g. one\n"
		   "torchrun rank); without it each device is diagnosed on its own and the\n"
		   "findings say which device they were found on.\n"
		   "\n"
		   "Several FILEs, or a DIR of them, are the ranks of one distributed job (one\n"
		   "torch.profiler trace or gpuscope recording per rank; the rank from the\n"
		   "trace's distributedInfo or the recorded RANK): they are read in parallel\n"
		   "and analysed as one run, with a RANKS section (communication, exposed\n"
		   "communication, waits per rank) and the findings comm_exposed and straggler.\n"
		   "\n"
		   "For jobs too big for one machine, --summary -o RANK.gss writes one rank's\n"
		   "summary (its findings, timeline totals and collectives; docs/summary.md),\n"
		   "and FILEs that are summaries give the job's report from them alone.\n",
    .flags = CLI_READS_TRACES,
};

/* #36 item 7: the terminal's width when stdout is one (COLUMNS, else the
 * tty's), 100 otherwise (a pipe, a file, a test). */
static int terminal_cols(void)
{
	if (!isatty(STDOUT_FILENO))
		return 100;
	const char *c = getenv("COLUMNS");
	char *end;
	long v = c && *c ? strtol(c, &end, 10) : 0;
	if (c && *c && !*end && v > 0)
		return (int)v;
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 100;
}

/* rep in the chosen format on stdout; the exit code. */
static int render(const char *format, const struct report *rep)
{
	errno = 0;
	if (strcmp(format, "json") == 0)
		report_json(stdout, rep);
	else if (strcmp(format, "html") == 0)
		report_html(stdout, rep);
	else {
		report_text_set_cols(terminal_cols());
		report_text(stdout, rep);
	}
	return cli_stdout_done("report");
}

/* The job's report from summaries (diagnose/summary.h). */
static int report_summaries(const struct report_opts *o, char **argv, int n, const char *label)
{
	char err[GS_ERR_LEN] = "";
	struct summary_job j;
	if (summary_job_load(&j, (const char *const *)argv, (size_t)n, err) < 0)
		return error_print("report: %s", err);
	struct report rep;
	if (report_build_job(&rep, &j, label, err) < 0) {
		summary_job_release(&j);
		return error_print("report: %s", err);
	}
	int rc = render(o->format, &rep);
	report_release(&rep);
	summary_job_release(&j);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {.format = "text", .progress = -1, .device = -1};
	int n = cli_parse(&cli_spec_report, &o, argc, argv);
	if (n < 0)
		return cli_exit(n);
	if (o.range && !*o.range)
		return cli_usage_error(&cli_spec_report, "--range needs the name of a range");
	if (o.list_rules) {
		if (n)
			return cli_usage_error(&cli_spec_report, "--list-rules reads no trace");
		struct report r;
		char err[256];
		if (report_build_rules(&r, err) < 0)
			return error_print("report: %s", err);
		errno = 0;
		if (strcmp(o.format, "json") == 0)
			report_rules_json(stdout, &r);
		else
			report_rules_text(stdout, &r);
		report_release(&r);
		return cli_stdout_done("report");
	}
	if (n < 1)
		return cli_usage_error(&cli_spec_report, "needs FILE");
	char label[4200];
	if (n > 1)
		snprintf(label, sizeof(label), "%s and %d more", argv[0], n - 1);
	else
		snprintf(label, sizeof(label), "%s", argv[0]);
	const char *path = label;
	if (o.summary && (n != 1 || !o.output))
		return cli_usage_error(&cli_spec_report,
				       "--summary reads one rank's trace and needs -o FILE");
	if (!o.summary && o.output)
		return cli_usage_error(&cli_spec_report, "-o is the file of --summary");
	if (!o.summary && summary_is(argv[0])) {
		if (o.range || o.whole || o.device >= 0)
			return cli_usage_error(&cli_spec_report,
					       "--range, --whole and --device apply where the "
					       "summaries are written (report --summary)");
		return report_summaries(&o, argv, n, path);
	}
	(void)timing_on(); /* the timing line's start */
	struct cli_progress pr;
	cli_progress_init(&pr, o.progress);

	char err[GS_ERR_LEN] = "";
	struct trace t;
	if (n > 1)
		cli_progress_step(&pr, "reading %d traces", n);
	else
		cli_progress_step(&pr, "reading '%s'", path);
	struct kineto_options ko = cli_read_options(&pr);
	if ((analysis_is_job((const char *const *)argv, (size_t)n)
		 ? analysis_load_job(&t, (const char *const *)argv, (size_t)n, 0, err)
		 : analysis_load_opt(&t, argv[0], &ko, err)) < 0) {
		cli_progress_done(&pr);
		trace_release(&t);
		if (n > 1) /* the message names the file */
			return error_print("report: %s", err);
		return error_print_file("report", path, err);
	}
	struct analysis_result a;
	struct analysis_opts ao = {.range = o.range, .whole = o.whole, .device = o.device};
	cli_progress_step(&pr, "analysing '%s'", path);
	gs_heap_for_analysis(); /* the analysis's big arrays given back when freed */
	struct timing_mark m;
	timing_now(&m, 0);
	int arc = analysis_result_run(&a, &t, &ao, err);
	timing_add("analysis", &m, 0);
	if (arc < 0) {
		cli_progress_done(&pr);
		trace_release(&t);
		return error_print_file("report", path, err);
	}
	cli_progress_done(&pr);
	if (o.summary) {
		int src = summary_write(o.output, &a, argv[0], err);
		analysis_result_release(&a);
		trace_release(&t);
		if (src < 0)
			return error_print("report: %s", err);
		cli_wrote(&pr, o.output);
		return GS_EXIT_OK;
	}
	struct report rep;
	timing_now(&m, 0);
	int brc = report_build(&rep, &a, path, err);
	timing_add("report model", &m, 0);
	if (brc < 0) {
		analysis_result_release(&a);
		trace_release(&t);
		return error_print_file("report", path, err);
	}
	timing_now(&m, 0);
	int rc = render(o.format, &rep);
	timing_add("render", &m, 0);
	timing_now(&m, 0);
	report_release(&rep);
	analysis_result_release(&a);
	trace_release(&t);
	timing_add("free", &m, 0);
	timing_print(stderr);
	return rc;
}
