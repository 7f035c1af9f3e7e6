/*
 * cli.h - the command table.
 *
 * Each command lives in src/cli/cmd_NAME.c and defines cmd_NAME() and
 * help_NAME(). The table in main.c names every command in PRODUCT.md; the
 * functions are declared weak, so a command whose file is not built is
 * simply absent from --help and from dispatch, never a stub.
 *
 * cmd_X(argc, argv) gets argv[0] = "X" and returns an exit code (error.h).
 */
#ifndef GPUSCOPE_CLI_H
#define GPUSCOPE_CLI_H

#include <stdio.h>

#include "util/error.h"

#define GPUSCOPE_VERSION "0.1.0"

struct cli_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	void (*help)(FILE *f);
};

#define CLI_DECLARE(name)                                                                          \
	int cmd_##name(int argc, char **argv) __attribute__((weak));                               \
	void help_##name(FILE *f) __attribute__((weak))

CLI_DECLARE(record);
CLI_DECLARE(report);
CLI_DECLARE(diff);
CLI_DECLARE(import);
CLI_DECLARE(export);
CLI_DECLARE(doctor);
CLI_DECLARE(monitor);
CLI_DECLARE(serve);
CLI_DECLARE(occupancy);
CLI_DECLARE(explain);

/* Wants "--help"/"-h" among argv[1..]; returns 1 when present. */
int cli_wants_help(int argc, char **argv);

#endif
