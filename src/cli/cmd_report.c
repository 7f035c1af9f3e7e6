/*
 * cmd_report.c - `gpuscope report FILE [--format text|json|html]`: load a
 * gpuscope database or a PyTorch profiler trace (by content), analyse it,
 * print the diagnosis to stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "cli/cli.h"
#include "render/report_render.h"

/* Like cli_wants_help (main.c), kept local so this file links on its own. */
static int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	return 0;
}

void help_report(FILE *f)
{
	fprintf(f,
		"usage: gpuscope report FILE [--format text|json|html] [--range NAME] [--whole]\n"
		"                            [--device N]\n\n"
		"Diagnose a gpuscope trace database or a PyTorch profiler trace (.json or\n"
		".json.gz, detected by content): where the time goes, why, and what to change.\n"
		"The verdict comes first; --format json is schema gpuscope.report.v1\n"
		"(docs/report-json.md). --range NAME bounds the analysed span by the NVTX\n"
		"ranges (or PyTorch annotations) called NAME: first start to last end.\n"
		"A recorded process is analysed from the end of its warm-up (the first\n"
		"launches of each kernel: module loading, library set-up); --whole analyses\n"
		"the recording from its first event. --device N diagnoses one GPU of a\n"
		"multi-GPU trace (its work and the processes that launched it, e.g. one\n"
		"torchrun rank); without it the devices are analysed together.\n");
}

int cmd_report(int argc, char **argv)
{
	const char *path = NULL, *format = "text", *range = NULL;
	int whole = 0;
	long device = -1;
	if (wants_help(argc, argv)) {
		help_report(stdout);
		return GS_EXIT_OK;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
			format = argv[++i];
		else if (strncmp(argv[i], "--format=", 9) == 0)
			format = argv[i] + 9;
		else if (strcmp(argv[i], "--range") == 0 && i + 1 < argc)
			range = argv[++i];
		else if (strcmp(argv[i], "--whole") == 0)
			whole = 1;
		else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
			if ((device = trace_parse_device(argv[++i])) < 0)
				return usage_error(
				    "report: --device takes a device number, not '%s'", argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1])
			return usage_error("report: unknown option '%s'", argv[i]);
		else if (!path)
			path = argv[i];
		else
			return usage_error("report: one trace file expected, got '%s' too",
					   argv[i]);
	}
	if (!path)
		return usage_error("report: missing trace file (see 'gpuscope report --help')");
	if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "html"))
		return usage_error("report: unknown format '%s' (text, json or html)", format);

	char err[GS_ERR_LEN] = "";
	struct trace t;
	if (analysis_load(&t, path, err) < 0) {
		trace_release(&t);
		return error_print("report: '%s': %s", path, err);
	}
	if (device >= 0 && trace_keep_device(&t, (uint32_t)device, err) < 0) {
		trace_release(&t);
		return error_print("report: '%s': %s", path, err);
	}
	struct analysis a;
	if (analysis_run_opts(&a, &t, range, whole, err) < 0) {
		trace_release(&t);
		return error_print("report: '%s': %s", path, err);
	}
	if (strcmp(format, "json") == 0)
		report_json(stdout, &a, path);
	else if (strcmp(format, "html") == 0)
		report_html(stdout, &a, path);
	else
		report_text(stdout, &a, path);
	int rc = fflush(stdout) == 0 && !ferror(stdout) ? GS_EXIT_OK
							: error_print("report: write error");
	analysis_release(&a);
	trace_release(&t);
	return rc;
}
