/*
 * contention.h - whether the thread that launches the GPU's work waits for
 * something else on its host (issue 36 item 4): a CPU (it was runnable on a
 * run queue: an oversubscribed host) or the GIL (it slept outside any CUDA
 * call while another thread of its process ran Python). From record's
 * scheduler statistics (host_sched, docs/host-sampling.md) and host samples;
 * a trace without them has none of it.
 *
 * The launching thread is the thread of the window's most launch calls.
 * Its statistics are cumulative counters read every ~50 ms; between two
 * reads the time splits into on a CPU, waiting for one, inside CUDA calls
 * (the union of its calls there) and the rest, off a CPU outside CUDA
 * (asleep: a lock, the GIL, I/O, a queue). Each piece's share of a stretch
 * is applied to the GPU's idle time in that stretch: what the GPU waited
 * while the launching thread waited (an estimate at the reads' resolution,
 * not an alignment of instants).
 *
 * Invariants:
 *  1. Shares are of the time the launching thread's statistics cover in the
 *     window (wall_ns); cpu + wait + cuda + off <= wall (off is clamped at
 *     0 where the pieces overlap: a CUDA call spinning on a CPU).
 *  2. idle_wait_ns and idle_off_ns are each <= the GPU idle they cover.
 */
#ifndef GPUSCOPE_CONTENTION_H
#define GPUSCOPE_CONTENTION_H

#include <stdint.h>

struct analysis;

struct an_contention {
	int have; /* the launching thread's scheduler statistics cover part of the window */
	uint32_t pid, tid; /* the launching thread */
	int64_t wall_ns;   /* the time its statistics cover in the window */
	int64_t cpu_ns, wait_ns, cuda_ns, off_ns;
	int64_t idle_ns;      /* the GPU's idle time in that time */
	int64_t idle_wait_ns; /* of it, while the launching thread waited for a CPU */
	int64_t idle_off_ns;  /* of it, while it slept outside CUDA calls (less known waits) */
	/* its reader samples in the window, and those in a known blocking
	 * call (a Condition or Event wait, sleep, a queue's get, I/O): a sleep
	 * that is not the GIL's */
	int64_t sampled_ns, blocking_ns;
	uint32_t wait_frame; /* its own function it waited in most (host frame id, 0 none) */
	/* the other thread of its process longest on a CPU in the window */
	uint32_t other_tid;
	int64_t other_cpu_ns;
	int other_python;     /* the reader saw it run Python */
	uint32_t other_frame; /* its own (or innermost) Python function, 0 none */
	uint32_t other_inner; /* the innermost Python frame it was in, 0 none */
	/* launch calls in the window: the launching thread's, and the other
	 * thread's (one that launches too feeds the GPU itself: PyTorch's
	 * autograd engine launches the backward on a thread of its own while
	 * the main thread launches the rest) */
	uint64_t launches, other_launches;
	/* the process: threads on a CPU 10% of the window or more, and its
	 * threads' CPU and run-queue time summed */
	int threads_busy, threads;
	int64_t proc_cpu_ns, proc_wait_ns;
	int cpus; /* the CPUs it may use (meta host_cpus), 0 unknown */
};

/* Fills a->contention (a pass: reads the trace, the timeline). 0, or -1
 * with err when out of memory. */
int an_contention(struct analysis *a, char *err);

#endif
