/*
 * schedstat.h - the scheduler statistics of the program's threads, read by
 * record's host sampler while the program runs (issue 36 item 4,
 * docs/host-sampling.md "Scheduler statistics"): for each thread, the
 * kernel's /proc/PID/task/TID/schedstat (time on a CPU, time runnable but
 * waiting on a run queue, times put on a CPU). What they tell that stack
 * samples cannot: a thread that waits for a CPU (an oversubscribed host)
 * and a thread that sleeps outside any call (waiting for the GIL).
 *
 * Cost: each thread's file stays open and is re-read with one pread (no
 * open, no path walk); a process's thread list is re-read every
 * SCHED_SCAN_NS. Nothing runs in the program.
 *
 * Invariants:
 *  1. A row is kept when a thread's values changed since its last read
 *     (and at its first read): a sleeping thread costs a read, not a row.
 *  2. Bounded: at most SCHED_MAX_THREADS threads and SCHED_MAX_ROWS rows;
 *     what is left out is counted (dropped).
 */
#ifndef GPUSCOPE_HOSTSAMPLE_SCHEDSTAT_H
#define GPUSCOPE_HOSTSAMPLE_SCHEDSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

#define SCHED_MAX_THREADS 4096
#define SCHED_MAX_ROWS (4u << 20)
#define SCHED_SCAN_NS 200000000ull /* a process's threads listed again */

struct sched_row {
	int64_t ts; /* CLOCK_MONOTONIC */
	uint32_t pid, tid;
	uint64_t cpu_ns, wait_ns, slices;
};

struct sched_thread {
	uint32_t pid, tid;
	int fd; /* -1: gone */
	int have;
	uint64_t cpu_ns, wait_ns, slices; /* the last read */
	uint64_t cpu0_ns, wait0_ns;	  /* the first read */
	int64_t ts0, ts;		  /* when first and last read */
};

struct sched_sampler {
	struct sched_thread *th;
	size_t n_th, cap_th;
	struct u64map by_tid; /* pid << 32 | tid -> index into th */
	struct sched_row *rows;
	size_t n_rows, cap_rows;
	uint64_t dropped;
	uint64_t reads, read_ns;   /* preads made, and the time they took */
	int64_t ts_first, ts_last; /* the first and last sched_read */
	int cpus, cpus_online;	   /* the CPUs the first process may use (0: unknown) */
	char cpus_source[32];	   /* "affinity" or "cgroup quota" */
};

/* Parses "CPU WAIT SLICES\n": 0, or -1 when it is not that. */
int sched_parse(const char *buf, uint64_t *cpu_ns, uint64_t *wait_ns, uint64_t *slices);

/* 0, or -1 when out of memory. */
int sched_init(struct sched_sampler *s);
/* Opens the files of pid's threads not seen before; the first call also
 * notes the CPUs pid may use. 0 (a process gone is not an error). */
int sched_scan(struct sched_sampler *s, uint32_t pid);
/* Reads every open thread, a row for each that changed (invariant 1). */
void sched_read(struct sched_sampler *s, int64_t ts);
void sched_release(struct sched_sampler *s);

/* The CPUs pid may run on: its affinity mask, or its cgroup's CPU quota
 * (cgroup v2 cpu.max) when smaller, with which in *source; 0 when unknown. */
int sched_cpus_of(uint32_t pid, char *source, size_t n);

#endif
