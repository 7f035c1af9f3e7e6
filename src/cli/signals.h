/*
 * signals.h - for commands that run until stopped (monitor, serve): SIGINT,
 * SIGTERM and SIGHUP set a flag the loop polls, so the command ends its
 * round, flushes and exits 0 instead of dying mid-write; and the handler of
 * commands that write files, which leaves no temporary file behind.
 */
#ifndef GPUSCOPE_CLI_SIGNALS_H
#define GPUSCOPE_CLI_SIGNALS_H

/* Installs the handlers; returns the flag (0 until a signal came). SIGPIPE is ignored. */
volatile int *cli_stop_on_signals(void);

/* For commands that write files (import, export): SIGINT, SIGTERM and
 * SIGHUP remove the temporary files in progress (util/outfile.h) and then
 * end the process by the same signal (exit status 128+N in a shell). */
void cli_clean_on_signals(void);

#endif
