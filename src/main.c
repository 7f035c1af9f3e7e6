/*
 * main.c - gpuscope's entry point: dispatch through the command table
 * (src/cli/help.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/crash.h"
#include "util/i18n.h"

int main(int argc, char **argv)
{
	crash_report_install();
	i18n_init();
	if (argc < 2) {
		cli_usage(stderr);
		return GS_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
		cli_usage(stdout);
		return GS_EXIT_OK;
	}
	if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
		printf("gpuscope %s\n", GPUSCOPE_VERSION);
		return GS_EXIT_OK;
	}
	if (strcmp(name, "help") == 0)
		return cli_help_main(argc - 1, argv + 1);
	const struct cli_command *c = cli_find(name);
	if (!c)
		return usage_error("unknown command '%s'", name);
	if (cli_wants_help(argc - 1, argv + 1)) {
		cli_command_help(stdout, c);
		return GS_EXIT_OK;
	}
	return c->run(argc - 1, argv + 1);
}
