/*
 * sampler.h - the GPU sampler component: rounds of readings of every
 * device, kept in a bounded ring buffer and handed to subscribers.
 *
 * One producer fills it: its own thread over a struct gpu_sys
 * (gpu_sampler_start: record, serve), rounds the caller runs
 * (gpu_sampler_round: monitor's loop), or readings from elsewhere
 * (gpu_sampler_push: a monitor log being replayed). Readers (monitor's
 * sparklines, serve's /metrics) copy out of the ring under its lock;
 * subscribers (record's trace rows, monitor's log) are called on the
 * producer's thread after each round, without the lock held.
 *
 * Invariants:
 *  1. the ring holds at most `ring` rounds; the oldest is overwritten;
 *  2. a round's samples carry validity bits (gpu.h): unknown stays unknown;
 *  3. a subscriber must not call back into the sampler's producer side.
 */
#ifndef GPUSCOPE_GPU_SAMPLER_H
#define GPUSCOPE_GPU_SAMPLER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"

/* One round: n_dev samples (and process lists when read), valid only
 * during the subscriber call. */
struct gpu_tick {
	int64_t real_ns; /* CLOCK_REALTIME when the round started */
	uint64_t seq;	 /* 1 for the first round */
	unsigned n_dev;
	const struct gpu_sample *s;
	const struct gpu_procs *procs; /* NULL: not read this round */
	const struct gpu_migs *migs;   /* NULL: MIG not read this round */
};

struct gpu_sampler_sub {
	void (*fn)(void *arg, const struct gpu_tick *t);
	void *arg;
};

#define GPU_SAMPLER_MAX_SUBS 8

/* What a round reads. */
struct gpu_sampler_opts {
	double hz;     /* rounds per second (thread only), 0 < hz <= 1000 */
	unsigned want; /* GPU_WANT_* */
	int health;    /* also gpu_health() */
	int procs;     /* also gpu_processes() */
	int statics;   /* copy the static metrics (GPU_MF_STATIC) into each sample */
	int mig;       /* also gpu_mig() (the tick's migs; not kept in the ring) */
	/* the slow counters, gpu_health() and GPU_WANT_ENERGY (on the H200
	 * 9.5 ms of CPU a device, against 1.5 ms for the rest of a round),
	 * read at most every slow_s seconds and repeated in the rounds
	 * between (0: every round) */
	double slow_s;
};

struct gpu_sampler {
	unsigned n_dev;
	size_t cap;		 /* rounds the ring holds */
	size_t head, count;	 /* next slot, rounds held */
	uint64_t seq;		 /* rounds ever stored */
	int64_t *ring_ts;	 /* cap */
	struct gpu_sample *ring; /* cap * n_dev */
	struct gpu_procs *procs; /* n_dev: the latest lists */
	int have_procs;
	struct gpu_static *statics; /* n_dev, read by gpu_sampler_start/round */
	int have_statics;
	/* the producer's scratch round */
	struct gpu_sample *cur;
	struct gpu_procs *cur_procs;
	struct gpu_migs *cur_migs; /* n_dev */
	struct gpu_sample *slow;   /* n_dev: the last slow reading (opts.slow_s) */
	int64_t slow_ns;	   /* CLOCK_MONOTONIC of it; 0: none yet */
	struct gpu_sampler_sub sub[GPU_SAMPLER_MAX_SUBS];
	unsigned n_sub;
	/* thread */
	struct gpu_sys *sys;
	struct gpu_sampler_opts opts;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int running, stop;
};

/* Allocates a ring of `ring` rounds of n_dev devices (1 <= n_dev <=
 * GPU_MAX_DEVICES). -1 with err when out of memory or out of range. */
int gpu_sampler_init(struct gpu_sampler *s, unsigned n_dev, size_t ring, char *err);
/* Stops the thread (if any) and frees everything. Safe on a zeroed struct. */
void gpu_sampler_release(struct gpu_sampler *s);
/* Adds a subscriber (before the producer starts); -1 when full. */
int gpu_sampler_subscribe(struct gpu_sampler *s, void (*fn)(void *, const struct gpu_tick *),
			  void *arg);

/* One round over sys on the caller's thread: reads, stores, notifies. */
int gpu_sampler_round(struct gpu_sampler *s, struct gpu_sys *sys, const struct gpu_sampler_opts *o);
/* Stores a round read elsewhere (samples: n_dev; procs may be NULL) and notifies. */
int gpu_sampler_push(struct gpu_sampler *s, int64_t real_ns, const struct gpu_sample *samples,
		     const struct gpu_procs *procs);

/* Starts the thread: rounds at o->hz on a fixed grid. sys must outlive it. */
int gpu_sampler_start(struct gpu_sampler *s, struct gpu_sys *sys, const struct gpu_sampler_opts *o,
		      char *err);
/* Stops the thread at once (it does not finish its sleep). */
void gpu_sampler_stop(struct gpu_sampler *s);

/*
 * Copies the latest round: its time, n_dev samples into out, and the
 * latest process lists into procs (may be NULL; *have_procs, if given,
 * says whether they were ever read). Returns its seq, 0 when none yet.
 */
uint64_t gpu_sampler_latest(struct gpu_sampler *s, int64_t *real_ns, struct gpu_sample *out,
			    struct gpu_procs *procs, int *have_procs);
/* Up to n values of metric m of device dev, oldest first, NaN where
 * unknown; returns how many were written. */
size_t gpu_sampler_history(struct gpu_sampler *s, unsigned dev, enum gpu_metric m, double *vals,
			   size_t n);

/* The schedule: the first tick of the grid start + k * period (k >= 1)
 * after now; start itself when now is before it. */
long long gpu_sampler_next_tick(long long start, long long period, long long now);

#endif
