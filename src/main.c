/*
 * main.c - gpuscope's entry point: dispatch through the command table
 * (src/cli/help.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/crash.h"
#include "util/i18n.h"
#include "util/textsafe.h"

/* A closed standard descriptor is taken by /dev/null opened read-only, so
 * that a file the command opens never becomes its stdout and a write to a
 * closed stdout fails (EBADF) instead of vanishing. */
static void fill_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int n = open("/dev/null", O_RDONLY);
			if (n >= 0 && n != fd) {
				dup2(n, fd);
				close(n);
			}
		}
}

/* Every command's stdout is checked once more at the end: a full disk or a
 * closed pipe is exit status 1 with the reason, whatever the command (a
 * command that already said so returned 1). */
static int finish(int rc)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	if (rc != GS_EXIT_ERROR)
		error_print("cannot write to stdout: %s", errno ? strerror(errno) : "write error");
	return GS_EXIT_ERROR;
}

static int run(int argc, char **argv);

int main(int argc, char **argv)
{
	fill_std_fds();
	/* no control character from the data reaches the terminal (monitor's
	 * full-screen view writes its own: its data is cleaned where it is read) */
	if (argc < 2 || strcmp(argv[1], "monitor") != 0)
		(void)textsafe_stdout();
	return finish(run(argc, argv));
}

static int run(int argc, char **argv)
{
	crash_report_install();
	i18n_init();
	cli_lang_warning();
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
