/*
 * sampler.h - record's use of the GPU sampler (src/gpu/sampler.h): a
 * sampler thread in the launcher process while the program runs, and a
 * subscriber that keeps the registry's record metrics (GPU_MF_RECORD) as
 * trace sample rows. Samples are kept with CLOCK_REALTIME timestamps;
 * record maps them onto CUPTI's clock with a spool file's clock pair.
 */
#ifndef GPUSCOPE_RECORD_SAMPLER_H
#define GPUSCOPE_RECORD_SAMPLER_H

#include <pthread.h>
#include <stddef.h>

#include "gpu/gpu.h"
#include "gpu/sampler.h"
#include "trace/trace.h"

struct sampler_point {
	long long real_ns;
	unsigned device;
	unsigned metric; /* enum gpu_metric */
	double value;
};

struct sampler {
	struct gpu_sys sys;
	struct gpu_sampler gs;
	int opened;
	pthread_mutex_t lock; /* guards points */
	struct sampler_point *points;
	size_t n_points, cap_points;
};

/* Opens the GPUs and starts sampling at hz. Returns 0, or -1 with err
 * saying why (no driver, no device); the caller goes on without samples. */
int sampler_start(struct sampler *s, double hz, char *err);
/* The same over an opened system (tests: a fake NVML); s owns sys after. */
int sampler_start_on(struct sampler *s, const struct gpu_sys *sys, double hz, char *err);
/* Stops the thread (if started) and closes the GPUs; points stay. */
void sampler_stop(struct sampler *s);
/* Adds the samples to t with ts = real_ns + offset_ns (CUPTI clock). */
int sampler_to_trace(const struct sampler *s, struct trace *t, long long offset_ns);
void sampler_release(struct sampler *s);

#endif
