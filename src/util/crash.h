/*
 * crash.h - what gpuscope says when it crashes (a bug of ours).
 *
 * crash_report_install() sets handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL
 * and SIGABRT on an alternate stack (a stack overflow is reported too). The
 * handler writes, with write(2) only, one line saying which signal hit
 * which thread and at what address, then one line per frame: the module,
 * the offset into it (what addr2line -e MODULE takes) and the nearest
 * dynamic symbol; it then re-raises the signal with its default action, so
 * the exit status (128 + signal) and a core dump are as without it.
 * GPUSCOPE_CRASH_REPORT=0 leaves the signals alone.
 *
 * The handler is for the gpuscope process itself; the injected library
 * never installs it (a program's own crash is the program's).
 */
#ifndef GPUSCOPE_CRASH_H
#define GPUSCOPE_CRASH_H

/* Installs the handlers; 0, or -1 when the alternate stack could not be
 * set up (the handlers are then not installed). */
int crash_report_install(void);

/* Writes the report for sig to fd: the fault address addr, or the sending
 * process when sender > 0 (a signal sent by kill). */
void crash_report_write(int fd, int sig, const void *addr, long sender);

#endif
