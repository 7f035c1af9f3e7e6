/*
 * main.c - gpuscope's entry point: dispatch through the command table.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct cli_command commands[] = {
    {"record", "run a program with CUPTI injected and write a trace database", cmd_record,
     help_record},
    {"report", "diagnose a trace: where the time goes, why, and what to change", cmd_report,
     help_report},
    {"diff", "compare a run with its baseline", cmd_diff, help_diff},
    {"import", "convert a PyTorch profiler trace into a trace database", cmd_import, help_import},
    {"export", "write a timeline (Perfetto) or tables (CSV)", cmd_export, help_export},
    {"doctor", "check the driver/runtime/framework chain and GPU health", cmd_doctor, help_doctor},
    {"monitor", "live per-GPU view", cmd_monitor, help_monitor},
    {"serve", "Prometheus exporter", cmd_serve, help_serve},
    {"occupancy", "theoretical occupancy of a kernel configuration", cmd_occupancy, help_occupancy},
    {"explain", "what an XID or a well-known error message means", cmd_explain, help_explain},
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

int cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	}
	return 0;
}

static const struct cli_command *find(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i].run && strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gpuscope <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i].run)
			fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n'gpuscope help COMMAND' or 'gpuscope COMMAND --help' for a command's options.\n"
		"exit codes: 0 ok, 1 error, 2 usage error, 3 doctor found a problem / diff "
		"regression\n");
}

static int help_for(const char *name)
{
	const struct cli_command *c = find(name);
	if (!c)
		return usage_error("unknown command '%s'", name);
	if (c->help)
		c->help(stdout);
	else
		printf("usage: gpuscope %s\n", c->name);
	return GS_EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return GS_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
		usage(stdout);
		return GS_EXIT_OK;
	}
	if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
		printf("gpuscope %s\n", GPUSCOPE_VERSION);
		return GS_EXIT_OK;
	}
	if (strcmp(name, "help") == 0) {
		if (argc < 3) {
			usage(stdout);
			return GS_EXIT_OK;
		}
		return help_for(argv[2]);
	}
	const struct cli_command *c = find(name);
	if (!c)
		return usage_error("unknown command '%s'", name);
	if (cli_wants_help(argc - 1, argv + 1))
		return help_for(name);
	return c->run(argc - 1, argv + 1);
}
