/*
 * cmd_import.c - `gpuscope import TRACE -o FILE`: a trace of another
 * format than gpuscope's own (any other reader of import/load.h: a PyTorch
 * profiler trace today) into a gpuscope trace database.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/signals.h"
#include "import/kineto.h"
#include "import/load.h"
#include "trace/trace_db.h"

struct import_opts {
	const char *output;
	int progress, force;
	long long max_events;
};

static const struct cli_option import_options[] = {
    OPT_OUTPUT(struct import_opts, output, "output database", .flags = CLI_REQUIRED),
    OPT_FORCE(struct import_opts, force),
    OPT_LLONG(0, "max-events", struct import_opts, max_events, "N", 1, 1e15,
	      "refuse a trace of more than N events, counted as they are read (bounds\n"
	      "the memory an untrusted file can take: a 2 MB .json.gz can hold millions)"),
    OPT_PROGRESS(struct import_opts, progress),
    OPT_END(),
};

const struct cli_spec cli_spec_import = {
    .name = "import",
    .args = "TRACE",
    .min_args = 1,
    .max_args = 1,
    .options = import_options,
    .description =
	"Converts a trace of another format below (told apart by content) into a gpuscope\n"
	"trace database. FILE is written whole or not at all; an existing FILE is\n"
	"replaced only when it is a gpuscope trace.\n",
    .flags = CLI_READS_TRACES,
};

int cmd_import(int argc, char **argv)
{
	struct import_opts o = {.progress = -1};
	int n = cli_parse(&cli_spec_import, &o, argc, argv);
	if (n < 0)
		return cli_exit(n);
	cli_clean_on_signals();
	const char *in = argv[0];
	if (cli_output_is_stdout(o.output))
		return cli_usage_error(&cli_spec_import, "a database cannot be written to stdout");
	char err[GS_ERR_LEN];
	const char *inputs[] = {in, NULL};
	struct outfile_rule rule = trace_db_rule(o.force, inputs);
	int target = outfile_check(o.output, &rule, NULL, 0, err);
	if (target < 0)
		return error_print("%s", err);
	if (trace_db_is_gpuscope(in))
		return error_print("'%s' is already a gpuscope trace database", in);

	struct cli_progress pr;
	cli_progress_init(&pr, o.progress);
	struct kineto_options ko = cli_read_options(&pr);
	ko.max_events = (uint64_t)o.max_events;
	struct trace t;
	if (trace_load_any_opt(&t, in, &ko, err) < 0)
		return error_print("%s", err);
	cli_progress_step(&pr, "writing '%s'", o.output);
	if (target == OUTFILE_REPLACE && trace_db_is_gpuscope(o.output))
		fprintf(stderr, "gpuscope: replacing the gpuscope database '%s'\n", o.output);
	else if (target == OUTFILE_REPLACE)
		fprintf(stderr, "gpuscope: replacing '%s' (--force)\n", o.output);
	int rc = trace_db_save_as(o.output, &t, &rule, err);
	cli_progress_done(&pr);
	if (rc < 0) {
		trace_release(&t);
		return error_print("%s", err);
	}
	const char *unk = trace_get_meta(&t, "import.unknown");
	fprintf(stderr,
		"gpuscope: wrote '%s': %zu kernels, %zu copies, %zu memsets, %zu api calls, "
		"%zu syncs, %zu ranges%s%s\n",
		o.output, t.n_kernels, t.n_copies, t.n_memsets, t.n_apis, t.n_syncs, t.n_ranges,
		unk && *unk ? "; skipped " : "", unk && *unk ? unk : "");
	trace_release(&t);
	return GS_EXIT_OK;
}
