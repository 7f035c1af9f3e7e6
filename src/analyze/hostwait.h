/*
 * hostwait.h - which host code ran while the GPU waited (issue #17 item 2):
 * record's host samples (docs/host-sampling.md) joined to the idle
 * breakdown's classes (idle.c: host work, dispatch, launch latency, sync,
 * copy calls, other CUDA calls). Per class, the threads that ran (the
 * main thread first, then by time on the CPU: DataLoader workers are
 * processes of their own), and per thread the functions it was in most:
 * the innermost frame of the program's own code, the function that code
 * called (a library's entry: DataLoader's __next__, a transform's
 * forward) and the innermost frame overall; from perf's on-CPU samples
 * also the innermost named native function.
 *
 * Invariants:
 *  1. A sample counts in the class of the idle instant it was taken at,
 *     with idle.c's precedence (launch > sync > copy > other call > host);
 *     host time idle.c moves to the sync before it (sync_overlap) moves
 *     here by the same share of its gap.
 *  2. Shares are of the class's idle time (idle.c's figure), so a thread
 *     that ran one function the whole time has 100%; never above 100.
 *  3. Frames are ids of the whole trace's host_frames (a->whole or a->t);
 *     functions are grouped by (kind, name, file, module), lines aside,
 *     and shown with the line of their heaviest frame.
 */
#ifndef GPUSCOPE_HOSTWAIT_H
#define GPUSCOPE_HOSTWAIT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/series.h"

struct analysis;
struct trace;

#define AN_HW_THREADS 4 /* threads kept per class */
#define AN_HW_TOP 3	/* functions kept per thread */

enum an_hw_role { HW_THREAD, HW_MAIN, HW_WORKER, HW_PIN_MEMORY };

struct an_hw_fn {
	uint32_t own;	/* innermost frame of the program's own code; 0: none */
	uint32_t call;	/* the frame own called (inner of it); 0: none */
	uint32_t inner; /* innermost named frame */
	int64_t ns;
};

struct an_hw_native {
	uint32_t frame; /* innermost named native frame */
	int64_t ns;
};

struct an_hw_thread {
	uint32_t pid, tid;
	enum an_hw_role role;
	int64_t wall_ns; /* samples of the main source in the class */
	int64_t cpu_ns;	 /* perf's on-CPU samples in the class */
	struct an_hw_fn top[AN_HW_TOP];
	int n_top;
	struct an_hw_native native[AN_HW_TOP];
	int n_native;
};

struct an_hw_class {
	int64_t idle_ns; /* the class's idle time (idle.c) */
	int64_t sampled_ns;
	struct an_hw_thread th[AN_HW_THREADS];
	int n_threads;
	int threads_total; /* threads with samples in the class */
};

/* frames that are a profiler's python_function range names: the name's
 * string id with this bit (source AN_HW_SRC_STACKS) */
#define HW_RANGE_FRAME 0x80000000u
#define AN_HW_SRC_STACKS 16 /* beside enum host_sample_source */

struct an_hostwait {
	int have;   /* host samples (or profiler stacks) in the window's idle time */
	int source; /* enum host_sample_source of the functions (PYREAD when present), or
		       AN_HW_SRC_STACKS: torch.profiler's Python stacks (with_stack) */
	struct an_hw_class c[AN_IDLE_CAUSES];
};

/* Fills a->hostwait (after an_idle_breakdown). 0, or -1 with err. */
int an_hostwait(struct analysis *a, char *err);

/* The share (0..100) of a class's idle time ns stands for. */
double an_hw_share(const struct an_hw_class *c, int64_t ns);

/* The thread of class cls whose top function a finding quotes: main 1,
 * the main thread; main 0, the first other thread (by time on the CPU)
 * with functions. NULL when none. */
const struct an_hw_thread *an_hw_thread_of(const struct an_hostwait *h, int cls, int main);

/* "inner (file:line) in call (file:line), from own (file:line)" for f,
 * frames of trace w (a->whole or a->t); parts that are absent or equal to
 * an inner one are left out. Returns buf. */
const char *an_hw_fn_name(const struct trace *w, const struct an_hw_fn *f, char *buf, size_t cap);
/* "Name (file:line)" of one frame ("Name" for a native one, with its
 * library). Returns buf. */
const char *an_hw_frame_name(const struct trace *w, uint32_t frame, char *buf, size_t cap);

#endif
