/*
 * cli.h - the command table.
 *
 * Each command lives in src/cli/cmd_NAME.c and defines cmd_NAME() and its
 * command line, `const struct cli_spec cli_spec_NAME` (cli/options.h), from
 * which its help, man page and completion are generated. The table in
 * help.c names every command (README.md lists them); the symbols are declared weak,
 * so a command whose file is not built is simply absent from --help and from
 * dispatch, never a stub. (A command may still define help_NAME(FILE *)
 * instead of a spec; it is then parsed by hand. New commands use the spec.)
 *
 * cmd_X(argc, argv) gets argv[0] = "X" and returns an exit code (error.h).
 */
#ifndef GPUSCOPE_CLI_H
#define GPUSCOPE_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "cli/options.h"
#include "util/error.h"

#include "util/version.h"

struct cli_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	void (*help)(FILE *f);	     /* NULL when spec is set */
	const struct cli_spec *spec; /* NULL for a command not on the option table */
};

#define CLI_DECLARE(name)                                                                          \
	int cmd_##name(int argc, char **argv) __attribute__((weak));                               \
	void help_##name(FILE *f) __attribute__((weak));                                           \
	extern const struct cli_spec cli_spec_##name __attribute__((weak))

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
CLI_DECLARE(vram);

/* The commands that are built, in help order; *n set to their number. */
const struct cli_command *cli_commands(size_t *n);
/* The built command called name; NULL when none. */
const struct cli_command *cli_find(const char *name);
/* `gpuscope --help`: the command list. */
void cli_usage(FILE *f);
/* A command's help on f (generated from its spec, or its help_X). */
void cli_command_help(FILE *f, const struct cli_command *c);
/* `gpuscope help [--man [CMD] | --bash-completion | CMD]`; returns the exit code. */
int cli_help_main(int argc, char **argv);

/* Wants "--help"/"-h" among argv[1..] before "--"; returns 1 when present. */
int cli_wants_help(int argc, char **argv);

#endif
