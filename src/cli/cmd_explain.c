/*
 * cmd_explain.c - `gpuscope explain XID|ERROR-TEXT [--format text|json]`.
 * Exit 0 when explained, 1 when nothing in the catalogue matches.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "health/explain.h"
#include "health/xid.h"

struct explain_opts {
	const char *format;
	int progress;
};

static const struct cli_option explain_options[] = {
    OPT_FORMAT(struct explain_opts, format, "text|json", "text (default) or json"),
    OPT_PROGRESS(struct explain_opts, progress),
    OPT_END(),
};

const struct cli_spec cli_spec_explain = {
    .name = "explain",
    .args = "XID|ERROR-TEXT...",
    .min_args = 1,
    .max_args = -1,
    .options = explain_options,
    .description = "examples: explain 79, explain xid 48, explain \"code 43\",\n"
		   "          explain \"CUDA capability sm_120 is not compatible\",\n"
		   "          explain \"torch.cuda.is_available() False\"\n",
};

int cmd_explain(int argc, char **argv)
{
	struct explain_opts o = {.format = "text", .progress = -1};
	int n = cli_parse(&cli_spec_explain, &o, argc, argv);
	if (n < 0)
		return cli_exit(n);
	char q[1024] = "";
	size_t used = 0;
	for (int i = 0; i < n; i++) {
		int w = snprintf(q + used, sizeof(q) - used, "%s%s", used ? " " : "", argv[i]);
		if (w < 0 || (size_t)w >= sizeof(q) - used)
			break;
		used += (size_t)w;
	}
	if (!used)
		return cli_usage_error(&cli_spec_explain, "needs an XID number or an error text");
	int xid;
	const struct explain_entry *e = explain_lookup(q, &xid);
	if (!e && xid < 0)
		return error_print("no explanation for '%s' (try an XID number or the error text)",
				   q);
	if (!e && !xid_lookup(xid))
		return error_print(
		    "xid %d is not in gpuscope's catalogue (see NVIDIA's XID catalog, "
		    "docs.nvidia.com/deploy/xid-errors)",
		    xid);
	if (strcmp(o.format, "json") == 0)
		explain_print_json(stdout, e, xid);
	else
		explain_print_text(stdout, e, xid);
	return GS_EXIT_OK;
}
