/*
 * cmd_explain.c - `gpuscope explain XID|ERROR-TEXT...|- [--list] [--format text|json]
 * [--lang en|zh]`. The words on the command line are joined with spaces; "-"
 * reads the text from standard input (a whole log or traceback). Exit 0 when
 * something in the catalogue matched, 1 when nothing did (JSON then prints
 * {"matches": []}) or the input could not be read, 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "health/explain.h"
#include "health/xid.h"

struct explain_opts {
	const char *format, *lang;
	int list, progress;
};

static const struct cli_option explain_options[] = {
    OPT_FLAG(0, "list", struct explain_opts, list,
	     "every entry of the catalogue (all XIDs and error texts)"),
    OPT_FORMAT(struct explain_opts, format, "text|json",
	       "text (default) or json (schema gpuscope.explain.v2)"),
    OPT_LANG(struct explain_opts, lang),
    OPT_PROGRESS(struct explain_opts, progress),
    OPT_END(),
};

const struct cli_spec cli_spec_explain = {
    .name = "explain",
    .args = "XID|ERROR-TEXT...|-",
    .min_args = 0,
    .max_args = -1,
    .options = explain_options,
    .description = "Explains an XID or any pasted error text: a dmesg line, a Python traceback,\n"
		   "an nvidia-smi message, in English or Chinese; '-' reads the text from\n"
		   "standard input. examples: explain 79, explain 'got Xid 79',\n"
		   "explain \"code 43\", sudo dmesg | gpuscope explain -\n",
};

/* Appends n bytes of s, after a space when sep and buf is not empty; -1 when out of memory. */
static int append(char **buf, size_t *len, size_t *cap, const char *s, size_t n, int sep)
{
	if (*len + n + 2 > *cap) {
		size_t c = (*len + n + 2) * 2;
		char *b = realloc(*buf, c);
		if (!b)
			return -1;
		*buf = b;
		*cap = c;
	}
	if (*len && sep)
		(*buf)[(*len)++] = ' ';
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = 0;
	return 0;
}

/* Reads standard input whole, stopping just past EXPLAIN_MAX_QUERY (the
 * matcher then refuses it with a message: no silent cut). */
static int read_stdin(char **buf, size_t *len, size_t *cap)
{
	char chunk[65536];
	size_t n;
	while (*len <= EXPLAIN_MAX_QUERY && (n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
		if (append(buf, len, cap, chunk, n, 0))
			return -1;
	return ferror(stdin) ? -1 : 0;
}

int cmd_explain(int argc, char **argv)
{
	struct explain_opts o = {.format = "text", .progress = -1};
	char *q = NULL, err[GS_ERR_LEN];
	size_t len = 0, cap = 0;
	struct explain_result r;
	int rc = GS_EXIT_OK, json;

	int n = cli_parse(&cli_spec_explain, &o, argc, argv);
	if (n < 0)
		return cli_exit(n);
	json = strcmp(o.format, "json") == 0;
	if (o.list) {
		explain_print_list(stdout, json);
		return GS_EXIT_OK;
	}
	for (int i = 0; i < n; i++) {
		int fail = strcmp(argv[i], "-") == 0
			       ? append(&q, &len, &cap, "\n", 1, 0) || read_stdin(&q, &len, &cap)
			       : append(&q, &len, &cap, argv[i], strlen(argv[i]), 1);
		if (fail) {
			free(q);
			return error_print("cannot read the text to explain");
		}
	}
	if (!len) {
		free(q);
		return cli_usage_error(
		    &cli_spec_explain,
		    "needs an XID number or an error text (or - for standard input)");
	}
	if (explain_match(q, len, &r, err)) {
		free(q);
		return error_print("%s", err);
	}
	if (json)
		explain_print_json(stdout, &r, q);
	else if (r.n)
		explain_print_text(stdout, &r, q);
	if (!r.n) {
		if (!json)
			error_print("no explanation found for this text (try the exact error "
				    "message, an XID number, or gpuscope explain --list)");
		rc = GS_EXIT_ERROR;
	} else if (r.n == 1 && !r.m[0].entry && !xid_lookup(r.m[0].xid)) {
		rc = GS_EXIT_ERROR; /* only an XID gpuscope does not know */
	}
	free(q);
	return rc;
}
