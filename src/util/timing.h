/*
 * timing.h - the per-phase timing line (issue #25): with GPUSCOPE_TIMING=1
 * (or timing_enable()), the readers and the report note each phase's wall
 * and CPU seconds, and timing_print() writes one line with them and the
 * peak RSS to stderr:
 *
 *   gpuscope timing (...): read 0.31/0.30 (...), parse 1.20/2.10 (peak 180 MiB), ...,
 *   total 2.31 s wall, 3.40 s CPU; peak RSS 240 MiB
 *
 * (wall/CPU seconds). CPU is the whole process's during the phase (every
 * thread's), except phases noted with the thread's clock (read: the
 * reader thread's time in read(2) and inflate, which overlaps the parse).
 * The total runs from the first timing_on() (wall) and the program's start
 * (CPU).
 * Phases of the same name add up, in the order first seen; the record is
 * process-wide and locked, so that several files loaded at once
 * (trace_load_many) add theirs. Off, each call costs one load of a flag.
 */
#ifndef GPUSCOPE_TIMING_H
#define GPUSCOPE_TIMING_H

#include <stdio.h>

struct timing_mark {
	double wall, cpu;
};

/* on when GPUSCOPE_TIMING is set and not "0" (read once), or after enable */
int timing_on(void);
/* GPUSCOPE_TIMING=passes: the analysis passes' line too (timing_pass) */
int timing_passes(void);
/* with timing_passes(): notes "gpuscope passes: NAME START-END/CPU, ...",
 * one line per run of a pass table (start and end in seconds from the run's
 * start, CPU the pass's own thread's seconds), which timing_print writes
 * before its own line (64 KiB of them at most) */
void timing_pass_line(const char *const *names, const double (*span)[3], size_t n);
void timing_enable(void);
/* now: the process's CPU clock, or the calling thread's with thread != 0 */
void timing_now(struct timing_mark *m, int thread);
/* adds the time since m (taken with the same thread flag) to PHASE */
void timing_add(const char *phase, const struct timing_mark *since, int thread);
/* "gpuscope timing: ..." and a newline on f, when on; the first call marks the start */
void timing_print(FILE *f);

#endif
