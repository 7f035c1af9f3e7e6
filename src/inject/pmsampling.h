/*
 * pmsampling.h - CUPTI PM sampling inside the injected library (`record
 * --metrics pm`): the single-pass device-wide metrics of
 * src/gpu/pm_metrics.h read by the GPU at a fixed interval (default 1 ms,
 * GPUSCOPE_PM_INTERVAL_US) into a hardware buffer, which a thread of ours
 * decodes every GS_PM_DECODE_MS into one value per metric and window. No
 * replay: the program runs as it does untraced, apart from that thread.
 *
 * The thread starts sampling a device once the device has a context (the
 * runtime's primary context becomes active; after GS_PM_WAIT_S without
 * one it tries anyway), so the CUDA initialisation that loaded us is done.
 *
 * Error contract: nothing here exits, aborts or blocks the program: a
 * failing CUPTI call switches PM sampling off and gs_pm_status() says why
 * (privileges, another profiler, a chip that lacks a metric in one pass);
 * the trace goes on without samples. gs_pm_stop() waits at most
 * GS_PM_STOP_MS for the thread's last decode.
 */
#ifndef GPUSCOPE_INJECT_PMSAMPLING_H
#define GPUSCOPE_INJECT_PMSAMPLING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GS_PM_DECODE_MS 50
#define GS_PM_WAIT_S 5
#define GS_PM_STOP_MS 1000
#define GS_PM_MAX_DEVICES 8

/* One value: device index, the window's end (CUPTI's clock, ns), the
 * metric's trace name (pm_metrics.h), its value; metric NULL: a decode
 * ended (a moment to write out what was buffered). */
typedef void (*gs_pm_emit_fn)(uint32_t device, uint64_t ts, const char *metric, double value);

struct gs_pm_opts {
	uint64_t interval_ns;
	gs_pm_emit_fn emit;
	void (*log)(const char *msg); /* NULL, or GPUSCOPE_DEBUG=1's log */
};

/* Starts the sampling thread; 0, or -1 with why. */
int gs_pm_start(const struct gs_pm_opts *o, char *why, size_t why_len);
/* Stops it: a last decode, sampling stopped and disabled (wait: the thread
 * is joined, at most GS_PM_STOP_MS; 0 from a signal handler: only asks).
 * 1 when the thread has ended (its emit calls are over), else 0. */
int gs_pm_stop(int wait);
/* "" while it works, else why it stopped or never started. */
const char *gs_pm_status(void);
/* Windows decoded, devices sampled, hardware-buffer overflows seen. */
void gs_pm_stats(uint64_t *samples, uint32_t *devices, uint64_t *overflows);

#ifdef __cplusplus
}
#endif

#endif
