/*
 * sampler.c - record's GPU sampling (sampler.h): the GPU sampler's thread
 * reads every device at the record rate; on_tick keeps the metrics that
 * belong in a trace, in registry order, as points.
 */
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "record/sampler.h"
#include "util/error.h"

/* record's readings: no health counters or process lists (each round at
 * 10 Hz must stay short) */
#define RECORD_WANT GPU_WANT_ALL

static void add(struct sampler *s, long long ts, unsigned dev, unsigned m, double v)
{
	struct sampler_point *p = VEC_PUSH(s->points, s->n_points, s->cap_points);
	if (p)
		*p = (struct sampler_point){ts, dev, m, v};
}

static void on_tick(void *arg, const struct gpu_tick *t)
{
	struct sampler *s = arg;
	pthread_mutex_lock(&s->lock);
	for (unsigned d = 0; d < t->n_dev; d++) {
		const struct gpu_sample *x = &t->s[d];
		for (unsigned m = 0; m < GPU_M_COUNT; m++)
			if ((gpu_metrics[m].flags & GPU_MF_RECORD) && gpu_sample_has(x, m))
				add(s, x->real_ns, d, m, x->v[m]);
	}
	pthread_mutex_unlock(&s->lock);
}

int sampler_start_on(struct sampler *s, const struct gpu_sys *sys, double hz, char *err)
{
	struct gpu_sampler_opts o = {hz > 0 && hz <= 1000 ? hz : 10, RECORD_WANT, 0, 0, 0, 0, 0};
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->sys = *sys;
	s->opened = 1;
	if (gpu_count(&s->sys) == 0) {
		sampler_stop(s);
		return error_set(err, "nvml sees no gpu");
	}
	/* subscribers get every round; the ring only needs the last few */
	if (gpu_sampler_init(&s->gs, gpu_count(&s->sys), 16, err) < 0 ||
	    gpu_sampler_subscribe(&s->gs, on_tick, s) < 0 ||
	    gpu_sampler_start(&s->gs, &s->sys, &o, err) < 0) {
		sampler_stop(s);
		return -1;
	}
	return 0;
}

int sampler_start(struct sampler *s, double hz, char *err)
{
	struct gpu_sys sys;
	if (gpu_sys_open(&sys, err) < 0) {
		memset(s, 0, sizeof(*s));
		pthread_mutex_init(&s->lock, NULL);
		return -1;
	}
	return sampler_start_on(s, &sys, hz, err);
}

void sampler_stop(struct sampler *s)
{
	gpu_sampler_release(&s->gs);
	if (s->opened) {
		gpu_sys_close(&s->sys);
		s->opened = 0;
	}
}

int sampler_to_trace(const struct sampler *s, struct trace *t, long long offset_ns)
{
	uint32_t ids[GPU_M_COUNT];
	/* interned in registry order: a trace's string ids stay what they were */
	for (unsigned m = 0; m < GPU_M_COUNT; m++)
		if ((gpu_metrics[m].flags & GPU_MF_RECORD) &&
		    (ids[m] = trace_intern(t, gpu_metrics[m].trace_name)) == UINT32_MAX)
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
