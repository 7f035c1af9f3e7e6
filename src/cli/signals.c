/*
 * signals.c - the stop flag of long-running commands (signals.h). The one
 * piece of process state here is what a signal handler may touch.
 */
#include <signal.h>
#include <string.h>

#include "cli/signals.h"
#include "util/outfile.h"

static volatile int stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

volatile int *cli_stop_on_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return &stop_flag;
}

static void on_signal_clean(int sig)
{
	outfile_pending_unlink();
	signal(sig, SIG_DFL);
	raise(sig);
}

void cli_clean_on_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal_clean;
	int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		/* an ignored signal stays ignored (a background job's SIGINT, nohup) */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}
