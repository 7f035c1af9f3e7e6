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
 * A torch.profiler trace has no such statistics, but its op events show
 * the GIL's hand-over: a thread that wants the GIL while another runs
 * Python waits the switch interval (5 ms by default) before the holder is
 * made to let go, so a launching thread whose work is held up that way
 * pauses between its ops for about one hand-over (~5-7 ms: the interval and
 * the holder reaching its next check) or a few of them. The pauses of 2 ms
 * or more between each launching thread's top-level ops (the union of its
 * cpu_op events) that fall near a multiple (1 to 4) of their common length
 * are the trace's evidence (gil_*; torch_gil_thread's trace: 80 of 94
 * pauses at multiples of 6.1 ms).
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
	/* from a trace's op events (above): the launching thread with the most
	 * such pauses, their length (the hand-over, median of those of one),
	 * how many pauses of 2 ms or more it has and how many fall near a
	 * multiple of it, their time and the GPU's idle within them */
	uint32_t gil_pid, gil_tid;
	int64_t gil_quantum_ns;
	int pauses, gil_pauses;
	int64_t gil_pause_ns, gil_pause_idle_ns;
};

/* Fills a->contention (a pass: reads the trace, the timeline). 0, or -1
 * with err when out of memory. */
int an_contention(struct analysis *a, char *err);

#endif
