/*
 * pmsampling.h - CUPTI PM sampling inside the injected library (`record
 * --metrics pm`): the single-pass device-wide metrics of
 * src/gpu/pm_metrics.h read by the GPU at a fixed interval (default 1 ms,
 * GPUSCOPE_PM_INTERVAL_US) into a hardware buffer, which a thread of ours
 * decodes every pass (50 ms: pm_sizes_for) into one value per metric and
 * window. No replay: the program runs as it does untraced, apart from that
 * thread.
 *
 * The thread starts sampling the devices once CUDA is initialised and a
 * primary context is active (the runtime's first call is done), or
 * GS_PM_WAIT_MS after CUDA's initialisation without one (a program on its
 * own contexts). Every CUPTI call is made on that thread; none needs a
 * context current (the calls name the device by index).
 *
 * Error contract: nothing here exits, aborts or blocks the program: a
 * failing CUPTI call switches PM sampling off (or one device off) and
 * gs_pm_status() names the call and its error; the trace goes on without
 * samples. gs_pm_stop() waits at most GS_PM_STOP_MS for the thread's last
 * decode. With GPUSCOPE_DEBUG=1 each step is logged with its counts.
 */
#ifndef GPUSCOPE_INJECT_PMSAMPLING_H
#define GPUSCOPE_INJECT_PMSAMPLING_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/pm_metrics.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_PM_WAIT_MS 1000
#define GS_PM_STOP_MS 2000
#define GS_PM_MAX_DEVICES 8

/* One value: device index, the window's end (CUPTI's clock, ns), the
 * metric's trace name (pm_metrics.h), its value; metric NULL: a decode
 * pass ended (a moment to write out what was buffered). */
typedef void (*gs_pm_emit_fn)(uint32_t device, uint64_t ts, const char *metric, double value);

struct gs_pm_opts {
	uint64_t interval_ns;
	gs_pm_emit_fn emit;
	void (*log)(const char *msg); /* NULL, or GPUSCOPE_DEBUG=1's log */
	/* NULL, or called once on the thread when the first device samples:
	 * the program's CUDA start is done, so an atexit handler registered
	 * now runs before the CUDA runtime's (atexit runs them last in, first
	 * out), while the contexts PM sampling reads still exist */
	void (*started)(void);
};

/* Starts the sampling thread; 0, or -1 with why. */
int gs_pm_start(const struct gs_pm_opts *o, char *why, size_t why_len);
/* Stops it: a last decode, sampling stopped and disabled (wait: the thread
 * is joined, at most GS_PM_STOP_MS; 0 from a signal handler: only asks).
 * 1 when the thread has ended (its emit calls are over), else 0. */
int gs_pm_stop(int wait);
/* "" while it works, else why it stopped or never started (the CUPTI call
 * and its error). */
const char *gs_pm_status(void);
/* What the thread did so far (read after gs_pm_stop returned 1 for exact
 * counts). */
void gs_pm_counts(struct pm_counts *out);

#ifdef __cplusplus
}
#endif

#endif
