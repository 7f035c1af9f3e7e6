/*
 * sampler.h - the NVML/GPM sampler thread `gpuscope record` runs in the
 * launcher process while the program runs (src/gpu/nvml.h underneath).
 * Samples are kept with CLOCK_REALTIME timestamps; record maps them onto
 * CUPTI's clock with a spool file's clock pair.
 */
#ifndef GPUSCOPE_RECORD_SAMPLER_H
#define GPUSCOPE_RECORD_SAMPLER_H

#include <pthread.h>
#include <stddef.h>

#include "trace/trace.h"

struct sampler_point {
	long long real_ns;
	unsigned device;
	unsigned metric; /* index into sampler_metric_names */
	double value;
};

struct sampler {
	struct gs_nvml *nvml;
	unsigned n_devices;
	double hz;
	pthread_t thread;
	pthread_mutex_t lock;
	int running, stop;
	struct sampler_point *points;
	size_t n_points, cap_points;
};

extern const char *const sampler_metric_names[];

/* Opens NVML and starts sampling at hz. Returns 0, or -1 with err saying
 * why (no driver, no device); the caller goes on without samples. */
int sampler_start(struct sampler *s, double hz, char *err);
/* Stops the thread (if started) and closes NVML; points stay. */
void sampler_stop(struct sampler *s);
/* Adds the samples to t with ts = real_ns + offset_ns (CUPTI clock). */
int sampler_to_trace(const struct sampler *s, struct trace *t, long long offset_ns);
void sampler_release(struct sampler *s);
/* The sampler's schedule: the first tick of the grid start + k * period
 * (k >= 1) after now; start itself when now is before it. */
long long sampler_next_tick(long long start, long long period, long long now);

#endif
