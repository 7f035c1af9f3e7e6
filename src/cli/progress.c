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

/* kineto_options.progress: a reader's progress as the step line */
static void read_step(void *ctx, const struct kineto_progress *r)
{
	double rate = r->secs > 0 ? (double)r->fed / 1e6 / r->secs : 0;
	if (r->size > 0)
		cli_progress_step(ctx, "importing %s: %.0f%% (%.0f MB/s)", r->label,
				  100.0 * (double)r->read / (double)r->size, rate);
	else
		cli_progress_step(ctx, "importing %s: %.0f MB (%.0f MB/s)", r->label,
				  (double)r->fed / 1e6, rate);
}

struct kineto_options cli_read_options(struct cli_progress *p)
{
	struct kineto_options ko = {.progress = p && p->on ? read_step : NULL, .progress_ctx = p};
	return ko;
}

void cli_wrote(struct cli_progress *p, const char *path)
{
	cli_progress_done(p);
	fprintf(stderr, "gpuscope: wrote '%s'\n", path);
}
