/*
 * signals.c - record's signal handler and the little state it keeps
 * (record.h, "Phases and signals"). A handler can only set flags, so the
 * state is file-wide; everything else in src/record/ lives in struct
 * rec_state. Only one record runs per process.
 */
#include <signal.h>
#include <string.h>

#include "record/record_int.h"

static const int sigs[4] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static struct sigaction old[4];

static volatile sig_atomic_t child_pid, pending_sig, handshake, finishing, n_signals, abandon,
    last_sig;
static int at_finish; /* n_signals when finishing began */

static void on_signal(int sig, siginfo_t *info, void *ctx)
{
	(void)ctx;
	int before = n_signals;
	n_signals = before + 1;
	last_sig = sig;
	if (finishing) {
		/* the second signal (this one or any before it) abandons the write */
		if (before > 0)
			abandon = sig;
		return;
	}
	/* from the terminal (Ctrl-C, hangup) the whole foreground process group,
	 * the child too, already got it: a second copy would interrupt the
	 * program's own clean-up */
	if (info && info->si_code == SI_KERNEL)
		return;
	if (child_pid > 0 && handshake)
		kill(child_pid, sig);
	else
		pending_sig = sig;
}

void rec_signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	/* one handler at a time: the count stays exact */
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 4; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	child_pid = pending_sig = handshake = finishing = n_signals = abandon = last_sig = 0;
	at_finish = 0;
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &sa, &old[i]);
}

void rec_signals_restore(void)
{
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
	child_pid = 0;
}

void rec_signals_child_default(void)
{
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
}

void rec_signals_child_ignore(void)
{
	for (int i = 0; i < 4; i++)
		signal(sigs[i], SIG_IGN);
}

void rec_signals_set_child(pid_t pid)
{
	child_pid = pid;
}

int rec_signals_take_pending(void)
{
	int sig = pending_sig;
	pending_sig = 0;
	return sig;
}

void rec_signals_handshake_done(void)
{
	handshake = 1;
}

void rec_signals_finishing(void)
{
	/* the switch and the count it starts from, with no signal in between */
	sigset_t block, prev;
	sigemptyset(&block);
	for (int i = 0; i < 4; i++)
		sigaddset(&block, sigs[i]);
	sigprocmask(SIG_BLOCK, &block, &prev);
	child_pid = 0;
	finishing = 1;
	at_finish = n_signals;
	sigprocmask(SIG_SETMASK, &prev, NULL);
}

int rec_signals_since_finishing(void)
{
	return n_signals - at_finish;
}

int rec_signals_last(void)
{
	return last_sig;
}

int rec_signals_abandon(void)
{
	return abandon;
}
