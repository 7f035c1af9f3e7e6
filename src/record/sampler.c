/*
 * sampler.c - NVML/GPM sampling in the launcher while the program runs
 * (sampler.h). The lock guards only the points array; NVML calls are made
 * without it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/nvml.h"
#include "record/sampler.h"
#include "util/error.h"

const char *const sampler_metric_names[] = {
    "gpu_util",	   "mem_util",	       "sm_clock_mhz",	   "mem_clock_mhz",   "power_w",
    "temp_c",	   "pcie_tx_mbps",     "pcie_rx_mbps",	   "mem_used_bytes",  "clock_event_reasons",
    "gpm_sm_util", "gpm_sm_occupancy", "gpm_dram_bw_util", "gpm_tensor_util", "gpm_fp32_util",
};
#define N_METRICS (sizeof(sampler_metric_names) / sizeof(sampler_metric_names[0]))

static long long real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void add(struct sampler *s, long long ts, unsigned dev, unsigned m, double v)
{
	if (s->n_points == s->cap_points) {
		size_t nc = s->cap_points ? s->cap_points * 2 : 1024;
		struct sampler_point *p = realloc(s->points, nc * sizeof(*p));
		if (!p)
			return;
		s->points = p;
		s->cap_points = nc;
	}
	s->points[s->n_points++] = (struct sampler_point){ts, dev, m, v};
}

static void sample_once(struct sampler *s)
{
	for (unsigned d = 0; d < s->n_devices; d++) {
		struct gs_nvml_sample x;
		memset(&x, 0, sizeof(x));
		if (gs_nvml_sample(s->nvml, d, &x) < 0)
			continue;
		long long ts = real_ns();
		double v[N_METRICS] = {x.gpu_util,	   x.mem_util,
				       x.sm_clock_mhz,	   x.mem_clock_mhz,
				       x.power_w,	   x.temp_c,
				       x.pcie_tx_mbps,	   x.pcie_rx_mbps,
				       x.mem_used_bytes,   (double)x.clock_event_reasons,
				       x.gpm_sm_util,	   x.gpm_sm_occupancy,
				       x.gpm_dram_bw_util, x.gpm_tensor_util,
				       x.gpm_fp32_util};
		pthread_mutex_lock(&s->lock);
		/* bit i of valid is metric i (GS_NVML_V_* follow the same order) */
		for (unsigned m = 0; m < N_METRICS; m++)
			if (x.valid & (1ull << m))
				add(s, ts, d, m, v[m]);
		pthread_mutex_unlock(&s->lock);
	}
}

static long long mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

long long sampler_next_tick(long long start, long long period, long long now)
{
	if (period <= 0 || now < start)
		return start;
	return start + ((now - start) / period + 1) * period;
}

/* Rounds start on a fixed grid of ticks, so the time a round takes (on the
 * H200 ~45 ms, mostly the PCIe throughput queries) does not stretch the
 * period: sleeping a whole period after each round sampled at ~7 Hz, not
 * 10. A round longer than the period skips the ticks it overran. */
static void *run(void *arg)
{
	struct sampler *s = arg;
	long long period = (long long)(1e9 / s->hz), start = mono_ns();
	for (;;) {
		pthread_mutex_lock(&s->lock);
		int stop = s->stop;
		pthread_mutex_unlock(&s->lock);
		if (stop)
			break;
		sample_once(s);
		long long next = sampler_next_tick(start, period, mono_ns());
		struct timespec ts = {next / 1000000000ll, next % 1000000000ll};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	return NULL;
}

int sampler_start(struct sampler *s, double hz, char *err)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->hz = hz > 0 && hz <= 1000 ? hz : 10;
	if (gs_nvml_open(&s->nvml, err) < 0)
		return -1;
	if (gs_nvml_device_count(s->nvml, &s->n_devices) < 0 || s->n_devices == 0) {
		gs_nvml_close(s->nvml);
		s->nvml = NULL;
		return error_set(err, "nvml sees no gpu");
	}
	if (pthread_create(&s->thread, NULL, run, s) != 0) {
		gs_nvml_close(s->nvml);
		s->nvml = NULL;
		return error_set(err, "cannot start the sampler thread");
	}
	s->running = 1;
	return 0;
}

void sampler_stop(struct sampler *s)
{
	if (s->running) {
		pthread_mutex_lock(&s->lock);
		s->stop = 1;
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
		s->running = 0;
	}
	if (s->nvml) {
		gs_nvml_close(s->nvml);
		s->nvml = NULL;
	}
}

int sampler_to_trace(const struct sampler *s, struct trace *t, long long offset_ns)
{
	uint32_t ids[N_METRICS];
	for (unsigned m = 0; m < N_METRICS; m++)
		if ((ids[m] = trace_intern(t, sampler_metric_names[m])) == UINT32_MAX)
			return -1;
	for (size_t i = 0; i < s->n_points; i++) {
		struct trace_sample *x = trace_add_sample(t);
		if (!x)
			return -1;
		x->ts_ns = s->points[i].real_ns + offset_ns;
		x->device = s->points[i].device;
		x->metric_id = ids[s->points[i].metric];
		x->value = s->points[i].value;
	}
	return 0;
}

void sampler_release(struct sampler *s)
{
	sampler_stop(s);
	free(s->points);
	s->points = NULL;
	s->n_points = s->cap_points = 0;
	pthread_mutex_destroy(&s->lock);
}
