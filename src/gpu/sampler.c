/*
 * sampler.c - the GPU sampler component (sampler.h).
 *
 * The lock guards the ring, the latest process lists and stop; vendor
 * calls and subscriber calls are made without it, so a slow reader (a
 * scrape) never delays a round and a slow round never blocks a reader.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/sampler.h"
#include "util/error.h"

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int gpu_sampler_init(struct gpu_sampler *s, unsigned n_dev, size_t ring, char *err)
{
	memset(s, 0, sizeof(*s));
	if (n_dev == 0 || n_dev > GPU_MAX_DEVICES || ring == 0 || ring > 1000000)
		return error_set(err, "sampler: %u devices, %zu rounds: out of range", n_dev, ring);
	s->n_dev = n_dev;
	s->cap = ring;
	s->ring_ts = calloc(ring, sizeof(*s->ring_ts));
	s->ring = calloc(ring * n_dev, sizeof(*s->ring));
	s->procs = calloc(n_dev, sizeof(*s->procs));
	s->cur = calloc(n_dev, sizeof(*s->cur));
	s->cur_procs = calloc(n_dev, sizeof(*s->cur_procs));
	s->cur_migs = calloc(n_dev, sizeof(*s->cur_migs));
	s->statics = calloc(n_dev, sizeof(*s->statics));
	s->slow = calloc(n_dev, sizeof(*s->slow));
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (!s->ring_ts || !s->ring || !s->procs || !s->cur || !s->cur_procs || !s->cur_migs ||
	    !s->statics || !s->slow) {
		gpu_sampler_release(s);
		return error_set(err, "out of memory");
	}
	return 0;
}

void gpu_sampler_release(struct gpu_sampler *s)
{
	if (!s->cap)
		return;
	gpu_sampler_stop(s);
	free(s->ring_ts);
	free(s->ring);
	free(s->procs);
	free(s->cur);
	free(s->cur_procs);
	free(s->cur_migs);
	free(s->statics);
	free(s->slow);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->wake);
	memset(s, 0, sizeof(*s));
}

int gpu_sampler_subscribe(struct gpu_sampler *s, void (*fn)(void *, const struct gpu_tick *),
			  void *arg)
{
	if (s->n_sub == GPU_SAMPLER_MAX_SUBS)
		return -1;
	s->sub[s->n_sub].fn = fn;
	s->sub[s->n_sub].arg = arg;
	s->n_sub++;
	return 0;
}

static int push(struct gpu_sampler *s, int64_t real_ns, const struct gpu_sample *samples,
		const struct gpu_procs *procs, const struct gpu_migs *migs)
{
	struct gpu_tick t;
	pthread_mutex_lock(&s->lock);
	size_t slot = s->head;
	s->ring_ts[slot] = real_ns;
	memcpy(&s->ring[slot * s->n_dev], samples, s->n_dev * sizeof(*samples));
	s->head = (slot + 1) % s->cap;
	if (s->count < s->cap)
		s->count++;
	if (procs) {
		memcpy(s->procs, procs, s->n_dev * sizeof(*procs));
		s->have_procs = 1;
	}
	t.seq = ++s->seq;
	pthread_mutex_unlock(&s->lock);
	t.real_ns = real_ns;
	t.n_dev = s->n_dev;
	t.s = samples;
	t.procs = procs;
	t.migs = migs;
	for (unsigned i = 0; i < s->n_sub; i++)
		s->sub[i].fn(s->sub[i].arg, &t);
	return 0;
}

int gpu_sampler_push(struct gpu_sampler *s, int64_t real_ns, const struct gpu_sample *samples,
		     const struct gpu_procs *procs)
{
	return push(s, real_ns, samples, procs, NULL);
}

/* Every value src knows, into dst. */
static void sample_merge(struct gpu_sample *dst, const struct gpu_sample *src)
{
	for (int m = 0; m < GPU_M_COUNT; m++)
		if (gpu_sample_has(src, m))
			gpu_sample_set(dst, m, src->v[m]);
}

/* The slow counters of device d (opts.slow_s) into s->slow[d]: the energy
 * counter and gpu_health(); a value not known this time is unknown. */
static void slow_read(struct gpu_sampler *s, struct gpu_sys *sys, unsigned d,
		      const struct gpu_sampler_opts *o)
{
	struct gpu_sample e;
	memset(&s->slow[d], 0, sizeof(s->slow[d]));
	if (o->health)
		gpu_health(sys, d, &s->slow[d]);
	if (o->want & GPU_WANT_ENERGY) {
		gpu_sample(sys, d, GPU_WANT_ENERGY, &e);
		sample_merge(&s->slow[d], &e);
	}
}

int gpu_sampler_round(struct gpu_sampler *s, struct gpu_sys *sys, const struct gpu_sampler_opts *o)
{
	int64_t start = clock_ns(CLOCK_REALTIME);
	if (o->statics && !s->have_statics) {
		for (unsigned d = 0; d < s->n_dev; d++)
			gpu_static_info(sys, d, &s->statics[d]);
		s->have_statics = 1;
	}
	/* the slow counters: this round, or their last values again */
	int64_t mono = clock_ns(CLOCK_MONOTONIC);
	/* half a period early is on time: rounds keep a grid, not exact times */
	int64_t slack = o->hz > 0 ? (int64_t)(0.5e9 / o->hz) : 0;
	int slow = !(o->slow_s > 0) || !s->slow_ns ||
		   mono - s->slow_ns + slack >= (int64_t)(o->slow_s * 1e9);
	if (slow && o->slow_s > 0)
		s->slow_ns = mono;
	for (unsigned d = 0; d < s->n_dev; d++) {
		struct gpu_sample *x = &s->cur[d];
		gpu_sample(sys, d, o->slow_s > 0 ? o->want & ~GPU_WANT_ENERGY : o->want, x);
		/* as record always did: the time is taken when the device was read */
		x->real_ns = clock_ns(CLOCK_REALTIME);
		if (!(o->slow_s > 0)) {
			if (o->health)
				gpu_health(sys, d, x);
		} else {
			if (slow)
				slow_read(s, sys, d, o);
			sample_merge(x, &s->slow[d]);
		}
		if (o->procs) {
			gpu_processes(sys, d, &s->cur_procs[d]);
			if (s->cur_procs[d].valid)
				gpu_sample_set(x, GPU_M_PROCESSES, s->cur_procs[d].total);
		}
		if (o->statics)
			gpu_static_to_sample(&s->statics[d], x);
		if (o->mig)
			gpu_mig(sys, d, &s->cur_migs[d]);
	}
	return push(s, start, s->cur, o->procs ? s->cur_procs : NULL, o->mig ? s->cur_migs : NULL);
}

long long gpu_sampler_next_tick(long long start, long long period, long long now)
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
	struct gpu_sampler *s = arg;
	long long period = (long long)(1e9 / s->opts.hz), start = clock_ns(CLOCK_MONOTONIC);
	pthread_setname_np(pthread_self(), "gs-sampler"); /* per-thread costs by name */
	/* do-while: the first round is taken whatever happens, so a sampler
	 * stopped before its thread got the CPU (a short program, a loaded
	 * machine) still leaves one sample of every metric */
	pthread_mutex_lock(&s->lock);
	do {
		pthread_mutex_unlock(&s->lock);
		gpu_sampler_round(s, s->sys, &s->opts);
		long long next = gpu_sampler_next_tick(start, period, clock_ns(CLOCK_MONOTONIC));
		struct timespec ts = {next / 1000000000ll, next % 1000000000ll};
		pthread_mutex_lock(&s->lock);
		while (!s->stop && pthread_cond_timedwait(&s->wake, &s->lock, &ts) != ETIMEDOUT)
			;
	} while (!s->stop);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int gpu_sampler_start(struct gpu_sampler *s, struct gpu_sys *sys, const struct gpu_sampler_opts *o,
		      char *err)
{
	if (s->running)
		return error_set(err, "sampler already running");
	s->sys = sys;
	s->opts = *o;
	if (!(s->opts.hz > 0 && s->opts.hz <= 1000))
		s->opts.hz = 10;
	s->stop = 0;
	if (pthread_create(&s->thread, NULL, run, s) != 0)
		return error_set(err, "cannot start the sampler thread");
	s->running = 1;
	return 0;
}

void gpu_sampler_stop(struct gpu_sampler *s)
{
	if (!s->running)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_broadcast(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	s->running = 0;
}

uint64_t gpu_sampler_latest(struct gpu_sampler *s, int64_t *real_ns, struct gpu_sample *out,
			    struct gpu_procs *procs, int *have_procs)
{
	uint64_t seq;
	pthread_mutex_lock(&s->lock);
	seq = s->count ? s->seq : 0;
	if (seq) {
		size_t slot = (s->head + s->cap - 1) % s->cap;
		if (real_ns)
			*real_ns = s->ring_ts[slot];
		if (out)
			memcpy(out, &s->ring[slot * s->n_dev], s->n_dev * sizeof(*out));
	}
	if (procs && s->have_procs)
		memcpy(procs, s->procs, s->n_dev * sizeof(*procs));
	if (have_procs)
		*have_procs = s->have_procs;
	pthread_mutex_unlock(&s->lock);
	return seq;
}

size_t gpu_sampler_history(struct gpu_sampler *s, unsigned dev, enum gpu_metric m, double *vals,
			   size_t n)
{
	size_t k = 0;
	if (dev >= s->n_dev || (int)m < 0 || m >= GPU_M_COUNT)
		return 0;
	pthread_mutex_lock(&s->lock);
	size_t have = s->count < n ? s->count : n;
	size_t first = (s->head + s->cap - have) % s->cap;
	for (; k < have; k++) {
		const struct gpu_sample *x = &s->ring[((first + k) % s->cap) * s->n_dev + dev];
		vals[k] = gpu_sample_has(x, m) ? x->v[m] : NAN;
	}
	pthread_mutex_unlock(&s->lock);
	return k;
}
