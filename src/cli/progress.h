/*
 * progress.h - what a command says on stderr while it works: the step it is
 * in ("reading 'x.db'", "analysing", "writing 'y.json'") on one line that
 * the next step overwrites, only when stderr is a terminal unless asked
 * (OPT_PROGRESS: --progress / --no-progress), cleared before any result or
 * message is printed; and "gpuscope: wrote 'FILE'" for every file written.
 *
 * Invariant: nothing here writes to stdout, so piping a command's output
 * is never mixed with progress.
 */
#ifndef GPUSCOPE_CLI_PROGRESS_H
#define GPUSCOPE_CLI_PROGRESS_H

#include "import/kineto.h"

struct cli_progress {
	int on;	   /* steps are shown */
	int shown; /* a step line is on screen */
};

/* mode: the OPT_PROGRESS field: -1 when stderr is a terminal, 0 never, 1 always. */
void cli_progress_init(struct cli_progress *p, int mode);
/* Shows the step (replacing the previous one). */
void cli_progress_step(struct cli_progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Clears the step line, if one is shown. */
void cli_progress_done(struct cli_progress *p);
/* The reader's options that show its progress as p's step ("importing
 * FILE: 45% (310 MB/s)") when p's steps are shown. */
struct kineto_options cli_read_options(struct cli_progress *p);
/* "gpuscope: wrote 'FILE'" on stderr (the step line cleared first). */
void cli_wrote(struct cli_progress *p, const char *path);

#endif
