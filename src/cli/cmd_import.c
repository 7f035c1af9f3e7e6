/*
 * cmd_import.c - `gpuscope import TRACE -o FILE`: a PyTorch profiler
 * (kineto) trace, .json or .json.gz, into a gpuscope trace database.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "import/kineto.h"
#include "trace/trace_db.h"

void help_import(FILE *f)
{
	fprintf(f,
		"usage: gpuscope import TRACE -o FILE [--progress | --no-progress]\n"
		"\n"
		"Converts a PyTorch profiler (kineto) chrome trace (.json or .json.gz, detected\n"
		"by content) into a gpuscope trace database. FILE is written whole or not at all;\n"
		"an existing FILE is replaced only when it is a gpuscope trace.\n"
		"  -o FILE          output database\n"
		"  --progress       progress on stderr even when stderr is not a terminal\n"
		"  --no-progress    no progress\n");
}

int cmd_import(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	if (cli_wants_help(argc, argv)) {
		help_import(stdout);
		return GS_EXIT_OK;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
			if (++i >= argc)
				return usage_error("import: -o needs a file");
			out = argv[i];
		} else if (strncmp(argv[i], "--output=", 9) == 0) {
			out = argv[i] + 9;
		} else if (strcmp(argv[i], "--progress") == 0) {
			kineto_set_progress(1);
		} else if (strcmp(argv[i], "--no-progress") == 0) {
			kineto_set_progress(0);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_error("import: unknown option '%s'", argv[i]);
		} else if (!in) {
			in = argv[i];
		} else {
			return usage_error("import: unexpected argument '%s'", argv[i]);
		}
	}
	if (!in || !out)
		return usage_error("import: usage: gpuscope import TRACE -o FILE");
	struct stat sb;
	if (stat(out, &sb) == 0 && !trace_db_is_gpuscope(out))
		return error_print("refusing to overwrite '%s': not a gpuscope trace", out);
	if (trace_db_is_gpuscope(in))
		return error_print("'%s' is already a gpuscope trace database", in);

	char err[GS_ERR_LEN];
	struct trace t;
	if (kineto_load(&t, in, err) < 0)
		return error_print("%s", err);
	int rc = trace_db_save(out, &t, err);
	if (rc < 0) {
		trace_release(&t);
		return error_print("%s", err);
	}
	const char *unk = trace_get_meta(&t, "import.unknown");
	printf("wrote %s: %zu kernels, %zu copies, %zu memsets, %zu api calls, %zu syncs, "
	       "%zu ranges%s%s\n",
	       out, t.n_kernels, t.n_copies, t.n_memsets, t.n_apis, t.n_syncs, t.n_ranges,
	       unk && *unk ? "; skipped " : "", unk && *unk ? unk : "");
	trace_release(&t);
	return GS_EXIT_OK;
}
