/*
 * cmd_export.c - `gpuscope export FILE --format perfetto|csv -o OUT`: a
 * timeline for ui.perfetto.dev / chrome://tracing, or the tables as CSV.
 * FILE is a gpuscope database or a PyTorch profiler trace.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "render/perfetto.h"
#include "trace/trace_db.h"

void help_export(FILE *f)
{
	fprintf(
	    f,
	    "usage: gpuscope export FILE --format perfetto|csv -o OUT\n"
	    "\n"
	    "FILE is a gpuscope trace database or a PyTorch profiler trace (.json/.json.gz).\n"
	    "  --format perfetto   Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing)\n"
	    "  --format csv        one CSV per table in directory OUT (kernels.csv, copies.csv,\n"
	    "                      memsets.csv, api.csv, syncs.csv, ranges.csv, samples.csv)\n"
	    "  -o OUT              output file (perfetto) or directory (csv)\n"
	    "Output is written whole or not at all.\n");
}

int cmd_export(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *format = NULL;
	if (cli_wants_help(argc, argv)) {
		help_export(stdout);
		return GS_EXIT_OK;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
			if (++i >= argc)
				return usage_error("export: -o needs a path");
			out = argv[i];
		} else if (strncmp(argv[i], "--output=", 9) == 0) {
			out = argv[i] + 9;
		} else if (strcmp(argv[i], "--format") == 0 || strcmp(argv[i], "-f") == 0) {
			if (++i >= argc)
				return usage_error("export: --format needs perfetto or csv");
			format = argv[i];
		} else if (strncmp(argv[i], "--format=", 9) == 0) {
			format = argv[i] + 9;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_error("export: unknown option '%s'", argv[i]);
		} else if (!in) {
			in = argv[i];
		} else {
			return usage_error("export: unexpected argument '%s'", argv[i]);
		}
	}
	if (!in || !out || !format)
		return usage_error(
		    "export: usage: gpuscope export FILE --format perfetto|csv -o OUT");
	int csv = strcmp(format, "csv") == 0;
	if (!csv && strcmp(format, "perfetto") != 0)
		return usage_error("export: unknown format '%s' (perfetto or csv)", format);
	char err[GS_ERR_LEN];
	struct trace t;
	if (trace_load_any(&t, in, err) < 0)
		return error_print("%s", err);
	int rc = csv ? csv_export(&t, out, err) : perfetto_export(&t, out, err);
	trace_release(&t);
	if (rc < 0)
		return error_print("%s", err);
	return GS_EXIT_OK;
}
