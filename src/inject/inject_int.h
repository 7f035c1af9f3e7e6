/*
 * inject_int.h - the injection library's private parts (libgpuscope-inject.so,
 * see inject.c for what it does and its invariants), one job per file:
 *
 *   inject.c        start (InitializeInjection), the CUPTI API callbacks
 *                   (on_api: launch counting, per-kernel counters hooks)
 *   spool_writer.c  the spool file: header, string table, status and stats
 *                   records, write(2)
 *   convert.c       CUPTI activity records into spool records
 *   bufpool.c       CUPTI's activity buffers: the pool of zeroed buffers and
 *                   the buffer callbacks (buffer_requested, buffer_completed)
 *   flush.c         the flush thread, record's flush handshake, caught
 *                   signals, _exit via the preload shim, the final flush
 *   api_select.c    which activity kinds and API calls are recorded
 *                   (GPUSCOPE_KINDS, GPUSCOPE_API), gpuscope_capture
 *   uvm.c           the unified-memory counters (the "uvm" kind): set up
 *                   once, refused without harm
 *   util/knobs.h    every GPUSCOPE_* variable, its default and what it does
 *
 * All state is one struct (inj); the hot paths (on_api, buffer_completed,
 * convert) touch it exactly as when it was file-static: the split moved code,
 * it added no work.
 */
#ifndef GPUSCOPE_INJECT_INT_H
#define GPUSCOPE_INJECT_INT_H

#include <cupti.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "util/knobs.h"
#include "trace/spool.h"
#include "util/hmap.h"

#define EXPORT __attribute__((visibility("default")))
#define CUPTI_BUF_SIZE (4u * 1024 * 1024)
#define MAX_CBID 4096
#define TAKEOVER_TICKS 2
#define POOL_READY 2
#define POOL_MAX 8
#define SIG_SETTLE_MS 20 /* caught signal: wait for queued GPU work, then flush */
#define SIG_MAX_MS 1000	 /* caught signal: let through after this at the latest */

/* How API calls get activity records (GPUSCOPE_API):
 *  lean (default): as calls, without the driver's stream-ordering calls
 *    (cuEventRecord, cuStreamWaitEvent, cuGraphExec*NodeSet*: api_order.h),
 *    which XLA makes by the dozen each step
 *  calls (the default before 2026-12-06): each call of interest enabled on its own
 *    (cuptiActivityEnable{Runtime,Driver}Api), every call but the queries
 *    (invariant 4), so that a call left out is not intercepted at all; on
 *    the H200 this was clearly cheaper than whole kinds on PyTorch's small
 *    ops (1.48x vs 1.97x) and within the noise elsewhere (workloads/README.md)
 *  work: the same, only the calls that enqueue, wait, allocate or load
 *  kind: the whole kind enabled, the queries then switched off
 *  all: the whole kind, every call */
enum api_mode { API_LEAN, API_CALLS, API_WORK, API_KIND, API_ALL };

/* The unified-memory counters (uvm.c): not tried yet; CUPTI said "not
 * initialised" (tried again by the flush thread); configured (and off, or
 * paused); enabled; refused by the driver; left out by GPUSCOPE_KINDS. */
enum uvm_state { UVM_UNTRIED, UVM_LATER, UVM_CONFIGURED, UVM_ENABLED, UVM_REFUSED, UVM_OFF };

struct inject_state {
	int fd;
	pid_t pid;
	int debug;
	atomic_int quiet;
	atomic_int stopping;
	unsigned flush_ms;
	CUpti_SubscriberHandle sub;
	/* the spool's string table: id = index + 1 (intern) */
	pthread_mutex_t str_lock;
	struct hindex str_index;
	char **strs;
	size_t n_strs, cap_strs;
	_Atomic uint32_t api_ids[2][MAX_CBID];
	atomic_ullong dropped, overhead_ns, buffers, records, launches, kernel_records,
	    bytes_written, incomplete;
	atomic_llong last_record_ts;
	atomic_int takeover_reported;
	atomic_ullong foreign_records; /* records of kinds we never enabled */
	atomic_ullong graph_records;   /* graph-level records (GPUSCOPE_KINDS graph) */
	atomic_int foreign_kind, foreign_reported;
	/* heartbeat: the flush thread calls cuDriverGetVersion each tick and
	 * expects its activity record back (check_heartbeat) */
	atomic_int beat_tid, exit_tid;
	atomic_ullong beats_sent, beats_seen;
	int (*drv_version)(int *);
	/* GPUSCOPE_HOST_FREE_GUARD=1 (inject.c): pinned host memory is freed
	 * only once the device is idle; the synchronizations it made */
	int (*ctx_sync)(void);
	atomic_ullong guard_syncs;
	/* buffer pool (invariant 5) */
	int pool_on;
	pthread_mutex_t pool_lock;
	uint8_t *pool[POOL_MAX];
	int pool_n;
	atomic_ullong pool_misses;
	/* flush handshake with record (spool.h) */
	char request_path[4096], answer_path[4096];
	/* _exit / _Exit seen by the preload shim: the flush thread does the
	 * last flush (quick_exit_hook); final_done: final_flush ran */
	atomic_int exit_req, exit_status, flush_alive, final_done;
	/* a killing signal caught for a last flush (catch_signals) */
	atomic_int sig_caught;
	_Atomic uint64_t sig_caught_ns;
	timer_t sig_timer[3];
	int sig_timer_ok[3];
	/* what is recorded (GPUSCOPE_KINDS, GPUSCOPE_API) and whether it is
	 * now (gpuscope_capture) */
	const char *kinds_want;
	int kinds_none, api_mode, started;
	int discard; /* GPUSCOPE_DISCARD=1 (bench only): buffers dropped unread */
	atomic_int capturing;
	pthread_mutex_t capture_lock;
	uint64_t paused_at, paused_ns;
	unsigned long pauses;
	int counters_on; /* GPUSCOPE_METRICS=kernels: launch callbacks profile kernels */
	/* GPUSCOPE_COUNTERS_MODE: 0 the outermost launch call (default), 1 driver
	 * launches only, 2 also set the profiler up when a context is created */
	int counters_mode;
	/* the "uvm" kind (uvm.c), switched under capture_lock or at the start */
	int uvm_state;		/* enum uvm_state */
	atomic_int uvm_waiting; /* uvm_state is UVM_LATER: uvm_poll asks again */
	int uvm_partial, uvm_noted;
	char uvm_refused[160]; /* the counters the driver refused, when some */
	char uvm_note[400];    /* the note not written yet (uvm_note_flush) */
};

extern struct inject_state inj __attribute__((visibility("hidden")));

/* ---- spool_writer.c ---- */
void dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int64_t cupti_now(void);

static inline uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* this process records (invariant 2 of inject.c) */
static inline int mine(void)
{
	return inj.fd >= 0 && getpid() == inj.pid;
}
void write_all(const void *buf, size_t len);
/* a status record (and, fatal, recording stops) */
void status(int fatal, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *cupti_err(CUptiResult r);
/* 1 when the variable is set to value */
int env_is(const char *name, const char *value);
int open_spool(void);

/* --- output buffer: grows by flushing to the file when full --- */
struct out {
	char *buf;
	size_t cap, pos;
};

static inline void out_flush(struct out *o)
{
	if (o->pos && !atomic_load(&inj.quiet))
		write_all(o->buf, o->pos);
	o->pos = 0;
}

static inline void put(struct out *o, uint16_t type, const void *p, uint32_t len, const void *x,
		       uint32_t xl)
{
	if (spool_put(o->buf, o->cap, &o->pos, type, p, len, x, xl) == 0)
		return;
	out_flush(o);
	spool_put(o->buf, o->cap, &o->pos, type, p, len, x, xl);
}

/* The spool id of s; emits a STRING record into o the first time. */
uint32_t intern(struct out *o, const char *s);
/* The spool id of an API call's name. */
uint32_t api_name(struct out *o, int driver, uint32_t cbid);
void write_stats(struct out *o);

/* ---- convert.c ---- */
void inject_convert(struct out *o, const CUpti_Activity *rec);

/* ---- bufpool.c ---- */
void pool_fill(void);
void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records);
void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
			       size_t valid);

/* ---- flush.c ---- */
void *flush_thread(void *arg);
void at_exit(void);
void catch_signals(void);
void register_quick_exit(void);
void check_foreign(void);

/* ---- api_select.c ---- */
int set_kinds(int on, CUptiResult *last);
void report_paused(void);
EXPORT int gpuscope_capture(int on);

/* ---- uvm.c ---- */
/* Switches the "uvm" kind on or off (want: GPUSCOPE_KINDS has it); the
 * first time on configures the counters and notes the outcome once.
 * Returns 1 when the kind was switched, 0 otherwise (never a failure of
 * the recording). */
int uvm_switch(int on, int want);
/* The flush thread's second try when CUPTI was not initialised at the
 * start (UVM_LATER); then writes a note left by a switch (uvm_note_flush). */
void uvm_retry(void);
/* Asks again while the counters wait for CUPTI (UVM_LATER); nothing
 * otherwise. Called by the flush thread at each poll. */
void uvm_poll(void);
/* At the program's end: counters still waiting for CUPTI (UVM_LATER: the
 * program ended within the first flush period) are said not recorded. */
void uvm_at_end(void);
/* Writes the note the last switch left, if any, outside capture_lock. */
void uvm_note_flush(void);

/* ---- inject.c ---- */
void counters_report(void);
/* ---- pm_hook.c: record --metrics pm ---- */
void pm_setup(void);
/* Stops PM sampling and reports; wait 0 from a signal handler. */
void pm_report(int wait);

#endif
