/*
 * crash.c - the crash report (crash.h).
 *
 * Everything in the handler is async-signal-safe except backtrace() and
 * dladdr(): backtrace() is called once at install time so that libgcc's
 * unwinder is already loaded (its first call may allocate), and dladdr()
 * only reads the loader's tables. Numbers are formatted by hand.
 */
#include "util/crash.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/knobs.h"

#define CRASH_FRAMES 64
#define CRASH_STACK (64 * 1024)

static const int crash_sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

static void put(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void put_hex(int fd, uintptr_t v)
{
	char b[2 + 16 + 1];
	int i = (int)sizeof(b) - 1;
	b[i] = '\0';
	do {
		b[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v && i > 2);
	b[--i] = 'x';
	b[--i] = '0';
	put(fd, b + i);
}

static void put_dec(int fd, long v)
{
	char b[24];
	int i = (int)sizeof(b) - 1;
	b[i] = '\0';
	unsigned long u = v < 0 ? (unsigned long)-v : (unsigned long)v;
	do {
		b[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u && i > 1);
	if (v < 0)
		b[--i] = '-';
	put(fd, b + i);
}

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV";
	case SIGBUS:
		return "SIGBUS";
	case SIGFPE:
		return "SIGFPE";
	case SIGILL:
		return "SIGILL";
	case SIGABRT:
		return "SIGABRT";
	default:
		return "signal";
	}
}

void crash_report_write(int fd, int sig, const void *addr, long sender)
{
	put(fd, "gpuscope: internal error: ");
	put(fd, sig_name(sig));
	if (sender > 0) {
		put(fd, " sent by process ");
		put_dec(fd, sender);
	} else if (sig != SIGABRT) {
		put(fd, " at address ");
		put_hex(fd, (uintptr_t)addr);
	}
	put(fd, " in thread ");
	put_dec(fd, (long)syscall(SYS_gettid));
	put(fd, " of process ");
	put_dec(fd, (long)getpid());
	put(fd, "; this is a bug in gpuscope: please report it with these lines\n");
	void *pcs[CRASH_FRAMES];
	int n = backtrace(pcs, CRASH_FRAMES);
	for (int i = 0; i < n; i++) {
		Dl_info di;
		memset(&di, 0, sizeof(di));
		put(fd, "gpuscope:   #");
		put_dec(fd, i);
		put(fd, " ");
		if (dladdr(pcs[i], &di) && di.dli_fname) {
			const char *base = strrchr(di.dli_fname, '/');
			put(fd, base ? base + 1 : di.dli_fname);
			put(fd, "+");
			put_hex(fd, (uintptr_t)pcs[i] - (uintptr_t)di.dli_fbase);
			if (di.dli_sname) {
				put(fd, " (");
				put(fd, di.dli_sname);
				put(fd, "+");
				put_hex(fd, (uintptr_t)pcs[i] - (uintptr_t)di.dli_saddr);
				put(fd, ")");
			}
		} else {
			put_hex(fd, (uintptr_t)pcs[i]);
		}
		put(fd, "\n");
	}
}

static void on_crash(int sig, siginfo_t *info, void *ctx)
{
	(void)ctx;
	/* si_code <= 0: sent by kill(), raise() or abort(), with no fault address */
	long sender = info && info->si_code <= 0 ? (long)info->si_pid : 0;
	crash_report_write(STDERR_FILENO, sig, info && info->si_code > 0 ? info->si_addr : NULL,
			   sender);
	/* SA_RESETHAND restored the default: the same signal again ends the
	 * process as it would have ended (status, core dump) */
	raise(sig);
}

int crash_report_install(void)
{
	const char *knob = getenv(KNOB(CRASH_REPORT));
	if (knob && strcmp(knob, "0") == 0)
		return 0;
	static char altstack[CRASH_STACK];
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof(altstack), .ss_flags = 0};
	if (sigaltstack(&ss, NULL) < 0)
		return -1;
	void *warm[1];
	backtrace(warm, 1); /* loads the unwinder now, not in the handler */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		sigaction(crash_sigs[i], &sa, NULL);
	return 0;
}
