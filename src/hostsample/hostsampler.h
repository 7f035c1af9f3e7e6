/*
 * hostsampler.h - record's host sampler: one thread in the launcher that
 * samples the program's processes while it runs (perf events and the
 * CPython reader, docs/host-sampling.md), notes their frameworks, and
 * after the run turns everything into host_* and frameworks rows.
 *
 * Life cycle (record's launcher):
 *   fork, the child waits at its exec gate
 *   host_sampler_start(&s, child, &opts)   perf events armed for the exec
 *   release the gate (host_sampler_perf_on, without the CPython reader,
 *   says whether to ask the child for CPython's perf trampolines,
 *   PYTHONPERFSUPPORT=1)
 *   ... the program runs ...
 *   host_sampler_stop(s)                   after the child was reaped
 *   host_sampler_to_trace(s, t, offset)    after the spool files are merged
 *   host_sampler_free(s)
 *
 * Invariants:
 *  1. Refusals never fail: they become each process's host_sampling
 *     status (#17.6); start fails only when out of memory or threads.
 *  2. Bounded: at most HOST_MAX_SAMPLES raw samples and HOST_MAX_FRAMES
 *     frames are kept; what is left out is counted in the status.
 *  3. Kept are the samples of each process's main thread, of the
 *     threads that made CUDA calls (the api_calls rows): the threads whose
 *     host time can explain the GPU's waiting; and of the threads that were
 *     on a CPU HOST_BUSY_PCT of the run or more (their scheduler
 *     statistics): the threads that can hold the GIL or a CPU against them.
 *  4. In a process the CPython reader sampled, a perf chain is kept up to
 *     its innermost frame in the interpreter's file (the reader's py->elf)
 *     and cut above it: the reader's samples hold the Python stack above,
 *     and the chains' outer part (interpreter frames, 127 deep at most, so
 *     mostly truncated mid-stack) shared nothing in the prefix tree: 465k
 *     of the 8.2 MB tv_resnet_loader recording's stack nodes for 10.7k
 *     stacks, 28k with the cut (docs/host-sampling.md).
 */
#ifndef GPUSCOPE_HOSTSAMPLE_HOSTSAMPLER_H
#define GPUSCOPE_HOSTSAMPLE_HOSTSAMPLER_H

#include <stdint.h>
#include <sys/types.h>

#include "hostsample/perf.h"
#include "trace/trace.h"

#define HOST_MAX_SAMPLES (4u << 20)
#define HOST_MAX_FRAMES (32u << 20)
/* invariant 3: a thread on a CPU 10% of the run is busy enough to slow
 * the launching thread (our choice: a pin-memory or logging thread that
 * wakes now and then stays out) */
#define HOST_BUSY_PCT 10.0

struct host_sampler_opts {
	double hz;	     /* (0, 10000]; record's default 1000 */
	int use_perf;	     /* perf_event_open */
	int use_pyread;	     /* the CPython reader */
	int perf_maps_ours;  /* 1: we set PYTHONPERFSUPPORT, so /tmp/perf-PID.map files are ours to
				remove */
	int all_threads;     /* 1: keep every thread's samples (tests, the probe) */
	int sched_ms;	     /* > 0: read the threads' scheduler statistics this often */
	int perf_div;	     /* > 1: perf's events (native frames, on-CPU) sample at
				hz / perf_div (record: when the program is Python, which the
				CPython reader samples at hz): their cost is the program's
				thread's, the reader's is on the sampler's */
	const char *control; /* bench only (GPUSCOPE_HOST_SWITCH): a file whose first byte says
				what samples while the program runs: '1' both mechanisms, 'p'
				perf only, 'y' the CPython reader only, '0' nothing; the
				sampler writes the state it reached into the second byte */
};

struct host_sampler;

/* Starts sampling process pid (stopped at its exec gate when perf is to
 * follow it from the exec). Returns 0, or -1 with err (out of memory, no
 * thread): then nothing runs and *out is NULL. */
int host_sampler_start(struct host_sampler **out, pid_t pid, const struct host_sampler_opts *o,
		       char *err);

/* 1 when perf events are armed (then CPython's trampolines are useful). */
int host_sampler_perf_on(const struct host_sampler *s);

/* 1 when they are per-CPU events of every task, the program's records
 * kept by its process tree (perf.h, GPUSCOPE_HOST_PERF_SCOPE); 0 per task
 * or off. */
int host_sampler_perf_system_wide(const struct host_sampler *s);

/* The reason perf events are not used ("" when they are). */
const char *host_sampler_perf_status(const struct host_sampler *s);

/* perf's counts (samples, user frames, chains cut at *max_stack) or NULL
 * when perf events are off; for record's progress line. */
const struct perf_stats *host_sampler_perf_stats(const struct host_sampler *s, int *max_stack);

/* Stops the thread and drains what is left; the program has exited. */
void host_sampler_stop(struct host_sampler *s);

/* Symbolizes and interns the samples into t (times + mono_to_trace_ns:
 * CLOCK_MONOTONIC onto the trace's clock), adds a host_sampling row per
 * sampled process and its frameworks rows. Returns the samples added, or
 * -1 when out of memory (rows added so far stay). */
long host_sampler_to_trace(struct host_sampler *s, struct trace *t, int64_t mono_to_trace_ns);

void host_sampler_free(struct host_sampler *s);

#endif
