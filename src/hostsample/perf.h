/*
 * perf.h - host stack sampling through perf_event_open(2): a software
 * clock (no hardware PMU needed: Firecracker guests have none) with the
 * kernel's frame-pointer user call chains, one event per CPU: for every
 * task where the kernel allows it, else one that follows the target
 * process and everything it forks (inherit), as `perf record` does. Used
 * by record's launcher; the target never loads anything for it.
 *
 * Design notes:
 *  1. Per-CPU events instead of one event per thread: threads and child
 *     processes created later are seen, with no race between a thread's
 *     start and our noticing it. Samples carry pid/tid, so the caller keeps
 *     the processes and threads it wants (docs/host-sampling.md).
 *     - Every task (pid -1, a CPU clock; perf_event_paranoid <= 0 or
 *       CAP_PERFMON), the default where allowed: nothing is switched with
 *       the program's context switches. The caller keeps the program's
 *       processes by their FORK records, which a drain hands on first.
 *     - Per task (inherit, a task clock; GPUSCOPE_HOST_PERF_SCOPE=task or
 *       where every-task events are refused): the kernel follows the
 *       program, at a cost on each of its context switches ("Scope" in
 *       docs/host-sampling.md).
 *  2. The period is CPU time (fixed period of 1e9/hz ns of the task clock,
 *     or of the CPU clock while a task runs, the idle task excluded): a
 *     sample stands for that much CPU time of its thread. A sleeping
 *     thread is not sampled.
 *  3. Times are CLOCK_MONOTONIC (use_clockid); the caller maps them.
 *  4. Every refusal (perf_event_paranoid, seccomp, a kernel without perf
 *     events, a container without CAP_PERFMON) is returned as a one-line
 *     reason naming the cause and the setting that would allow it; the
 *     program is never affected by it.
 *  5. File mappings come as PERF_RECORD_MMAP2 (executable mappings only),
 *     so a process that already exited can still be symbolized.
 */
#ifndef GPUSCOPE_HOSTSAMPLE_PERF_H
#define GPUSCOPE_HOSTSAMPLE_PERF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PERF_MAX_STACK 127 /* the kernel's default perf_event_max_stack */

struct perf_sample_rec {
	uint32_t pid, tid, cpu;
	uint64_t time_ns; /* CLOCK_MONOTONIC */
	uint64_t period;  /* ns of CPU time this sample stands for */
	int in_kernel;	  /* the clock fired while the thread ran in the kernel */
	uint32_t n_ips;	  /* user frames, innermost first; context markers removed */
	const uint64_t *ips;
};

struct perf_mmap_rec {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint64_t time_ns;
	const char *filename; /* NUL-terminated; "[vdso]", "//anon", a path */
};

/* FORK / EXIT / COMM(exec) records: which processes and threads exist */
enum perf_task_kind {
	PERF_TASK_FORK = 1,
	PERF_TASK_EXIT = 2,
	PERF_TASK_EXEC = 3,
};

struct perf_task_rec {
	enum perf_task_kind kind;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time_ns;
	const char *comm; /* PERF_TASK_EXEC only */
};

struct perf_handlers {
	void (*sample)(void *ctx, const struct perf_sample_rec *s);
	void (*mmap)(void *ctx, const struct perf_mmap_rec *m);
	void (*task)(void *ctx, const struct perf_task_rec *t);
	void *ctx;
};

struct perf_stats {
	uint64_t samples;   /* sample records delivered */
	uint64_t lost;	    /* records the kernel dropped (PERF_RECORD_LOST) */
	uint64_t throttled; /* THROTTLE records: the kernel lowered the rate */
	uint64_t truncated; /* call chains that hit max_stack */
	uint64_t frames;    /* user frames delivered, over all samples */
	uint64_t bad;	    /* records too short to parse */
	uint64_t drain_ns;  /* time spent in perf_sampler_drain */
};

struct perf_sampler {
	int n_cpus;
	int *fds;	 /* one per CPU, -1 where it could not be opened */
	void **rings;	 /* mmap'ed ring buffers */
	uint64_t *heads; /* each ring's head as a drain read it */
	size_t ring_bytes;
	uint64_t period_ns;
	int kernel_ip; /* 1: kernel-mode samples kept (exclude_kernel=0) */
	/* 1: per-CPU events of every task (CPU clock, pid -1; allowed with
	 * perf_event_paranoid <= 0 or CAP_PERFMON): records of other processes
	 * come too, and the caller keeps those of the program's processes
	 * (FORK records of a kept process's children, handed on before the
	 * other records of a drain). 0: per-task events (design note 1). */
	int system_wide;
	int max_stack; /* user frames the kernel copies per sample (GPUSCOPE_HOST_STACK) */
	struct perf_stats stats;
	unsigned char *scratch; /* a record that wraps around the ring */
	size_t scratch_cap;
};

/* Opens the sampling events for process pid (and whatever it forks later).
 * enable_on_exec: 1 when pid is stopped before an execve (record's fork:
 * sampling starts at the exec), 0 to start at once. hz in (0, 10000].
 * ring_pages: data pages per CPU ring (a power of two; 0 = 64).
 * Returns 0, or -1 with a one-line reason in err (nothing left open).
 * Never touches pid beyond the kernel's sampling. */
int perf_sampler_open(struct perf_sampler *s, pid_t pid, double hz, int enable_on_exec,
		      unsigned ring_pages, char *err);

/* Starts (or stops) counting; for enable_on_exec=0 opens started already. */
int perf_sampler_enable(struct perf_sampler *s, int on);

/* Reads every complete record from the rings and calls h for each one;
 * returns the number of samples delivered. Safe to call at any time from
 * one thread; records of one CPU arrive in time order, not across CPUs. */
long perf_sampler_drain(struct perf_sampler *s, const struct perf_handlers *h);

/* Closes the events and unmaps the rings (after a last drain). */
void perf_sampler_close(struct perf_sampler *s);

/* Why perf_event_open failed with errno e, as a one-line reason (writes at
 * most cap bytes to buf and returns buf); reads perf_event_paranoid. */
const char *perf_refusal_reason(int e, char *buf, size_t cap);

/* Parses one raw record (struct perf_event_header first) of an event
 * opened by perf_sampler_open and calls h; for tests and for the drain.
 * Returns 1 for a sample, 0 for another record, -1 when it is malformed. */
int perf_parse_record(struct perf_sampler *s, const void *rec, size_t len,
		      const struct perf_handlers *h);

#endif
