/*
 * counters.h - per-kernel hardware counters inside the injected library
 * (`record --metrics kernels`): CUPTI's range profiler in auto-range mode
 * with kernel replay, started in the launch callback of a selected kernel
 * and stopped, decoded and evaluated when the launch returns, so that each
 * value belongs to one launch (by its correlation id).
 *
 * Kernel replay runs the kernel once per pass (about a dozen for the whole
 * metric list on GH100) and restores the device memory it writes between
 * passes, so the program's results are unchanged; the launch becomes
 * synchronous and its wall time grows accordingly. Graph launches are not
 * profiled (the range profiler cannot split a graph into its kernels).
 *
 * Selection follows Nsight Compute: a kernel matches --kernel-regex when the
 * regex (POSIX extended) matches its mangled name, its demangled name or
 * its demangled function name (no return type, parameters or template
 * arguments); the first `skip` matching launches are passed over, then
 * `count` are profiled. Without a regex or a count, the first launch of
 * each distinct kernel is profiled, up to GS_COUNTERS_DEFAULT_MAX kernels.
 *
 * Error contract: nothing here exits or aborts. gs_counters_setup returns
 * -1 with a reason in `why` when the counters cannot be used (the trace
 * then goes on without them); later failures switch counters off and make
 * gs_counters_status() say why. Thread safety: the launch hooks take one
 * lock from enter to exit, so profiled launches are serialised.
 */
#ifndef GPUSCOPE_INJECT_COUNTERS_H
#define GPUSCOPE_INJECT_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GS_COUNTERS_DEFAULT_MAX 500

struct gs_counters_opts {
	const char *regex; /* NULL or "" = every kernel */
	long skip;	   /* matching launches passed over first */
	long count;	   /* matching launches profiled; <= 0 = the default rule above */
	/* NULL, or where each step's outcome is told (GPUSCOPE_DEBUG=1) */
	void (*log)(const char *msg);
};

/* Sets up the profiler on ctx ahead of its first profiled launch (from a
 * context-created callback); 0, or -1 when counters are off. */
int gs_counters_context(void *ctx);

/* Called for each value of a profiled launch. */
typedef void (*gs_counter_emit_fn)(void *ud, uint32_t correlation, const char *metric,
				   double value);

/* Parses the selection. 0, or -1 with why (a bad regex). */
int gs_counters_setup(const struct gs_counters_opts *o, char *why, size_t why_len);
/* Launch ENTER: returns 1 when this launch is profiled (then call
 * gs_counters_launch_exit on the same thread), 0 otherwise. ctx is the
 * launch's CUcontext, symbol its mangled kernel name. */
int gs_counters_launch_enter(void *ctx, const char *symbol, uint32_t correlation);
/* Launch EXIT of a profiled launch: stops, decodes and emits its values. */
void gs_counters_launch_exit(gs_counter_emit_fn emit, void *ud);
/* Launches profiled, launches skipped because a graph holds them, passes per
 * kernel (0 until the first configuration). */
void gs_counters_stats(uint64_t *profiled, uint64_t *graph_skipped, uint32_t *passes);
/* Counts a graph launch that was not profiled. */
void gs_counters_graph_launch(void);
/* "" while counters work, else why they stopped (static storage). */
const char *gs_counters_status(void);
/* Metrics the chip did not know, comma-separated ("" when none). */
const char *gs_counters_dropped(void);
/* Disables the range profiler on every context it was enabled on. */
void gs_counters_teardown(void);

#ifdef __cplusplus
}
#endif

#endif
