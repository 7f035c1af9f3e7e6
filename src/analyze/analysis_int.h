/*
 * analysis_int.h - what the analysis passes share and nothing outside the
 * analysis needs (analysis.h is the public API): the passes themselves, the
 * timeline queries they build on, and the pass table the runner schedules.
 *
 * The pass table (analysis.c: an_engine_passes; diagnose/diagnose.c adds
 * the rules and the warnings) names, per pass, the parts of struct analysis
 * it reads and writes (AF_ bits). The runner (an_run_passes) derives from
 * them which passes run together: a pass runs after every earlier pass
 * that writes what it reads or reads or writes what it writes, and passes
 * that do not wait for each other run side by side when the trace is big.
 * Table order is a valid serial order. test_passes measures what each pass
 * writes (a byte snapshot of struct analysis over an_fields, the arrays
 * included) and fails when it writes an undeclared part or when two
 * passes that may run together write the same one.
 */
#ifndef GPUSCOPE_ANALYSIS_INT_H
#define GPUSCOPE_ANALYSIS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/analysis.h"

/* The parts of struct analysis a pass reads or writes (an_fields maps each
 * member to one). */
enum an_part {
	AF_INPUT = 1u << 0, /* t, whole, view, range, the window: set before the passes */
	AF_TIMELINE =
	    1u << 1, /* span, busy union, devices, streams, sums, correlation, uncaptured_ns */
	AF_SERIES = 1u << 2,	  /* what the pictures draw (series.h) */
	AF_IDLE = 1u << 3,	  /* the idle breakdown, gap_sync_frac */
	AF_SYNC = 1u << 4,	  /* sync statistics */
	AF_PHASES = 1u << 5,	  /* JIT and phases (phases.h) */
	AF_LAUNCH = 1u << 6,	  /* launch statistics */
	AF_KERNELS = 1u << 7,	  /* kernel groups and kernel-shape shares */
	AF_PROGRAM = 1u << 8,	  /* what kind of program (program.h) */
	AF_FAMILIES = 1u << 9,	  /* kernel families (families.h) */
	AF_COPY = 1u << 10,	  /* copy statistics and groups */
	AF_OPS = 1u << 11,	  /* PyTorch ops (ops.h) */
	AF_MEMORY = 1u << 12,	  /* device memory (memory.h) */
	AF_CALLS = 1u << 13,	  /* idle inside CUDA calls (calls.h) */
	AF_HOSTIDLE = 1u << 14,	  /* host samples in idle time (hostidle.h) */
	AF_HOSTWAIT = 1u << 15,	  /* host wait classes (hostwait.h) */
	AF_PROCESSES = 1u << 16,  /* processes, dropped records, overhead */
	AF_RANGES = 1u << 17,	  /* NVTX/annotation range groups */
	AF_COUNTERS = 1u << 18,	  /* per-kernel counters (kcounters.h) */
	AF_SAMPLES = 1u << 19,	  /* sampled metrics, speed of light, chunks */
	AF_PM = 1u << 20,	  /* PM sampling windows */
	AF_HOSTSIDE = 1u << 21,	  /* input pipeline or host overhead (hostside.h) */
	AF_FINDINGS = 1u << 22,	  /* findings, primary, nowork (diagnose/) */
	AF_WARNINGS = 1u << 23,	  /* warnings (diagnose/warnings.c) */
	AF_CONTENTION = 1u << 24, /* the launching thread's waits on its host (contention.h) */
	AF_FAILURES = 1u << 25,	  /* failed CUDA calls and host-free races (cuda_errors.h) */
	AF_ALL = (1u << 26) - 1,
};

struct an_pass {
	const char *name;
	int (*fn)(struct analysis *a, char *err); /* 0, or -1 with err */
	uint32_t reads, writes;			  /* enum an_part bits */
};

/* The engine's passes in a valid serial order (analysis.c). */
extern const struct an_pass an_engine_passes[];
extern const size_t an_n_engine_passes;

/* 1 when x reads what y writes, or writes what y reads or writes: the
 * later of the two in table order runs after the earlier one. Two passes
 * that do not conflict may run at once. */
int an_pass_conflict(const struct an_pass *x, const struct an_pass *y);
/* level[i] for each pass of p[0..n): 0 for a pass that depends on no
 * earlier one, else one more than the highest level of an earlier pass it
 * conflicts with. The longest chain of waits is top level + 1 passes. */
void an_pass_levels(const struct an_pass *p, size_t n, int *level);
/* Runs p[0..n) on a: each pass once the earlier passes it conflicts with
 * are done, side by side when the trace is big; 0, or -1 with the error of
 * the first failing pass in table order (no pass starts after a failure). */
int an_run_passes(struct analysis *a, const struct an_pass *p, size_t n, char *err);
/* The same on up to `threads` threads (this one included); latest_first:
 * each thread takes the last ready pass in table order instead of the
 * first, a schedule as valid as table order that runs a pass before every
 * earlier one it does not wait for (test_pass_order: a pass that reads
 * what it does not declare gives another result). */
int an_run_passes_with(struct analysis *a, const struct an_pass *p, size_t n, int threads,
		       int latest_first, char *err);

/* A member of struct analysis and its part: a plain member (n_off 0) or an
 * array (a pointer at off, its length at n_off, elements of elem bytes). */
struct an_field {
	const char *name;
	uint32_t part;
	size_t off, size;
	size_t n_off, elem; /* arrays only: n is a size_t at n_off */
};
extern const struct an_field an_fields[];
extern const size_t an_n_fields;

/* Sets a (zeroed by the caller) up for t: the window the analysis covers
 * (range, or the steady state unless whole; analysis.c) and the trace the
 * passes read, returned (t or a->view); NULL with err when t is not sorted,
 * no range has that name or memory ran out. */
const struct trace *an_window(struct analysis *a, const struct trace *t, const char *range,
			      int whole, char *err);
/* Frees what the engine's passes made (not the findings or warnings). */
void an_engine_release(struct analysis *a);

/* A device's part of t (trace_keep_device's rule) as a view sharing t's
 * strings: 0, or -1 with err (no GPU work on it, out of memory). */
int an_device_view(struct trace *v, const struct trace *t, uint32_t device, char *err);
void an_device_view_release(struct trace *v);

/* A GPU op reference: kind in the top 2 bits, index below. */
#define AN_OP_KERNEL 0u
#define AN_OP_COPY 1u
#define AN_OP_MEMSET 2u
#define AN_OP_NONE UINT32_MAX
#define AN_OP_KIND(r) ((r) >> 30)
#define AN_OP_INDEX(r) ((r)&0x3fffffffu)

/* out: the first index of arr[0..n) (sorted by field) whose field is at
 * or after ts. */
#define AN_LOWER(arr, n, field, ts, out)                                                           \
	do {                                                                                       \
		size_t lo_ = 0, hi_ = (n);                                                         \
		while (lo_ < hi_) {                                                                \
			size_t mid_ = lo_ + (hi_ - lo_) / 2;                                       \
			if ((arr)[mid_].field < (ts))                                              \
				lo_ = mid_ + 1;                                                    \
			else                                                                       \
				hi_ = mid_;                                                        \
		}                                                                                  \
		(out) = lo_;                                                                       \
	} while (0)
/* the same over start_ns */
#define AN_LOWER_START(arr, n, ts, out) AN_LOWER(arr, n, start_ns, ts, out)

int an_timeline(struct analysis *a, char *err);
int an_idle_breakdown(struct analysis *a, char *err);
/* The covering unions idle.c splits gaps by, in start order: [0] launches,
 * [1] + syncs, [2] + copies, [3] + other CUDA calls (each a fresh array,
 * freed by the caller). 0, or -1 when out of memory (none left). */
int an_idle_unions(const struct analysis *a, struct an_interval *u[4], size_t n[4]);
/* The index of the last interval of u (sorted by start) starting at or
 * before ts, -1 when none. */
long an_last_start(const struct an_interval *u, size_t n, int64_t ts);
/* The last of them alone (every CUDA call): *u a fresh array, freed by the
 * caller. 0, or -1 when out of memory. */
int an_idle_union_all(const struct analysis *a, struct an_interval **u, size_t *n);
/* The "host work outside CUDA" idle in [s, e): the time idle.c puts in that
 * class there (long gaps, host stretches of TH_HOST_WORK_NS or more, less
 * the share it charged to the sync before them), u/n: an_idle_union_all's.
 * Over the whole span it adds up to idle.host_ns (test_host_idle). c: NULL,
 * or a cursor (zeroed, k = -1) that calls with starts in increasing order
 * share, so that a sweep costs one pass, not a search each. */
struct an_host_cursor {
	size_t g; /* the gap of the last start */
	long k;	  /* the last call before it (-1: none) */
};
int64_t an_host_idle_in(const struct analysis *a, const struct an_interval *u, size_t n, int64_t s,
			int64_t e, struct an_host_cursor *c);
int an_launch_stats(struct analysis *a, char *err);
int an_kernel_stats(struct analysis *a, char *err);
int an_copy_sync_stats(struct analysis *a, char *err);
int an_range_stats(struct analysis *a, char *err);
int an_sample_stats(struct analysis *a, char *err);
int an_pm_stats(struct analysis *a, char *err);
int an_process_stats(struct analysis *a, char *err);
/* The GPU op launched by (pid, correlation), AN_OP_NONE when unknown. */
uint32_t an_corr_find(const struct analysis *a, uint32_t pid, uint32_t corr);
/* Start/end of an op reference. */
void an_op_span(const struct analysis *a, uint32_t ref, int64_t *start, int64_t *end);
/* Index of the first busy interval ending after ts (n_busy when none); for an
 * idle ts, the gap it lies in ends where that interval starts. */
size_t an_busy_index(const struct analysis *a, int64_t ts);
/* GPU busy time of the union in [t0, t1). */
int64_t an_busy_between(const struct analysis *a, int64_t t0, int64_t t1);
/* The same for t0 never earlier than the t0 of the call before with the
 * same *at (0 at first): the search gallops from there, which *at keeps
 * (ops.c: ranges in start order) */
int64_t an_busy_between_from(const struct analysis *a, size_t *at, int64_t t0, int64_t t1);
/* Start of the first GPU work at or after ts (INT64_MAX when none); a time
 * inside a busy interval returns ts. */
int64_t an_next_busy(const struct analysis *a, int64_t ts);
/* 1 when ts lies inside the busy union. */
int an_is_busy(const struct analysis *a, int64_t ts);

#endif
