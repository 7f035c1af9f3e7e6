/*
 * cmd_explain.c - `gpuscope explain XID|ERROR-TEXT [--format text|json]`.
 * Exit 0 when explained, 1 when nothing in the catalogue matches.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "health/explain.h"
#include "health/xid.h"

void help_explain(FILE *f)
{
	fprintf(f, "usage: gpuscope explain XID|ERROR-TEXT [--format text|json]\n\n"
		   "examples: explain 79, explain xid 48, explain \"code 43\",\n"
		   "          explain \"CUDA capability sm_120 is not compatible\",\n"
		   "          explain \"torch.cuda.is_available() False\"\n");
}

int cmd_explain(int argc, char **argv)
{
	char q[1024] = "";
	size_t used = 0;
	int json = 0, xid;
	const struct explain_entry *e;

	if (cli_wants_help(argc, argv)) {
		help_explain(stdout);
		return GS_EXIT_OK;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--format") == 0) {
			if (i + 1 >= argc)
				return usage_error("option '--format' needs a value");
			const char *v = argv[++i];
			if (strcmp(v, "json") == 0)
				json = 1;
			else if (strcmp(v, "text") != 0)
				return usage_error("unknown format '%s' (text or json)", v);
			continue;
		}
		int w = snprintf(q + used, sizeof(q) - used, "%s%s", used ? " " : "", argv[i]);
		if (w < 0 || (size_t)w >= sizeof(q) - used)
			break;
		used += (size_t)w;
	}
	if (!used)
		return usage_error("explain needs an XID number or an error text");
	e = explain_lookup(q, &xid);
	if (!e && xid < 0)
		return error_print("no explanation for '%s' (try an XID number or the error text)",
				   q);
	if (!e && !xid_lookup(xid))
		return error_print(
		    "xid %d is not in gpuscope's catalogue (see NVIDIA's XID catalog, "
		    "docs.nvidia.com/deploy/xid-errors)",
		    xid);
	if (json)
		explain_print_json(stdout, e, xid);
	else
		explain_print_text(stdout, e, xid);
	return GS_EXIT_OK;
}
