/* progress.c - step lines and "wrote FILE" on stderr (progress.h). */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/progress.h"

void cli_progress_init(struct cli_progress *p, int mode)
{
	p->on = mode > 0 || (mode < 0 && isatty(STDERR_FILENO));
	p->shown = 0;
}

void cli_progress_step(struct cli_progress *p, const char *fmt, ...)
{
	if (!p || !p->on)
		return;
	va_list ap;
	/* \r and erase-to-end-of-line: the step replaces the one before */
	fputs("\rgpuscope: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("...\033[K", stderr);
	fflush(stderr);
	p->shown = 1;
}

void cli_progress_done(struct cli_progress *p)
{
	if (!p || !p->shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->shown = 0;
}

void cli_wrote(struct cli_progress *p, const char *path)
{
	cli_progress_done(p);
	fprintf(stderr, "gpuscope: wrote '%s'\n", path);
}
