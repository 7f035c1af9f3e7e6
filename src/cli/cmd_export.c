/*
 * cmd_export.c - `gpuscope export FILE --format perfetto|csv -o OUT`: a
 * timeline for ui.perfetto.dev / chrome://tracing, or the tables as CSV.
 * FILE is a trace of any reader of import/load.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analysis.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/signals.h"
#include "render/perfetto.h"
#include "trace/trace_db.h"
#include "import/load.h"

struct export_opts {
	const char *format, *output;
	int progress, force;
};

static const struct cli_option export_options[] = {
    OPT_FORMAT(struct export_opts, format, "perfetto|csv",
	       "perfetto: Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing)\n"
	       "csv: one CSV per table in directory OUT (kernels.csv, copies.csv,\n"
	       "memsets.csv, api.csv, syncs.csv, ranges.csv, samples.csv)",
	       .flags = CLI_REQUIRED),
    OPT_STRING('o', "output", struct export_opts, output, "OUT",
	       "output file (perfetto) or directory (csv)", .flags = CLI_REQUIRED),
    OPT_FORCE(struct export_opts, force),
    OPT_PROGRESS(struct export_opts, progress),
    OPT_END(),
};

const struct cli_spec cli_spec_export = {
    .name = "export",
    .args = "FILE...",
    .min_args = 1,
    .max_args = -1,
    .options = export_options,
    .description = "FILE is a trace of a format below; several FILEs or a DIR are the ranks of\n"
		   "one job, merged as report FILE... merges them: Perfetto then shows one\n"
		   "process per rank. Output is written whole or not at all.\n",
    .flags = CLI_READS_TRACES,
};

int cmd_export(int argc, char **argv)
{
	struct export_opts o = {.progress = -1};
	int n = cli_parse(&cli_spec_export, &o, argc, argv);
	if (n < 0)
		return cli_exit(n);
	cli_clean_on_signals();
	const char *in = argv[0];
	int csv = strcmp(o.format, "csv") == 0;
	struct cli_progress pr;
	cli_progress_init(&pr, o.progress);

	char err[GS_ERR_LEN];
	const char *inputs[n + 1];
	for (int i = 0; i < n; i++)
		inputs[i] = argv[i];
	inputs[n] = NULL;
	struct outfile_rule rule = perfetto_rule(o.force, inputs);
	/* refused before the input is read (util/outfile.h) */
	if (!csv && outfile_check(o.output, &rule, NULL, 0, err) < 0) {
		cli_progress_done(&pr);
		return error_print("%s", err);
	}
	struct trace t;
	cli_progress_step(&pr, "reading '%s'", in);
	int job = analysis_is_job(inputs, (size_t)n);
	struct kineto_options ko = cli_read_options(&pr);
	if ((job ? analysis_load_job(&t, inputs, (size_t)n, 0, err)
		 : trace_load_any_opt(&t, in, &ko, err)) < 0) {
		cli_progress_done(&pr);
		return error_print("%s", err);
	}
	cli_progress_step(&pr, "writing '%s'", o.output);
	uint64_t dropped = 0;
	int rc = csv ? csv_export(&t, o.output, o.force, err)
		     : perfetto_export(&t, o.output, &rule, &dropped, err);
	trace_release(&t);
	cli_progress_done(&pr);
	if (rc < 0)
		return error_print("%s", err);
	if (dropped)
		fprintf(stderr,
			"gpuscope: warning: %" PRIu64
			" slices overlapped more than %d others on their track and were left out\n",
			dropped, PERFETTO_MAX_LANES);
	if (strcmp(o.output, "-") != 0)
		cli_wrote(&pr, o.output);
	return GS_EXIT_OK;
}
